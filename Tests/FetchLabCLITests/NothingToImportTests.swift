import Foundation
import Testing
import _FetchLabTestSupport

/// Issue 45, with the real binary: an import whose arguments name nothing to read (a path that
/// does not exist, a directory without logs, a pattern that matches nothing) is one kind of error,
/// with one exit code, and leaves no database behind.
@Suite struct NothingToImportTests {
    let dir = TemporaryDirectory()

    /// The files beside `db` that belong to it (the database, its `-checked` stamp, WAL files,
    /// temporary creations).
    func debris(of db: String) -> [String] {
        let name = (db as NSString).lastPathComponent
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: dir.url.path)) ?? []
        return entries.filter { $0.contains(name) }.sorted()
    }

    @Test func nothingToReadIsOneKindOfErrorAndCreatesNoDatabase() throws {
        let empty = dir.path("empty")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        try dir.write("empty/notes.md", "not a log\n")
        let db = dir.path("new.sqlite")
        for (argument, words) in [
            (dir.path("missing.csv"), ["missing.csv", "No such file or directory"]),
            (empty, ["empty", "directory has no log files"]),
            (dir.path("none-*.csv"), ["none-*.csv", "no file matches"]),
        ] {
            let r = try dir.fetchlab(["import", "--db", db, argument])
            expectOneLineError(r, status: 1, prefix: "fetchlab: error: ", words, context: argument)
            #expect(debris(of: db).isEmpty, "\(argument): \(debris(of: db))")
            let json = try dir.fetchlab(["import", "--db", db, "--format", "json", argument])
            #expect(json.status == 1, "\(argument): \(json.err)")
            #expect((try json.json()["errors"] as? [String])?.count == 1, "\(argument): \(json.out)")
            #expect(debris(of: db).isEmpty, "\(argument): \(debris(of: db))")
        }
        // All of them at once: one line each, a total, still no database.
        let all = try dir.fetchlab(["import", "--db", db, dir.path("missing.csv"), empty, dir.path("none-*.csv")])
        #expect(all.status == 1, "\(all.err)")
        #expect(all.err.split(separator: "\n").count == 3, "\(all.err)")
        #expect(all.out.contains("total: 0 files imported, 3 failed"), "\(all.out)")
        #expect(debris(of: db).isEmpty, "\(debris(of: db))")

        // Beside a file that imports, each is still an error of the import (exit 1), and the file is in.
        let usage = try dir.write("usage.csv", syntheticLaunchesCSV())
        let mixed = try dir.fetchlab(["import", "--db", db, empty, usage, dir.path("missing.csv")])
        #expect(mixed.status == 1, "\(mixed.err)")
        #expect(mixed.out.contains("total: 1 file imported, 2 failed"), "\(mixed.out)")
        #expect(try dir.fetchlab(["inspect", "--db", db]).status == 0)

        // Into an existing database, nothing is changed by an import with nothing to read.
        let before = try bytes(db)
        let again = try dir.fetchlab(["import", "--db", db, dir.path("missing.csv")])
        expectOneLineError(again, status: 1, ["missing.csv"])
        #expect(try bytes(db) == before)
    }
}
