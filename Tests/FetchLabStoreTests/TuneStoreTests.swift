import FetchLabResults
import FetchLabSimulation
import Foundation
import GRDB
import Testing
import _FetchLabTestSupport

@testable import FetchLabStore

/// Stored tuning runs: a result in, the same result out, its figures as columns and views;
/// migration from v4; a failed save leaves nothing.
@Suite struct TuneStoreTests {
    let dir = TemporaryDirectory()

    static func result() throws -> TuningResult {
        try JSONDecoder().decode(TuningResult.self, from: Data(TuningFixture.resultJSON.utf8))
    }

    static func platform() throws -> [PlatformOutcome] {
        try JSONDecoder().decode([PlatformOutcome].self, from: Data(TuningFixture.platformJSON.utf8))
    }

    static func count(_ table: String, in db: FetchLabDatabase) throws -> Int {
        try db.writer.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM \(table)") } ?? -1
    }

    @Test func aTuningRunRoundTripsNumberedApartFromComparisons() throws {
        let db = try FetchLabDatabase(writer: DatabaseQueue())
        let store = RunStore(database: db)
        let result = try Self.result()
        let platform = try Self.platform()
        try store.saveRun(RunStoreTests.report(), command: "compare")
        let when = Date(timeIntervalSince1970: 1_700_000_000)
        let first = try store.saveTuningRun(result, platform: platform, fetchlabVersion: "0.1.0", createdAt: when)
        let second = try store.saveTuningRun(result)
        #expect((first, second) == (1, 2))
        #expect(try store.loadTuningRun(first) == StoredTuningRun(id: 1, result: result, platform: platform))
        #expect(try store.loadTuningRun(second).platform.isEmpty)
        #expect(try store.latestTuningRun()?.id == 2)
        #expect(
            try store.tuningRuns().first
                == TuningRunSummary(
                    id: 1, createdAt: "2023-11-14T22:13:20.000Z", fetchlabVersion: "0.1.0", family: "predictive",
                    method: "grid", objective: "maximize fresh@15m", settings: 5, chosen: "predictive(10m,0.3)",
                    bestFixed: nil))
        #expect(try store.runs().count == 1)
        #expect(throws: StoreError.self) { try store.loadTuningRun(3) }
    }

    @Test func figuresAreColumnsOfTheViews() throws {
        let db = try FetchLabDatabase(writer: DatabaseQueue())
        let id = try RunStore(database: db).saveTuningRun(try Self.result(), platform: try Self.platform())
        try db.writer.read { db in
            let run = try #require(try Row.fetchOne(db, sql: "SELECT * FROM tune_runs WHERE id = ?", arguments: [id]))
            #expect(run["family"] as String == "predictive" && run["method"] as String == "grid")
            #expect(run["constraints"] as String == "fetches<=2/app/day")
            #expect(run["folds"] as Int == 2 && run["settings"] as Int == 5 && run["replays"] as Int == 5)
            #expect(
                (run["split"] as String).hasPrefix("train 2024-03-08 to 2024-03-20, test 2024-03-21 to 2024-03-26; "))
            // The last fold's choice; held-out figures are means over the folds.
            #expect(run["chosen"] as String == "predictive(10m,0.3)" && run["best_fixed"] as String? == nil)
            #expect(abs(run["test_fresh_15m"] as Double - 0.62) < 1e-12)
            #expect(abs(run["test_energy_j_per_day"] as Double - 12) < 1e-12)
            #expect(run["test_scored_launches"] as Int == 700)
            // Only fold 1 has a best fixed interval.
            #expect(abs(run["best_fixed_test_fresh_15m"] as Double - 0.25) < 1e-12)
            #expect(abs(run["best_fixed_test_cellular_mb_per_day"] as Double - 0.5) < 1e-12)

            let rows = try Row.fetchAll(db, sql: "SELECT * FROM tune_settings ORDER BY fold, rank")
            #expect(
                rows.map { "\($0["fold"] as Int).\($0["rank"] as Int) \($0["name"] as String)" } == [
                    "1.1 predictive(5m,0.2)", "1.2 predictive(10m,0.3)", "1.3 predictive(10m,0.4)",
                    "2.1 predictive(10m,0.3)", "2.2 predictive(10m,0.4)",
                ])
            #expect(rows.map { $0["feasible"] as Bool } == [false, true, true, true, true])
            #expect(rows.map { $0["pareto"] as Bool } == [true, true, false, true, false])
            #expect(rows.map { $0["chosen"] as Bool } == [false, true, false, true, false])
            #expect(rows[1]["parameters"] as String == "lead=10m threshold=0.3")
            #expect(rows[1]["params_json"] as String == #"{"lead":"10m","threshold":"0.3"}"#)
            #expect(abs(rows[1]["energy_j_per_day"] as Double - 12.5) < 1e-12)
            #expect(abs(rows[0]["objective"] as Double - 0.7) < 1e-12)
            #expect(rows[0]["objective_name"] as String == "maximize fresh@15m")
            #expect(rows[0]["scored_launches"] as Int == 900)
        }
    }

    /// A result stored by another build: a field it adds (an array of groups) is ignored, an
    /// optional field it leaves out is absent.
    @Test func theStoredJSONToleratesAddedAndAbsentOptionalFields() throws {
        let db = try FetchLabDatabase(writer: DatabaseQueue())
        let store = RunStore(database: db)
        let id = try store.saveTuningRun(try Self.result())
        let stored = try #require(
            try db.writer.read {
                try String.fetchOne($0, sql: "SELECT result_json FROM tune_run WHERE id = ?", arguments: [id])
            })
        var object = try #require(try JSONSerialization.jsonObject(with: Data(stored.utf8)) as? [String: Any])
        object["groups"] = [["kind": "app", "group": "com.mail", "chosen": "predictive(5m,0.2)", "gain": 0.04]]
        var folds = try #require(object["folds"] as? [[String: Any]])
        folds[0]["bestFixed"] = nil
        folds[0]["bestFixedTrain"] = nil
        folds[0]["bestFixedTest"] = nil
        object["folds"] = folds
        let edited = String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
        try db.writer.write {
            try $0.execute(sql: "UPDATE tune_run SET result_json = ? WHERE id = ?", arguments: [edited, id])
        }
        let loaded = try store.loadTuningRun(id).result
        #expect(loaded.folds[0].bestFixed == nil && loaded.folds[0].bestFixedTest == nil)
        #expect(loaded.folds[0].tried == (try Self.result()).folds[0].tried)
        // A required field missing is one line naming it.
        try db.writer.write { try $0.execute(sql: "UPDATE tune_run SET result_json = '{\"family\":\"x\"}'") }
        #expect {
            try store.loadTuningRun(id)
        } throws: { error in
            let message = (error as? StoreError)?.description ?? ""
            return message.contains("tuning run \(id)") && message.contains("method") && !message.contains("\n")
        }
    }

    @Test func aFailedSaveLeavesTheDatabaseAsItWas() throws {
        let db = try FetchLabDatabase(writer: DatabaseQueue())
        let store = RunStore(database: db)
        try store.saveTuningRun(try Self.result())
        // Not encodable (JSON holds no NaN): nothing is written.
        var bad = try Self.result()
        bad.folds[0].tried[0].train.energyJoulesPerDay = .nan
        #expect(throws: StoreError.self) { try store.saveTuningRun(bad) }
        // The database refuses the third setting row: the run row written before it is rolled back.
        try db.writer.write {
            try $0.execute(
                sql: """
                    CREATE TRIGGER refuse BEFORE INSERT ON tune_setting WHEN NEW.rank = 3
                    BEGIN SELECT RAISE(ABORT, 'refused'); END
                    """)
        }
        #expect(throws: StoreError.self) { try store.saveTuningRun(try Self.result()) }
        #expect(try Self.count("tune_run", in: db) == 1)
        #expect(try Self.count("tune_setting", in: db) == 5)
        #expect(try store.tuningRuns().map(\.id) == [1])
    }

    @Test func aReadOnlyDatabaseIsNotWritten() throws {
        let path = dir.path("ro.sqlite")
        _ = try FetchLabDatabase(path: path)
        let reader = try FetchLabDatabase(path: path, readOnly: true)
        #expect(throws: StoreError.self) { try RunStore(database: reader).saveTuningRun(try Self.result()) }
        #expect(try RunStore(database: reader).tuningRuns().isEmpty)
        #expect(try RunStore(database: reader).latestTuningRun() == nil)
    }

    /// A database of schema v4, with a stored comparison, as the previous FetchLab left it.
    @Test func aV4DatabaseGainsTheTuningTables() throws {
        let path = dir.path("v4.sqlite")
        do {
            let queue = try DatabaseQueue(path: path)
            try Schema.migrator.migrate(queue, upTo: Schema.v4)
            try queue.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA application_id = \(Schema.applicationID); PRAGMA user_version = 4")
            }
            try queue.close()
        }
        do {
            let v4 = try FetchLabDatabase(path: path, readOnly: true)
            #expect(try RunStore(database: v4).tuningRuns() == [])
        }
        let db = try FetchLabDatabase(path: path)
        let state = try db.writer.read(SchemaState.read)
        #expect(state.verdict == .complete && state.userVersion == 8 && Schema.version == 8)
        #expect(state.tables == Schema.tables && Schema.tables.isSuperset(of: ["tune_run", "tune_setting"]))
        #expect(try db.writer.read { try Schema.migrator.appliedMigrations($0) }.last == Schema.v8)
        let store = RunStore(database: db)
        let id = try store.saveTuningRun(try Self.result())
        #expect(try store.loadTuningRun(id).result == (try Self.result()))
        #expect(Schema.tables(applied: ["v1", Schema.v3, Schema.v4]) == Schema.importTables.union(Schema.runTables))
        #expect(Schema.tables(applied: ["v1", Schema.v3, Schema.v4, Schema.v5, Schema.v6]) == Schema.tables)
    }
}
