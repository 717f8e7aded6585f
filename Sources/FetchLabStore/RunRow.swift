import FetchLabCore
import FetchLabResults
import Foundation
import GRDB

/// A report as the rows of the run tables, everything encoded before the write transaction starts.
struct RunRow {
    /// Values to bind: a policy's (or one app's, one user's) metrics as ``RunSchema/metricColumns``.
    typealias MetricValues = [(any DatabaseValueConvertible)?]

    struct Group {
        var name: String
        var metrics: MetricValues
    }

    struct Policy {
        var name: String
        var family: String
        var paramsJSON: String
        var metrics: MetricValues
        var apps: [Group]
        var users: [Group]
        /// Whether its per-user rows are in the spool.
        var spooled = false
    }

    var run: [(any DatabaseValueConvertible)?]
    var policies: [Policy]
    /// Where the policies' per-user rows are when they were spooled, not held.
    var spool: (any PerUserRows)?

    /// The rows of `report`. The stored report's JSON holds each policy's `per_user` as an empty
    /// array (per-user rows asked for) or not at all: the rows are in `run_policy_user`, where
    /// ``RunStore/loadRun(_:)`` reads them back, so that a run of many users is never one string.
    init(
        _ report: ComparisonReport, command: String, fetchlabVersion: String?, createdAt: Date,
        perUser spool: (any PerUserRows)? = nil
    ) throws {
        self.spool = spool
        var stored = report
        for i in stored.policies.indices
        where stored.policies[i].perUser != nil || stored.policies[i].spooledPerUser != nil {
            stored.policies[i].perUser = []
            stored.policies[i].spooledPerUser = nil
        }
        let s = report.settings
        run = [
            ISO8601.utc(createdAt), command, fetchlabVersion, s.tau.inMinutes, s.launchRefreshes,
            s.warmUpDays, s.minLaunches, s.platform.rawValue, s.users, s.pairs, s.scoredLaunches, s.firstScoredDay,
            s.lastScoredDay, try Self.json(s), try Self.json(stored), try Self.json(report.boundCurve),
        ]
        policies = try report.policies.map { p in
            Policy(
                name: p.name, family: p.family, paramsJSON: try Self.json(p.params),
                metrics: try Self.values(p.metrics),
                apps: try p.perApp.map { Group(name: $0.name, metrics: try Self.values($0.metrics)) },
                users: try (p.perUser ?? []).map { Group(name: $0.name, metrics: try Self.values($0.metrics)) },
                spooled: p.perUser == nil && p.spooledPerUser != nil)
        }
    }

    /// Compact JSON with sorted keys.
    static func json<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// A policy's metrics as ``RunSchema/allSources`` (counts as integers).
    static func values(_ m: PolicyMetrics) throws -> MetricValues {
        try RunSchema.allSources.map { source -> (any DatabaseValueConvertible)? in
            switch source {
            case .metric(let id):
                guard let value = m[id] else { return nil as Double? }
                return id.metric.kind == .count ? Int(value) : value
            case .fresh(let tau): return m.fresh(tau: tau)
            case .skipped: return m.skipped
            case .gapClosed: return nil as Double?
            case .json: return try json(m)
            }
        }
    }

    static let runColumns = [
        "created_at", "command", "fetchlab_version", "tau_minutes", "launch_refreshes", "warm_up_days",
        "min_launches", "platform", "users", "pairs", "scored_launches", "first_scored_day", "last_scored_day",
        "settings_json", "report_json", "frontier_json",
    ]

    static func insertSQL(_ table: String, _ columns: [String]) -> String {
        "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))"
    }

    /// Inserts the run and its rows (inside the caller's transaction); returns the run's id.
    func insert(_ db: Database) throws -> Int64 {
        try db.execute(sql: Self.insertSQL("run", Self.runColumns), arguments: StatementArguments(run))
        let id = db.lastInsertedRowID
        let metrics = RunSchema.allMetricColumns.map(\.name)
        let policy = try db.makeStatement(
            sql: Self.insertSQL("run_policy", ["run_id", "position", "name", "family", "params_json"] + metrics))
        let app = try db.makeStatement(
            sql: Self.insertSQL("run_policy_app", ["run_id", "policy_position", "app"] + metrics))
        let user = try db.makeStatement(
            sql: Self.insertSQL("run_policy_user", ["run_id", "policy_position", "user_position", "user"] + metrics))
        for (position, p) in policies.enumerated() {
            let head: MetricValues = [id, position, p.name, p.family, p.paramsJSON]
            try policy.execute(arguments: StatementArguments(head + p.metrics))
            for g in p.apps {
                let key: MetricValues = [id, position, g.name]
                try app.execute(arguments: StatementArguments(key + g.metrics))
            }
            for (k, g) in p.users.enumerated() {
                let key: MetricValues = [id, position, k, g.name]
                try user.execute(arguments: StatementArguments(key + g.metrics))
            }
            // Spooled rows, read back one at a time.
            if p.spooled, let spool {
                var k = 0
                try spool.forEach(policy: position) { g in
                    let key: MetricValues = [id, position, k, g.name]
                    try user.execute(arguments: StatementArguments(key + (try Self.values(g.metrics))))
                    k += 1
                }
            }
        }
        return id
    }
}
