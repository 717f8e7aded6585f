import FetchLabResults
import FetchLabSimulation
import Foundation
import GRDB
import Testing
import _FetchLabTestSupport

@testable import FetchLabStore

/// Stored runs: a report in, the same report out, its metrics as columns; migrations from v3;
/// a failed save leaves nothing.
@Suite struct RunStoreTests {
    let dir = TemporaryDirectory()

    /// Metrics with every field set, fresh rates for 5, 15 and 60 minutes.
    static func metrics(_ seed: Double, share: Double? = 0.5) -> PolicyMetrics {
        var m = PolicyMetrics(
            scoredLaunches: Int(100 * seed), fresh: [0.1 * seed, 0.2 * seed, 0.3 * seed], fetchesPerAppDay: 2 * seed)
        m.shareOfPossible = share
        m.gainVsFixed = share.map { $0 / 10 }
        m.taus = [5, 15, 60].map { .minutes(fractional: $0) }
        m.contentFresh = 0.4
        m.stalenessMedianMinutes = 12.5
        m.stalenessP90Minutes = nil
        m.leadMedianMinutes = 3
        m.fetches = 40
        m.wastedFetches = 7
        m.wastedShare = 0.175
        m.energyJoulesPerDay = 1.25
        m.batteryPercentPerDay = 0.01
        m.cellularMBPerDay = 0.5
        m.lowBatteryFetches = 2
        m.skips = [.lowPower: 3, .budget: 1]
        return m
    }

    /// A report as the simulator would make it: two policies, per app and per user groups.
    static func report() -> ComparisonReport {
        var settings = ComparisonSettings(
            tau: .minutes(15), taus: [.minutes(5), .minutes(15), .minutes(60)], launchRefreshes: true, warmUpDays: 7,
            minLaunches: 20,
            platform: .none, users: 2, pairs: 3, scoredLaunches: 150)
        settings.firstScoredDay = "2024-03-08"
        settings.lastScoredDay = "2024-03-12"
        let fixed = PolicyResult(
            name: "fixed(15m)", family: "fixed", params: ["interval_min": 15], metrics: metrics(1),
            perApp: [
                GroupResult(name: "com.a", metrics: metrics(0.5)), GroupResult(name: "com.b", metrics: metrics(0.25)),
            ],
            perUser: [GroupResult(name: "u0", metrics: metrics(0.75))])
        let oracle = PolicyResult(name: "oracle", family: "oracle", params: [:], metrics: metrics(1.5, share: nil))
        var report = ComparisonReport(settings: settings, policies: [fixed, oracle])
        report.boundCurve = [[0, 0], [1, 0.5]]
        return report
    }

