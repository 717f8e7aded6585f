import Foundation
import Testing
import _FetchLabTestSupport

/// A run is stored or the command fails (after printing its results), and a stored run is in the
/// database file itself, not only in its write-ahead log.
@Suite struct StoreOutcomeTests {
    let dir = TemporaryDirectory()
    var db: String { dir.path("s.sqlite") }

    /// `fetchlab ARGS` as a user who may read the database but not write it.
    func readOnly(_ arguments: [String]) throws -> ProcessResult {
        if getuid() == 0 {
            // Root ignores file modes: run as nobody.
            chmod(dir.url.path, 0o755)
            chmod(db, 0o644)
            return try fetchlabAsNobody(arguments, cwd: "/")
        }
        chmod(db, 0o444)
        chmod(dir.url.path, 0o555)
        defer { chmod(dir.url.path, 0o755) }
        return try dir.fetchlab(arguments)
    }

    @Test func compareThatCannotStoreItsRunPrintsThenFails() throws {
        try dir.importUsage(into: db)
        let arguments = ["compare", "--db", db, "--policies", "never,fixed(1h)", "--format", "json"]
        let failed = try readOnly(arguments)
        #expect(failed.status == 1, "\(failed.err)")
        let report = try failed.json()
        #expect(report["run_id"] == nil)
        #expect(report["budget_curve"] != nil)
        #expect(failed.err.split(separator: "\n").count == 1, "\(failed.err)")
        #expect(failed.err.hasPrefix("fetchlab: error: run not stored: "), "\(failed.err)")
        let unstored = try readOnly(arguments + ["--no-store"])
        #expect(unstored.status == 0, "\(unstored.err)")
        #expect(unstored.err.isEmpty, "\(unstored.err)")
        let listed = try dir.fetchlab(["runs", "--db", db, "--format", "json"])
        let runs = try listed.json()
        #expect((runs["runs"] as? [Any])?.isEmpty == true)
    }

    @Test func aTuningRunIsInTheFileItself() throws {
        try dir.importUsage(into: db)
        let tuned = try dir.fetchlab(["tune", "--db", db, "--family", "fixed", "--grid", "interval=1h,4h"])
        #expect(tuned.status == 0, "\(tuned.err)")
        // A copy of the database file alone (no -wal beside it) holds the tuning run.
        let copy = dir.path("copy.sqlite")
        try FileManager.default.copyItem(atPath: db, toPath: copy)
        let listed = try dir.fetchlab(["runs", "--db", copy, "--format", "json"])
        #expect(listed.status == 0, "\(listed.err)")
        let runs = try listed.json()
        #expect((runs["tuning_runs"] as? [Any])?.count == 1, "\(listed.out)")
    }
}
