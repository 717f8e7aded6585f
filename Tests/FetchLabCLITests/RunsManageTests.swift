import Foundation
import GRDB
import Testing
import _FetchLabTestSupport

/// Issue 25, with the real binary: `runs` shows each run's settings, deletes runs and diffs two.
@Suite struct RunsManageTests {
    let dir = TemporaryDirectory()
    var db: String { dir.path("runs.sqlite") }
    static let policiesA = ["--policies", "fixed(15m),fixed(1h),oracle"]
    static let policiesB = ["--policies", "fixed(1h),oracle,never"]

    func imported() throws { try dir.importUsage(syntheticLaunchesCSV(seed: 5), into: db) }

    func compare(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let r = try dir.fetchlab(["compare", "--db", db, "--format", "json"] + arguments)
        #expect(r.status == 0, "\(r.err)", sourceLocation: sourceLocation)
    }

    @Test func theListShowsPlatformLaunchRefreshesAndTau() throws {
        try imported()
        try compare(Self.policiesA)
        try compare(Self.policiesA + ["--launch-refreshes", "off", "--tau", "30m", "--platform", "ios"])
        let text = try dir.fetchlab(["runs", "--db", db])
        #expect(text.status == 0, "\(text.err)")
        let lines = text.out.split(separator: "\n").map(String.init)
        #expect(lines[0].contains("platform") && lines[0].contains("launch refreshes") && lines[0].contains("τ"))
        #expect(lines[1].hasSuffix("15 min  on                none"), "\(lines[1])")
        #expect(lines[2].hasSuffix("30 min  off               ios"), "\(lines[2])")
        let runs = try #require(try dir.fetchlab(["runs", "--db", db, "--format", "json"]).json()["runs"] as? [[String: Any]])
        #expect(runs.map { $0["tau_minutes"] as? Double } == [15, 30])
        #expect(runs.map { $0["launch_refreshes"] as? Bool } == [true, false])
        #expect(runs.map { $0["platform"] as? String } == ["none", "ios"])
    }

    @Test func deleteRemovesTheRunsAndTheirRowsAndAnUnknownIdDeletesNothing() throws {
        try imported()
        try compare(Self.policiesA + ["--per-user"])
        try compare(Self.policiesB + ["--per-user"])
        let unknown = try dir.fetchlab(["runs", "delete", "1", "99", "--db", db])
        expectOneLineError(unknown, status: 1, prefix: "fetchlab: error: ", ["no run 99", "nothing deleted"])
        func count(_ table: String, _ id: Int) throws -> Int {
            let queue = try DatabaseQueue(path: db)
            defer { try? queue.close() }
            return try queue.read {
                try Int.fetchOne($0, sql: "SELECT count(*) FROM \(table) WHERE \(table == "run" ? "id" : "run_id") = ?", arguments: [id]) ?? -1
            }
        }
        for table in ["run", "run_policy", "run_policy_app", "run_policy_user"] { #expect(try count(table, 1) > 0) }
        let deleted = try dir.fetchlab(["runs", "delete", "1", "--db", db])
        #expect(deleted.status == 0, "\(deleted.err)")
        #expect(deleted.out == "deleted run 1 from \(db)\n")
        for table in ["run", "run_policy", "run_policy_app", "run_policy_user"] {
            #expect(try count(table, 1) == 0, "\(table)")
            #expect(try count(table, 2) > 0, "\(table)")
        }
        let runs = try #require(try dir.fetchlab(["runs", "--db", db, "--format", "json"]).json()["runs"] as? [[String: Any]])
        #expect(runs.map { $0["id"] as? Int } == [2])
    }

    @Test func diffGivesABAndTheDifferenceWithItsIntervalFromPerUserFigures() throws {
        try imported()
        try compare(Self.policiesA + ["--per-user"])
        try compare(Self.policiesB + ["--per-user"])
        let json = try dir.fetchlab(["runs", "diff", "1", "2", "--db", db, "--format", "json"])
        #expect(json.status == 0, "\(json.err)")
        let object = try json.json()
        let rows = try #require(object["policies"] as? [[String: Any]])
        #expect(rows.map { $0["name"] as? String } == ["fixed(1h)", "oracle"])
        #expect(object["only_in_a"] as? [String] == ["fixed(15m)"])
        #expect(object["only_in_b"] as? [String] == ["never"])
        #expect(object["interval_note"] is NSNull)
        for row in rows {
            let a = try #require(row["a"] as? [String: Any])
            let b = try #require(row["b"] as? [String: Any])
            let d = try #require(row["difference"] as? [String: Any])
            for key in ["fresh", "fetches_per_app_day", "energy_j_per_day"] {
                let (x, y, z) = (a[key] as? Double ?? .nan, b[key] as? Double ?? .nan, d[key] as? Double ?? .nan)
                #expect(abs((y - x) - z) < 1e-12, "\(key)")
            }
            let ci = try #require(row["fresh_difference_ci"] as? [Double])
            #expect(ci.count == 2 && ci[0] <= (d["fresh"] as? Double ?? .nan) + 1e-12)
            for key in ["fetches_difference_ci", "energy_difference_ci"] {
                let interval = try #require(row[key] as? [Double], "\(key)")
                #expect(interval.count == 2 && interval[0] <= interval[1], "\(key)")
            }
        }
        let text = try dir.fetchlab(["runs", "diff", "1", "2", "--db", db])
        #expect(text.status == 0, "\(text.err)")
        #expect(text.out.contains("95 % interval"))
        #expect(text.out.contains("only in run 1: fixed(15m)") && text.out.contains("only in run 2: never"))
    }

    @Test func diffWithoutPerUserFiguresSaysThereIsNoInterval() throws {
        try imported()
        try compare(Self.policiesA)
        try compare(Self.policiesB)
        let text = try dir.fetchlab(["runs", "diff", "1", "2", "--db", db])
        #expect(text.status == 0, "\(text.err)")
        #expect(text.out.contains("no interval: runs stored without per-user figures"))
        let rows = try #require(
            try dir.fetchlab(["runs", "diff", "1", "2", "--db", db, "--format", "json"]).json()["policies"]
                as? [[String: Any]])
        #expect(rows.allSatisfy { $0["fresh_difference_ci"] is NSNull })
        #expect(rows.allSatisfy { $0["fetches_difference_ci"] is NSNull && $0["energy_difference_ci"] is NSNull })
    }

    @Test func diffRefusesRunsOfDifferentSettingsUnlessForced() throws {
        try imported()
        try compare(Self.policiesA)
        try compare(Self.policiesA + ["--tau", "30m", "--launch-refreshes", "off"])
        let refused = try dir.fetchlab(["runs", "diff", "1", "2", "--db", db])
        expectOneLineError(refused, status: 1, ["τ 15 min vs 30 min", "launch refreshes on vs off", "--force"])
        #expect(refused.out.isEmpty)
        let forced = try dir.fetchlab(["runs", "diff", "1", "2", "--db", db, "--force"])
        #expect(forced.status == 0)
        #expect(forced.err.hasPrefix("fetchlab: warning: runs 1 and 2 differ in τ 15 min vs 30 min"))
        #expect(forced.out.contains("oracle"))
        let missing = try dir.fetchlab(["runs", "diff", "1", "9", "--db", db])
        expectOneLineError(missing, status: 1, ["no run 9"])
    }
}
