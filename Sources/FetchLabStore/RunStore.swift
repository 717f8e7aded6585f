import FetchLabCore
import FetchLabResults
import Foundation
import GRDB

/// Comparison runs kept in the database (tables of schema v4, see `RunSchema`): each run's
/// settings, its policies' metrics and their per-app and per-user metrics, one column per metric,
/// and the whole report as JSON, which ``loadRun(_:)`` decodes again.
public struct RunStore: Sendable {
    public let database: FetchLabDatabase

    public init(database: FetchLabDatabase) { self.database = database }

    /// Stores a report as a new run, all of it in one transaction: a failure leaves the database
    /// as it was.
    ///
    /// - Parameters:
    ///   - report: the comparison's report.
    ///   - command: what ran it (`compare`, `demo`).
    ///   - fetchlabVersion: the version of the program that ran it.
    ///   - createdAt: when it ran.
    ///   - perUser: where the per-user rows are when the comparison spooled them
    ///     (`ComparisonRun.perUserRows`); read one at a time while they are written.
    /// - Returns: the run's id (1, 2, … never reused).
    /// - Throws: ``StoreError`` when the report cannot be encoded (a metric that is not a finite
    ///   number) or the database cannot be written.
    @discardableResult
    public func saveRun(
        _ report: ComparisonReport, command: String, fetchlabVersion: String? = nil, createdAt: Date = Date(),
        perUser: (any PerUserRows)? = nil
    ) throws(StoreError) -> Int64 {
        try storing("the run") {
            try RunRow(
                report, command: command, fetchlabVersion: fetchlabVersion, createdAt: createdAt, perUser: perUser)
        } insert: { row, db in
            try row.insert(db)
        }
    }

    /// Encodes rows with `encode`, then writes them with `insert` in one transaction; errors
    /// name `what` (`the run`, `the tuning run`).
    func storing<Row>(
        _ what: String, encode: () throws -> Row, insert: @escaping (Row, Database) throws -> Int64
    ) throws(StoreError) -> Int64 {
        let row: Row
        do {
            row = try encode()
        } catch {
            throw StoreError(.database, "\(database.path): cannot store \(what): \(Self.describe(error))")
        }
        do {
            return try database.writer.write { db in try insert(row, db) }
        } catch let error as DatabaseError {
            throw database.storeError(error, while: "storing \(what)")
        } catch {
            throw StoreError(.database, "\(database.path): cannot store \(what): \(error)")
        }
    }

    /// The stored runs, oldest first.
    public func runs() throws(StoreError) -> [RunSummary] {
        try reading { db in
            // A database of an earlier schema read where it cannot be migrated: no runs yet.
            guard try db.tableExists("run") else { return [] }
            return try Row.fetchAll(
                db,
                sql: """
                    SELECT id, created_at, command, fetchlab_version, policies, users, pairs, scored_launches,
                           tau_minutes, launch_refreshes = 'on', platform
                    FROM runs ORDER BY id
                    """
            ).map { row in
                let id: Int64 = row[0]
                let minutes: Double = row[8]
                guard let tau = Microseconds.minutes(checked: minutes) else {
                    throw StoreError(.corrupt, "\(database.path): run \(id): tau_minutes \(minutes) is not a span")
                }
                return RunSummary(
                    id: id, createdAt: row[1], command: row[2], fetchlabVersion: row[3], policies: row[4],
                    users: row[5], pairs: row[6], scoredLaunches: row[7], tau: tau, launchRefreshes: row[9],
                    platform: row[10])
            }
        }
    }

    /// The report of run `id`, as it was stored (the unencoded parts too: scored days).
    ///
    /// - Throws: ``StoreError`` `notFound` when there is no such run.
    public func loadRun(_ id: Int64) throws(StoreError) -> ComparisonReport {
        let found: Row? = try reading { db in
            guard try db.tableExists("run") else { return nil }
            return try Row.fetchOne(
                db, sql: "SELECT report_json, first_scored_day, last_scored_day FROM run WHERE id = ?",
                arguments: [id])
        }
        guard let found else {
            throw StoreError(.notFound, "\(database.path): no run \(id) (fetchlab runs lists the stored runs)")
        }
        do {
            let decoder = JSONDecoder()
            var report = try decoder.decode(ComparisonReport.self, from: Data((found[0] as String).utf8))
            report.settings.firstScoredDay = found[1]
            report.settings.lastScoredDay = found[2]
            // Per-user rows are stored as rows, the report's arrays left empty (runs stored before
            // hold them in the JSON).
            if report.policies.contains(where: { $0.perUser?.isEmpty == true }) {
                let rows = try reading { db in
                    try Row.fetchAll(
                        db,
                        sql:
                            "SELECT policy_position, user, metrics_json FROM run_policy_user WHERE run_id = ? ORDER BY policy_position, user_position",
                        arguments: [id])
                }
                for row in rows {
                    let position: Int = row[0]
                    guard report.policies.indices.contains(position), report.policies[position].perUser != nil else {
                        continue
                    }
                    let metrics = try decoder.decode(PolicyMetrics.self, from: Data((row[2] as String).utf8))
                    report.policies[position].perUser!.append(GroupResult(name: row[1], metrics: metrics))
                }
            }
            return report
        } catch {
            throw StoreError(
                .database, "\(database.path): run \(id): its stored report cannot be read: \(Self.describe(error))")
        }
    }

    func reading<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try database.writer.read(body)
        } catch let error as StoreError {
            throw error
        } catch let error as DatabaseError {
            throw database.storeError(error, while: "reading the stored runs")
        } catch {
            throw StoreError(.database, "\(database.path): \(error)")
        }
    }

    /// An encoding or decoding error in a few words.
    static func describe(_ error: any Error) -> String {
        switch error {
        case EncodingError.invalidValue(let value, let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return "\(path.isEmpty ? "a value" : path) is \(value), which JSON cannot hold"
        case DecodingError.dataCorrupted(let context), DecodingError.keyNotFound(_, let context),
            DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return (path.isEmpty ? "" : "\(path): ") + context.debugDescription
        default: return "\(error)"
        }
    }
}
