import Foundation
import Testing
import _FetchLabTestSupport

/// An output path never lands on the database a command reads (nor its -wal, -shm, -journal files,
/// a hard or symbolic link to it) or on an input: one line, exit 64, the database byte for byte as
/// it was.
@Suite struct OutputGuardTests {
    let dir = TemporaryDirectory()
    var db: String { dir.path("a.sqlite") }

    func imported() throws {
        try dir.importUsage(into: db)
        #expect(try dir.fetchlab(["compare", "--db", db, "--policies", "never,fixed(1h)"]).status == 0)
    }

    func expectRefused(_ arguments: [String], naming output: String, cwd: String? = nil) throws {
        let before = try bytes(db)
        let r = try dir.fetchlab(arguments, cwd: cwd)
        expectOneLineError(r, status: 64, ["--output \(output): is ", "would destroy it"], context: "\(arguments)")
        #expect(try bytes(db) == before, "\(arguments)")
    }

    @Test func noCommandWritesItsOutputOverTheDatabase() throws {
        try imported()
        try expectRefused(["report", "--db", db, "--output", db], naming: db)
        try expectRefused(
            ["compare", "--db", "a.sqlite", "--output", "./a.sqlite", "--policies", "never"], naming: "./a.sqlite")
        try FileManager.default.createDirectory(atPath: dir.path("sub"), withIntermediateDirectories: true)
        let around = dir.path("sub/../a.sqlite")
        try expectRefused(["tune", "--db", db, "--family", "fixed", "--output", around], naming: around)
        try expectRefused(["runs", "show", "1", "--db", db, "--output", db + "-wal"], naming: db + "-wal")
        try expectRefused(["runs", "show-tune", "1", "--db", db, "--output", db + "-journal"], naming: db + "-journal")
        // A hard link and a symbolic link to the database are the database.
        let hard = dir.path("hard.html")
        #expect(link(db, hard) == 0)
        try expectRefused(["report", "--db", db, "--output", hard], naming: hard)
        let soft = dir.path("soft.html")
        #expect(symlink(db, soft) == 0)
        try expectRefused(["compare", "--db", db, "--output", soft, "--format", "html"], naming: soft)
        // Any other file is written.
        let ok = try dir.fetchlab(["report", "--db", db, "--output", dir.path("report.html")])
        #expect(ok.status == 0, "\(ok.err)")
        #expect(FileManager.default.fileExists(atPath: dir.path("report.html")))
    }

    @Test func theDemoWritesOverNoSampleFileAndNoDatabase() throws {
        let root = packageRoot().path
        let sample = "Datasets/sample/usage.csv.gz"
        let before = try bytes(root + "/" + sample)
        let r = try dir.fetchlab(["demo", "--db", dir.path("d.sqlite"), "--output", sample], cwd: root)
        #expect(r.status == 64, "\(r.err)")
        #expect(r.err.contains("is a sample file"), "\(r.err)")
        #expect(try bytes(root + "/" + sample) == before)
        // Its report goes next to the database: a database named report.html is refused.
        let html = try dir.fetchlab(["demo", "--db", dir.path("report.html")], cwd: root)
        #expect(html.status == 64, "\(html.err)")
        #expect(html.err.contains("report.html next to the database"), "\(html.err)")
        #expect(!FileManager.default.fileExists(atPath: dir.path("report.html")))
    }
}
