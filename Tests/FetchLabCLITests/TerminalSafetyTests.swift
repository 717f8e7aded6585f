import Foundation
import GRDB
import Testing
import _FetchLabTestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What the CLI prints is safe for a terminal (control characters from logs are escaped, every
/// error is one line), inputs that are not regular files or not data are reported, and a failed
/// write to standard output is an error.
@Suite struct TerminalSafetyTests {
    let dir = TemporaryDirectory()
    var db: String { dir.path("safe.sqlite") }

    /// The control characters of `text` other than the newlines ending its lines.
    func controls(_ text: String) -> [String] {
        text.unicodeScalars.filter { $0 != "\n" && ($0.value < 0x20 || (0x7F...0x9F).contains($0.value)) }
            .map { String(format: "U+%04X", $0.value) }
    }

    static let hostileUser = "u\u{1B}]0;owned\u{07}"
    static let hostileApps = [
        "com.red\u{1B}[31m", "com.bell\u{07}", "com.nul\u{0}x", "com.two\nlines", "com.c1\u{9B}2J",
    ]

    /// Two weeks of launches of apps whose names hold ESC, BEL, NUL, a quoted newline and a C1
    /// control (NUL lines are rejected), by a user whose name holds an OSC sequence; rejects quoting
    /// control characters first.
    func hostileLog() -> String {
        var text = "timestamp,user,app\n"
        text += "\u{1B}[2Jnot a time,plain,com.x\n"
        text += "2024-03-02T10:00:00Z,plain,\n\u{07}\u{07},,\n"
        for day in 1...14 {
            for (i, app) in Self.hostileApps.enumerated() {
                let stamp = String(format: "2024-03-%02dT%02d:15:00Z", day, 7 + 2 * i)
                text += "\(stamp),\"\(Self.hostileUser)\",\"\(app)\"\n"
                text += "\(stamp.replacingOccurrences(of: ":15:", with: ":45:")),plain,\"\(app)\"\n"
            }
        }
        return text
    }

    @Test func controlCharactersFromALogAreEscapedInImportInspectAndPredict() throws {
        let file = try dir.write("hostile.csv", hostileLog())
        let imported = try dir.fetchlab(["import", "--db", db, file])
        #expect(imported.status == 0, "\(imported.err)")
        #expect(controls(imported.out + imported.err).isEmpty, "\(imported.out)\(imported.err)")
        #expect(imported.out.contains("rejected"))
        #expect(imported.out.contains("\\e[2J"), "\(imported.out)")

        let inspect = try dir.fetchlab(["inspect", "--db", db])
        #expect(inspect.status == 0, "\(inspect.err)")
        #expect(controls(inspect.out + inspect.err).isEmpty, "\(inspect.out)")
        let json = try dir.fetchlab(["inspect", "--db", db, "--format", "json"])
        let object = try json.json()
        let rows = try #require(object["launches"] as? [[String: Any]])
        #expect(rows.count >= 2 * Self.hostileApps.count - 2)
        // The table keeps one line per row: header, rows, a blank line and the footnote (then the
        // signals section, after a blank line).
        let output = inspect.out.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        let signals = output.firstIndex { $0.hasPrefix("Signals") } ?? output.endIndex
        let lines = output[..<signals].dropLast(signals == output.endIndex ? 0 : 1)
        #expect(lines.count == rows.count + 3, "\(inspect.out)")
        #expect(inspect.out.contains("com.two\\nlines"), "\(inspect.out)")
        #expect(inspect.out.contains("u\\e]0;owned\\a"), "\(inspect.out)")

        let predict = try dir.fetchlab(["predict", "--db", db, "--user", Self.hostileUser, "--at", "2024-03-15 00:00"])
        #expect(predict.status == 0, "\(predict.err)")
        #expect(controls(predict.out + predict.err).isEmpty, "\(predict.out)\(predict.err)")
        #expect(predict.out.hasPrefix("u\\e]0;owned\\a from 2024-03-15"), "\(predict.out)")
        let all = try dir.fetchlab(["predict", "--db", db])
        #expect(all.status == 0, "\(all.err)")
        #expect(controls(all.out + all.err).isEmpty)
        let unknown = try dir.fetchlab(["predict", "--db", db, "--user", "x\u{1B}[2Jy\nz"])
        #expect(unknown.status == 1)
        #expect(controls(unknown.err).isEmpty, "\(unknown.err)")
        #expect(unknown.err.split(separator: "\n").count == 1)
    }

    @Test func errorsNamingControlCharactersAreOneLine() throws {
        let file = try dir.write("bad\u{1B}[1mname.csv", "time\u{0}stamp,\u{07}who\n1,2\n")
        let r = try dir.fetchlab(["import", "--db", db, file])
        #expect(r.status == 1)
        #expect(controls(r.out + r.err).isEmpty, "\(r.err)")
        #expect(r.err.split(separator: "\n").count == 1, "\(r.err)")
        #expect(r.err.contains("bad\\e[1mname.csv"), "\(r.err)")
    }

    @Test func aForeignOrEmptyDatabaseIsAOneLineError() throws {
        let foreign = dir.path("foreign.sqlite")
        try DatabaseQueue(path: foreign).write { try $0.execute(sql: "CREATE TABLE notes (id INTEGER, body TEXT)") }
        try Data().write(to: URL(fileURLWithPath: dir.path("empty.sqlite")))
        for path in [foreign, dir.path("empty.sqlite")] {
            for command in [["inspect"], ["predict"], ["evaluate-predictors"]] {
                let r = try dir.fetchlab(command + ["--db", path])
                // A 0-byte file is what a kill during creation leaves: it becomes an empty FetchLab
                // database, which inspect shows as empty; predicting from it has nothing to go on.
                let emptyInspect = path.hasSuffix("empty.sqlite") && command == ["inspect"]
                if emptyInspect {
                    #expect(r.status == 0, "\(r.err)")
                    #expect(r.err == "no launches or context samples stored\n")
                    continue
                }
                #expect(r.status == 1, "\(command) \(path): \(r.err)")
                #expect(r.err.split(separator: "\n").count == 1, "\(command) \(path): \(r.err)")
                #expect(controls(r.err).isEmpty, "\(r.err)")
            }
        }
    }

    @Test func aFullStandardOutputIsAnError() throws {
        try dir.write("u.csv", "timestamp,user,app\n2024-03-01T12:00:00Z,u,a\n")
        #expect(try dir.fetchlab(["import", "--db", db, "u.csv"]).status == 0)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: fetchlabBinary())
        process.arguments = ["inspect", "--db", db]
        process.currentDirectoryURL = dir.url
        let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        let err = Pipe()
        process.standardOutput = full
        process.standardError = err
        try process.run()
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 74)  // EX_IOERR
        #expect(message == "fetchlab: error: standard output: write failed: No space left on device\n", "\(message)")
    }

    /// `fetchlab ARGS` through the shell with `redirections` (e.g. `>/dev/full 2>/dev/full`).
    func shell(_ arguments: [String], _ redirections: String) throws -> ProcessResult {
        let quoted = ([fetchlabBinary()] + arguments).map { "'\($0)'" }.joined(separator: " ")
        return try run("/bin/sh", ["-c", "\(quoted) \(redirections); echo \"status=$?\""], cwd: dir.url.path)
    }

    /// Output that cannot be written ends the command with exit 74 (EX_IOERR) and nothing else,
    /// never a crash: stdout and stderr full, both closed; a closed standard output is refused
    /// before the database is opened (it would take the output's file number); a reader that goes
    /// away ends it quietly.
    @Test func outputThatCannotBeWrittenEndsTheCommandWith74() throws {
        try dir.write("u.csv", syntheticLaunchesCSV())
        #expect(try dir.fetchlab(["import", "--db", db, "u.csv"]).status == 0)
        #expect(try dir.fetchlab(["compare", "--db", db, "--policies", "never,fixed(1h)"]).status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        for (arguments, redirections) in [
            (["runs", "--db", db], ">/dev/full 2>/dev/full"),
            (["runs", "--db", db], ">&- 2>&-"),
            (["runs", "--db", db], ">&-"),
            (["inspect", "--db", db], "2>&- >/dev/full"),
            (["compare", "--db", db, "--policies", "never", "--no-store"], ">/dev/full 2>&-"),
        ] {
            let r = try shell(arguments, redirections)
            #expect(r.out.hasSuffix("status=74\n"), "\(arguments) \(redirections): \(r.out) \(r.err)")
            #expect(!r.err.contains("Fatal") && !r.err.contains("Illegal instruction"), "\(r.err)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before)
        // A reader that stops after the first line: no error, no crash.
        let piped = try shell(["compare", "--db", db, "--policies", "never,fixed(1h)", "--no-store"], "| head -1")
        #expect(piped.out.hasPrefix("τ = 15 min"), "\(piped.out)")
        #expect(piped.err.isEmpty, "\(piped.err)")
    }

    @Test func aDirectoryWithAFIFOAndADanglingLinkIsImportedWithoutHanging() throws {
        let logs = dir.url.appendingPathComponent("logs")
        try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
        try Data("timestamp,user,app\n2024-03-01T12:00:00Z,u,a\n".utf8).write(to: logs.appendingPathComponent("a.csv"))
        #expect(mkfifo(logs.appendingPathComponent("pipe.csv").path, 0o600) == 0)
        try FileManager.default.createSymbolicLink(
            atPath: logs.appendingPathComponent("gone.csv").path, withDestinationPath: "/nonexistent/gone.csv")
        let r = try dir.fetchlab(["import", "--db", db, logs.path])
        #expect(r.status == 1, "\(r.err)")
        let errors = r.err.split(separator: "\n")
        #expect(errors.count == 2, "\(r.err)")
        #expect(
            errors.contains { $0.hasSuffix("pipe.csv: skipped: a FIFO (named pipe), not a regular file") }, "\(r.err)")
        #expect(
            errors.contains {
                $0.hasPrefix("fetchlab: error: ")
                    && $0.contains("gone.csv: dangling symbolic link (to /nonexistent/gone.csv)")
            }, "\(r.err)")
        #expect(r.out.contains("a.csv (usage/csv"), "\(r.out)")
        #expect(r.out.contains("total: 1 file imported, 1 failed"), "\(r.out)")
    }

    @Test func emptyStandardInputIsAnErrorAndRecordsNoImport() throws {
        let r = try dir.fetchlab(["import", "--db", db, "-"], input: Data())
        #expect(r.status == 1)
        #expect(
            r.err
                == "fetchlab: error: -: no data on standard input; nothing was imported — nothing from this file was imported\n"
                || r.err.contains("-: no data on standard input"), "\(r.err)")
        #expect(r.err.split(separator: "\n").count == 1)
        let imports = try DatabaseQueue(path: db).read { try Int.fetchOne($0, sql: "SELECT count(*) FROM import") }
        #expect(imports == 0)
    }

    @Test func unsupportedCompressionNamesTheCommandThatConvertsIt() throws {
        try dir.write(
            "u.csv.zst", Data([0x28, 0xB5, 0x2F, 0xFD, 0x24, 0x00, 0x01, 0x02] + [UInt8](repeating: 7, count: 20)))
        let r = try dir.fetchlab(["import", "--db", db, "u.csv.zst"])
        #expect(r.status == 1)
        #expect(
            r.err.hasPrefix(
                "fetchlab: error: u.csv.zst: zstd-compressed data: FetchLab reads gzip, zlib or plain text; "
                    + "decompress it first (zstd -d u.csv.zst)"), "\(r.err)")
        #expect(r.err.split(separator: "\n").count == 1)
        let utf16 = Data(
            "timestamp,user,app\n2024-03-01T12:00:00Z,u,a\n".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
        try dir.write("u16.csv", Data([0xFF, 0xFE]) + utf16)
        let text = try dir.fetchlab(["import", "--db", db, "u16.csv"])
        #expect(
            text.err.contains(
                "u16.csv: UTF-16 (little-endian) text data: FetchLab reads UTF-8; convert it first (iconv -f UTF-16"),
            "\(text.err)")
        #expect(controls(text.err).isEmpty)
    }
}