    @Test func aReportRoundTrips() throws {
        let db = try FetchLabDatabase(writer: DatabaseQueue())
        let store = RunStore(database: db)
        let report = Self.report()
        let when = Date(timeIntervalSince1970: 1_700_000_000)
        let first = try store.saveRun(report, command: "compare", fetchlabVersion: "0.1.0", createdAt: when)
        let second = try store.saveRun(report, command: "demo")
        #expect((first, second) == (1, 2))
        #expect(try store.loadRun(first) == report)

        let runs = try store.runs()
        #expect(runs.map(\.id) == [1, 2])
        #expect(
            runs[0]
                == RunSummary(
                    id: 1, createdAt: "2023-11-14T22:13:20.000Z", command: "compare", fetchlabVersion: "0.1.0",
                    policies: 2, users: 2, pairs: 3, scoredLaunches: 150))
        #expect(runs[1].command == "demo" && runs[1].fetchlabVersion == nil)
    }

    @Test func metricsAreColumnsForPlainSQL() throws {
        let db = try FetchLabDatabase(writer: DatabaseQueue())
        let id = try RunStore(database: db).saveRun(Self.report(), command: "compare")
        try db.writer.read { db in
            let row = try #require(
                try Row.fetchOne(
                    db,
                    sql: """
                        SELECT name, family, params_json, scored_launches, fresh_5m, fresh_15m, fresh_60m,
                               fetches_per_app_day, gap_closed, share_of_possible, gain_vs_fixed, skipped,
                               staleness_p90_min, metrics_json
                        FROM run_policies WHERE run_id = ? AND position = 0
                        """, arguments: [id]))
            #expect(row["name"] as String == "fixed(15m)")
            #expect(row["params_json"] as String == #"{"interval_min":15}"#)
            #expect(row["scored_launches"] as Int == 100)
            #expect(abs(row["fresh_15m"] as Double - 0.2) < 1e-12)
            #expect(abs(row["fresh_60m"] as Double - 0.3) < 1e-12)
            #expect(row["skipped"] as Int == 4)
            #expect(row["gap_closed"] as Double? == nil)  // gap closed is gone: the column stays, null
            #expect(row["share_of_possible"] as Double? == 0.5)
            #expect(row["gain_vs_fixed"] as Double? == 0.05)
            #expect(row["staleness_p90_min"] as Double? == nil)
            #expect((row["metrics_json"] as String).contains(#""low_power":3"#))
            let oracleGap = try Row.fetchOne(db, sql: "SELECT share_of_possible FROM run_policy WHERE position = 1")
            #expect(oracleGap?[0] as Double? == nil)
            let apps = try Row.fetchAll(
                db, sql: "SELECT policy, app, scored_launches FROM run_policy_apps ORDER BY policy, app")
            #expect(
                apps.map { "\($0["policy"] as String) \($0["app"] as String) \($0["scored_launches"] as Int)" }
                    == ["fixed(15m) com.a 50", "fixed(15m) com.b 25"])
            #expect(try String.fetchAll(db, sql: "SELECT user FROM run_policy_users") == ["u0"])
            let run = try #require(try Row.fetchOne(db, sql: "SELECT * FROM runs"))
            #expect(run["launch_refreshes"] as String == "on" && run["policies"] as Int == 2)
            #expect(run["first_scored_day"] as String == "2024-03-08")
        }
    }

    @Test func aTauThatWasNotReportedIsNull() throws {
        var report = Self.report()
        report.settings.taus = [.minutes(30)]
        for i in report.policies.indices {
            report.policies[i].metrics.taus = [.minutes(30)]
            report.policies[i].metrics.fresh = [0.9]
        }
        let db = try FetchLabDatabase(writer: DatabaseQueue())
        try RunStore(database: db).saveRun(report, command: "compare")
        let row = try #require(
            try db.writer.read { try Row.fetchOne($0, sql: "SELECT fresh_5m, fresh_15m, metrics_json FROM run_policy") }
        )
        #expect(row[0] as Double? == nil && row[1] as Double? == nil)
        #expect((row[2] as String).contains(#""fresh_30m":0.9"#))
        #expect(try RunStore(database: db).loadRun(1) == report)
    }

    @Test func deletingARunDeletesItsRows() throws {
        let db = try FetchLabDatabase(writer: DatabaseQueue())
        let store = RunStore(database: db)
        try store.saveRun(Self.report(), command: "compare")
        let kept = try store.saveRun(Self.report(), command: "compare")
        try db.writer.write { try $0.execute(sql: "DELETE FROM run WHERE id = 1") }
        let counts = try db.writer.read { db in
            try ["run_policy", "run_policy_app", "run_policy_user"].map {
                try Int.fetchOne(db, sql: "SELECT count(DISTINCT run_id) FROM \($0)")
            }
        }
        #expect(counts == [1, 1, 1])
        #expect(try store.runs().map(\.id) == [kept])
    }

    @Test func anUnknownRunIsNotFound() throws {
        let store = RunStore(database: try FetchLabDatabase(writer: DatabaseQueue(), path: "x.sqlite"))
        #expect {
            _ = try store.loadRun(7)
        } throws: { error in
            (error as? StoreError)?.code == .notFound
                && "\(error)" == "x.sqlite: no run 7 (fetchlab runs lists the stored runs)"
        }
    }

    // MARK: A failed save leaves nothing

    func counts(_ db: FetchLabDatabase) throws -> [Int] {
        try db.writer.read { db in
            try ["run", "run_policy", "run_policy_app", "run_policy_user"].map {
                try Int.fetchOne(db, sql: "SELECT count(*) FROM \($0)") ?? -1
            }
        }
    }

    @Test func aRowThatFailsHalfwayRollsTheWholeRunBack() throws {
        // Two groups of one app: the second insert breaks the primary key after the run, its
        // policy and the first app were written.
        var report = Self.report()
        report.policies[1].perApp = [
            GroupResult(name: "com.same", metrics: Self.metrics(1)),
            GroupResult(name: "com.same", metrics: Self.metrics(2)),
        ]
        let db = try FetchLabDatabase(writer: DatabaseQueue(), path: "x.sqlite")
        let store = RunStore(database: db)
        try store.saveRun(Self.report(), command: "compare")
        let before = try counts(db)
        #expect {
            try store.saveRun(report, command: "compare")
        } throws: { error in
            let message = "\(error)"
            return message.hasPrefix("x.sqlite: ") && message.contains("UNIQUE") && message.contains("storing the run")
        }
        #expect(try counts(db) == before)
        #expect(try store.runs().count == 1)
    }

    @Test func aMetricJSONCannotHoldIsRefusedBeforeWriting() throws {
        var report = Self.report()
        report.policies[0].perUser?[0].metrics.energyJoulesPerDay = .nan
        let db = try FetchLabDatabase(writer: DatabaseQueue(), path: "x.sqlite")
        #expect {
            try RunStore(database: db).saveRun(report, command: "compare")
        } throws: { error in
            "\(error)".hasPrefix("x.sqlite: cannot store the run: ") && !"\(error)".contains("\n")
        }
        #expect(try counts(db) == [0, 0, 0, 0])
    }

    @Test func aReadOnlyDatabaseIsNotWritten() throws {
        let path = dir.path("ro.sqlite")
        _ = try FetchLabDatabase(path: path)
        let reader = try FetchLabDatabase(path: path, readOnly: true)
        #expect(throws: StoreError.self) { try RunStore(database: reader).saveRun(Self.report(), command: "compare") }
        #expect(try RunStore(database: reader).runs().isEmpty)
    }

    // MARK: Migration

    /// A database of schema v3, with an import in it, as the previous FetchLab left it.
    @Test func aV3DatabaseGainsTheRunTables() throws {
        let path = dir.path("v3.sqlite")
        do {
            let queue = try DatabaseQueue(path: path)
            try Schema.migrator.migrate(queue, upTo: Schema.v3)
            try queue.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA application_id = \(Schema.applicationID); PRAGMA user_version = 3")
            }
            try queue.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO user (id, name) VALUES (1, 'u'); INSERT INTO app (id, name) VALUES (1, 'a');
                        INSERT INTO import (id, path, content_sha256, format, bytes, decompressed_bytes, started_at)
                        VALUES (1, 'x', 'h', 'usage', 0, 0, '');
                        INSERT INTO usage_event VALUES (1, 1, 0, 0, NULL, 1);
                        """)
            }
            try queue.close()
        }
        // Read-only first (what `runs` does): no runs, and the file is completed where it may be written.
        #expect(try RunStore(database: try FetchLabDatabase(path: path, readOnly: true)).runs() == [])
        let db = try FetchLabDatabase(path: path)
        let state = try db.writer.read(SchemaState.read)
        #expect(state.verdict == .complete && state.userVersion == Schema.version)
        #expect(state.tables == Schema.tables)
        #expect(try db.writer.read { try Schema.migrator.appliedMigrations($0) }.last == Schema.v8)
        #expect(try db.writer.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM usage_events") } == 1)
        let id = try RunStore(database: db).saveRun(Self.report(), command: "compare")
        #expect(try RunStore(database: db).loadRun(id) == Self.report())
    }

    @Test func anUnstampedV3DatabaseIsStillFetchLabs() throws {
        // The tables of the migrations it applied, and only those, make a file FetchLab's.
        #expect(Schema.tables(applied: ["v1", Schema.v3]) == Schema.importTables)
        #expect(Schema.tables(applied: ["v1", Schema.v3, Schema.v4, Schema.v5, Schema.v6]) == Schema.tables)
        #expect(Schema.tables(applied: []) == [])
        let path = dir.path("unstamped-v3.sqlite")
        do {
            let queue = try DatabaseQueue(path: path)
            try Schema.migrator.migrate(queue, upTo: Schema.v3)
            try queue.writeWithoutTransaction { try $0.execute(sql: "PRAGMA application_id = 0") }
            try queue.close()
        }
        let db = try FetchLabDatabase(path: path)
        #expect(try db.writer.read(SchemaState.read).verdict == .complete)
    }
}

/// A run whose per-user rows were spooled (`compare --per-user`): stored as rows read back one at a
/// time, and loaded again as the report with every user's metrics, in the order summed.
@Suite struct SpooledRunStoreTests {
    @Test func spooledPerUserRowsAreStoredAndLoadedInOrder() throws {
        let db = try FetchLabDatabase(writer: DatabaseQueue())
        let store = RunStore(database: db)
        let held = RunStoreTests.report()
        var fixed = held.policies[0]
        // Users in an order that is not their names' order.
        let names = ["zed", "amy", "mo", "bea"]
        fixed.perUser = names.enumerated().map {
            GroupResult(name: $1, metrics: RunStoreTests.metrics(Double($0) + 0.5))
        }
        var oracle = held.policies[1]
        oracle.perUser = names.map { GroupResult(name: $0, metrics: RunStoreTests.metrics(2, share: nil)) }
        var expected = held
        expected.policies = [fixed, oracle]

        let spool = MemoryPerUserRows(policies: 2)
        for (k, name) in names.enumerated() {
            spool.add(user: name, metrics: [fixed.perUser![k].metrics, oracle.perUser![k].metrics])
        }
        try spool.finish()
        var spooled = expected
        for i in spooled.policies.indices {
            spooled.policies[i].perUser = nil
            spooled.policies[i].spooledPerUser = i
        }
        let id = try store.saveRun(spooled, command: "compare", perUser: spool)
        #expect(try store.loadRun(id) == expected)
        // The same as a run saved with the rows in memory.
        let heldID = try store.saveRun(expected, command: "compare")
        #expect(try store.loadRun(heldID) == expected)
        try db.writer.read { db in
            // The stored JSON holds no user's metrics: they are rows, in order.
            let json = try String.fetchOne(db, sql: "SELECT report_json FROM run WHERE id = ?", arguments: [id]) ?? ""
            #expect(!json.contains("zed") && json.contains("\"per_user\":[]"))
            let rows = try Row.fetchAll(
                db,
                sql:
                    "SELECT user, user_position FROM run_policy_user WHERE run_id = ? AND policy_position = 0 ORDER BY user",
                arguments: [id])
            #expect(rows.map { $0[0] as String } == names.sorted())
            #expect(rows.map { names[$0[1] as Int] } == names.sorted())
        }
    }
}

/// The list of runs holds each run's τ as a span: a stored τ no span holds (a damaged or
/// hand-edited database) is a one-line error naming the run, not a trap.
@Suite struct StoredTauTests {
    @Test func aStoredTauReadsBackAsTheSpanSaved() throws {
        let db = try FetchLabDatabase(writer: DatabaseQueue())
        let store = RunStore(database: db)
        let id = try store.saveRun(RunStoreTests.report(), command: "compare")
        #expect(try store.runs().map(\.tau) == [.minutes(15)])
        #expect(try store.runs().map(\.id) == [id])
    }

    @Test func aStoredTauNoSpanHoldsIsACorruptRun() throws {
        let db = try FetchLabDatabase(writer: DatabaseQueue())
        let store = RunStore(database: db)
        let id = try store.saveRun(RunStoreTests.report(), command: "compare")
        try db.writer.write { try $0.execute(sql: "UPDATE run SET tau_minutes = 1e300 WHERE id = ?", arguments: [id]) }
        do {
            _ = try store.runs()
            Issue.record("listed a run whose τ is 1e300 minutes")
        } catch {
            #expect(error.code == .corrupt)
            #expect(error.message.contains("run \(id): tau_minutes 1e+300 is not a span"))
            #expect(!error.message.contains("\n"))
        }
    }
}
