import Foundation
import Testing
import _FetchLabTestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Issue 45, with the real binary: one output rule for every file FetchLab writes (`--output`,
/// `--partial` of compare and of tune's shards, the HTML report): an existing file replaced only
/// with `--force`, a device written into in place with its errors reported, the database and its
/// companions (and links to them) refused; inputs checked before outputs.
@Suite struct OutputRuleTests {
    let dir = TemporaryDirectory()
    var db: String { dir.path("o.sqlite") }

    /// Every command that writes a partial, with the partial's path at the end.
    func partialWriters(_ path: String) -> [[String]] {
        [
            [
                "compare", "--db", db, "--policies", "oracle,fixed(1h)", "--no-store", "--format", "json",
                "--no-platform-lines", "--shard", "1/2", "--partial", path,
            ],
            [
                "tune", "--db", db, "--family", "fixed", "--grid", "interval=1h,4h", "--folds", "1", "--shard", "1/2",
                "--partial", path,
            ],
        ]
    }

    static func isCharacterDevice(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFCHR
    }

    static func isSymbolicLink(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK
    }

    @Test func aPartialReplacesAFileOnlyWithForceAndNeverTheDatabase() throws {
        try dir.importUsage(syntheticLaunchesCSV(users: 4, days: 21, seed: 5), into: db)
        let database = try bytes(db)
        let text = try dir.write("notes.txt", "keep me\n")
        let link = dir.path("link.sqlite")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: db)
        let linkToStamp = dir.path("stamp-link")
        try FileManager.default.createSymbolicLink(atPath: linkToStamp, withDestinationPath: db + "-checked")
        #expect(FileManager.default.fileExists(atPath: db + "-checked"), "the database's check stamp")
        let stamp = try bytes(db + "-checked")
        for command in partialWriters("X") {
            let name = command[0]
            func with(_ path: String) -> [String] { command.dropLast() + [path] }
            // An existing file is refused without --force, and kept.
            try dir.expectUsageError(with(text), ["--partial \(text)", "--force"])
            #expect(try String(contentsOfFile: text, encoding: .utf8) == "keep me\n", "\(name)")
            // The database through a link, its -checked stamp, a link to the stamp: refused even with --force.
            for (path, words) in [
                (link, ["is the database"]), (db + "-checked", ["the checked file of the database"]),
                (linkToStamp, ["the checked file of the database"]), (db + "-wal", ["the wal file of the database"]),
            ] {
                try dir.expectUsageError(with(path) + ["--force"], ["--partial \(path)"] + words)
            }
            #expect(Self.isSymbolicLink(link), "\(name): the link stays a link")
            #expect(try bytes(db) == database, "\(name): the database is untouched")
            #expect(try bytes(db + "-checked") == stamp, "\(name): the stamp is untouched")
            // With --force the file is replaced by the partial (gzip'd).
            let forced = try dir.fetchlab(with(text) + ["--force"])
            #expect(forced.status == 0, "\(name): \(forced.err)")
            #expect(try bytes(text).prefix(2) == Data([0x1f, 0x8b]), "\(name): the partial replaced the file")
            _ = try dir.write("notes.txt", "keep me\n")
        }
    }

    @Test func aDeviceIsWrittenIntoInPlaceAndItsErrorsAreReported() throws {
        try dir.importUsage(syntheticLaunchesCSV(users: 4, days: 21, seed: 5), into: db)
        for command in partialWriters("X") {
            let name = command[0]
            func with(_ path: String) -> [String] { command.dropLast() + [path] }
            // /dev/null: written into, still a device afterwards.
            let null = try dir.fetchlab(with("/dev/null"))
            #expect(null.status == 0, "\(name): \(null.err)")
            #expect(Self.isCharacterDevice("/dev/null"))
            // /dev/full: the write fails, said in one line, exit 1; the device is not replaced.
            let full = try dir.fetchlab(with("/dev/full"))
            expectOneLineError(full, status: 1, ["/dev/full", "No space left on device"], context: name)
            #expect(!full.err.contains("written to"), "\(name): \(full.err)")
            #expect(Self.isCharacterDevice("/dev/full"), "\(name): /dev/full stays a device")
        }
        // --output to /dev/full fails the same way (compare, report).
        let compare = try dir.fetchlab(
            ["compare", "--db", db, "--policies", "oracle", "--no-store", "--output", "/dev/full"])
        expectOneLineError(compare, status: 1, ["/dev/full", "No space left on device"])
    }

    @Test func aNamedPipeIsWrittenIntoInPlace() throws {
        try dir.importUsage(syntheticLaunchesCSV(users: 4, days: 21, seed: 5), into: db)
        let fifo = dir.path("pipe")
        #expect(mkfifo(fifo, 0o600) == 0)
        // A reader on the pipe, as a shell's `cat pipe` would be.
        nonisolated(unsafe) var read = Data()
        let done = DispatchSemaphore(value: 0)
        Thread {
            if let handle = FileHandle(forReadingAtPath: fifo) { read = handle.readDataToEndOfFile() }
            done.signal()
        }.start()
        let r = try dir.fetchlab(
            ["compare", "--db", db, "--policies", "oracle", "--no-store", "--format", "json", "--output", fifo])
        #expect(r.status == 0, "\(r.err)")
        done.wait()
        #expect(String(decoding: read, as: UTF8.self).contains("\"policies\""), "the report went through the pipe")
        var info = stat()
        #expect(lstat(fifo, &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO, "the pipe stays a pipe")
    }

    @Test func theInputsAreCheckedBeforeTheOutput() throws {
        // A report.html from an earlier run is there; the database has no run: that is the error.
        _ = try dir.write("report.html", "<html>earlier</html>")
        try dir.importUsage(syntheticLaunchesCSV(users: 2, days: 14, seed: 5), into: db)
        let noRun = try dir.fetchlab(["report", "--db", db])
        expectOneLineError(noRun, status: 1, ["no stored run"])
        let noRunAsked = try dir.fetchlab(["report", "--db", db, "--run", "7"])
        #expect(noRunAsked.status != 0 && !noRunAsked.err.contains("--force"), "\(noRunAsked.err)")
        let missing = try dir.fetchlab(["report", "--db", dir.path("missing.sqlite")])
        #expect(missing.status == 1 && !missing.err.contains("--force"), "\(missing.err)")
        #expect(try String(contentsOfFile: dir.path("report.html"), encoding: .utf8) == "<html>earlier</html>")
        // With a run, the existing report is refused without --force, replaced with it.
        #expect(try dir.fetchlab(["compare", "--db", db, "--policies", "oracle"]).status == 0)
        try dir.expectUsageError(["report", "--db", db], ["--output report.html", "--force"])
        #expect(try dir.fetchlab(["report", "--db", db, "--force"]).status == 0)
        #expect(try String(contentsOfFile: dir.path("report.html"), encoding: .utf8).contains("<!DOCTYPE html>"))
    }
}
