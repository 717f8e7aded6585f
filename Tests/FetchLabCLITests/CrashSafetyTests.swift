import FetchLabCore
import Foundation
import GRDB
import Testing
import _FetchLabTestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `fetchlab import` killed with SIGKILL at random moments never corrupts the database, never
/// leaves half a file, and a re-run ends with exactly what an uninterrupted import stores.
@Suite(.serialized) struct CrashSafetyTests {
    let dir = TemporaryDirectory()

    struct Counts: Equatable, CustomStringConvertible {
        var events: Int
        var imports: Int
        var rejects: Int
        var description: String { "\(events) events, \(imports) imports, \(rejects) rejects" }
    }

    func counts(_ path: String) throws -> Counts {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            // Killed after SQLite created the file but before the schema was committed: nothing stored.
            guard try db.tableExists("usage_event") else { return Counts(events: 0, imports: 0, rejects: 0) }
            return Counts(
                events: try Int.fetchOne(db, sql: "SELECT count(*) FROM usage_event") ?? -1,
                imports: try Int.fetchOne(db, sql: "SELECT count(*) FROM import") ?? -1,
                rejects: try Int.fetchOne(db, sql: "SELECT count(*) FROM rejected_row") ?? -1)
        }
    }

    func integrity(_ path: String) throws -> String {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { try String.fetchOne($0, sql: "PRAGMA integrity_check") ?? "" }
    }

    /// What a kill may leave at a new database's path: nothing, or a whole database — FetchLab's
    /// schema committed (its application id and the schema version stamped), no hot journal.
    func expectNothingOrWhole(_ path: String, _ context: String) throws {
        guard FileManager.default.fileExists(atPath: path) else {
            #expect(
                !FileManager.default.fileExists(atPath: path + "-journal"), "\(context): a journal without its database"
            )
            return
        }
        #expect(!FileManager.default.fileExists(atPath: path + "-journal"), "\(context): a hot journal was left")
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        defer { try? queue.close() }
        let (applicationID, version) = try queue.read { db in
            (
                try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0,
                try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
            )
        }
        #expect(applicationID == 0x464C_4142, "\(context): a database without FetchLab's stamp was left")
        #expect(version > 0, "\(context): a database without its schema was left")
    }

    /// The temporary files of creations in `dir` (`.NAME.creating-PID-RANDOM`).
    func creations() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir.path("")).filter { $0.contains(".creating-") }
    }

    /// Two gzip'd logs with some bad rows, big enough that an import takes a while.
    func logs() throws -> [String] {
        var paths: [String] = []
        for (k, rows) in [(0, 120_000), (1, 60_000)] {
            var text = "timestamp,user,app,event\n"
            text.reserveCapacity(rows * 48)
            var draws = SeededDraws(seed: 0x1234_5678 &+ UInt64(k))
            for i in 0..<rows {
                let x = draws.next()
                if i % 10_007 == 5 {
                    text += "not a time,u1,com.app,launch\n"
                    continue
                }
                text += "\(1_709_294_400 + i * 3 + k),u\(Int(x >> 40) % 300),com.app\(Int(x >> 52) % 40),launch\n"
            }
            paths.append(try dir.writeGzip("log\(k).csv.gz", text))
        }
        return paths
    }

    @Test func killedImportsLeaveTheDatabaseWholeAndRerunsCountExactlyOnce() throws {
        let files = try logs()
        let reference = dir.path("reference.sqlite")
        let done = try dir.fetchlab(["import", "--db", reference] + files)
        #expect(done.status == 0, "\(done.err)")
        let expected = try counts(reference)
        #expect(expected.events > 150_000 && expected.imports == 2 && expected.rejects > 10)

        // How long an uninterrupted import takes, to spread the kills over it.
        let timing = dir.path("timing.sqlite")
        let clock = ContinuousClock()
        let started = clock.now
        _ = try dir.fetchlab(["import", "--db", timing] + files)
        let d = clock.now - started
        let measured = max(0.05, Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18)

        var rng = SplitMix64(seed: 20_261_123)
        var killedWhileRunning = 0
        // Rounds until 20 imports have been killed while running (an import that wins the race
        // and finishes is checked all the same); the delays shrink when imports run faster.
        var round = 0
        var span = measured
        while killedWhileRunning < 20 && round < 60 {
            defer { round += 1 }
            // A fresh database each round, killed at a random moment of its import.
            let db = dir.path("killed-\(round).sqlite")
            let process = Process()
            process.executableURL = URL(fileURLWithPath: fetchlabBinary())
            process.arguments = ["import", "--db", db] + files
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            // Every third round kills in the first milliseconds, while the database is created.
            let delay =
                round % 3 == 0
                ? Double(rng.next() % 30) / 1000 : Double(rng.next() % 1000) / 1000 * span * 0.9
            usleep(UInt32(delay * 1_000_000))
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                killedWhileRunning += 1
            } else {
                span *= 0.8
            }
            process.waitUntilExit()
            guard FileManager.default.fileExists(atPath: db) else { continue }  // killed before creating it
            #expect(try integrity(db) == "ok", "round \(round)")
            // Every command works on what the kill left (a database killed while being created
            // is recognised as FetchLab's and completed).
            let inspect = try dir.fetchlab(["inspect", "--db", db])
            #expect(inspect.status == 0, "round \(round): \(inspect.err)")
            // All of a file or none of it: 0 events, the first file's, or both files'.
            let now = try counts(db)
            let firstFile = expected.events - 60_000 + 6
            #expect([0, firstFile, expected.events].contains(now.events), "round \(round): \(now)")
            // Re-running finishes the job: exactly the uninterrupted import's rows, nothing doubled.
            let again = try dir.fetchlab(["import", "--db", db] + files)
            #expect(again.status == 0, "round \(round): \(again.err)")
            #expect(try counts(db) == expected, "round \(round)")
            #expect(try integrity(db) == "ok", "round \(round)")
        }
        #expect(killedWhileRunning == 20)
    }

    /// Runs the binary with extra environment variables.
    func runKilled(_ arguments: [String], environment: [String: String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: fetchlabBinary())
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationReason == .uncaughtSignal ? -process.terminationStatus : process.terminationStatus
    }

    /// Killed (SIGKILL) 0–40 ms after start, 40 times, each time creating a new database (seeded
    /// delays; whatever the moment — before the file exists, in its first transaction with a hot
    /// rollback journal, during the import, after it — the next import and inspect work on what was
    /// left and store exactly what an uninterrupted import does). A hot journal used to brick the
    /// file: every later command opened it read-only first, so nothing could roll the journal back.
    @Test func killedInTheFirstMillisecondsOfANewDatabase() throws {
        let file = try dir.writeGzip(
            "early.csv.gz", "timestamp,user,app\n2024-03-01T12:00:00Z,u1,com.a\nbad,u1,com.a\n")
        var draws = SeededDraws(seed: 23)
        for round in 0..<40 {
            let seed = draws.next()
            let delay = UInt32((seed >> 33) % 40_000)
            let db = dir.path("early-\(round).sqlite")
            let process = Process()
            process.executableURL = URL(fileURLWithPath: fetchlabBinary())
            process.arguments = ["import", "--db", db, file]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            usleep(delay)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            // Every legal outcome: killed anywhere, or done before the kill. A new database
            // appears whole or not at all.
            try expectNothingOrWhole(db, "round \(round) (\(delay) µs)")
            let inspect = try dir.fetchlab(["inspect", "--db", db])
            #expect(
                inspect.status == 0 || !FileManager.default.fileExists(atPath: db)
                    || !inspect.err.contains("readonly"), "round \(round) (\(delay) µs): \(inspect.err)")
            let again = try dir.fetchlab(["import", "--db", db, file])
            #expect(again.status == 0, "round \(round) (\(delay) µs): \(again.err)")
            #expect(try counts(db) == Counts(events: 1, imports: 1, rejects: 1), "round \(round)")
            #expect(try integrity(db) == "ok", "round \(round)")
            let after = try dir.fetchlab(["inspect", "--db", db])
            #expect(after.status == 0, "round \(round): \(after.err)")
            // The killed creation's temporary files are removed by the next one.
            let left = try creations()
            #expect(left.isEmpty, "round \(round): \(left)")
        }
    }

    /// A writer killed inside its first transaction, in rollback-journal mode, with pages already
    /// written to the file (what an import killed while creating the database can leave: a 4 KB
    /// file and a hot journal), made deterministically by SQLite itself in a child process. Every
    /// command used to refuse it ("attempt to write a readonly database") until someone opened it
    /// with sqlite3; now the journal is rolled back and the file is a new database.
    @Test func aHotJournalLeftByAKilledWriterIsRolledBack() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") else { return }
        let db = dir.path("hot.sqlite")
        let killed = try run(
            "/usr/bin/python3",
            [
                "-c",
                """
                import sqlite3, os, sys
                c = sqlite3.connect(sys.argv[1], isolation_level=None)
                c.execute('PRAGMA cache_size=1')
                c.execute('BEGIN')
                c.execute('CREATE TABLE t(x)')
                for i in range(50): c.execute('INSERT INTO t VALUES (zeroblob(8000))')
                os._exit(9)
                """, db,
            ])
        #expect(killed.status == 9)
        let journal = (try FileManager.default.attributesOfItem(atPath: db + "-journal"))[.size] as? NSNumber
        #expect((journal?.intValue ?? 0) > 0, "no hot journal was left")
        let inspect = try dir.fetchlab(["inspect", "--db", db])
        #expect(inspect.status == 0, "\(inspect.err)")
        #expect(!inspect.err.contains("readonly"), "\(inspect.err)")
        let file = try dir.writeGzip("hot.csv.gz", "timestamp,user,app\n2024-03-01T12:00:00Z,u1,com.a\nbad,u1,com.a\n")
        let imported = try dir.fetchlab(["import", "--db", db, file])
        #expect(imported.status == 0, "\(imported.err)")
        #expect(try counts(db) == Counts(events: 1, imports: 1, rejects: 1))
        #expect(try integrity(db) == "ok")
    }

    /// Killed (SIGKILL) at each step of creating a new database, through the binary's hidden
    /// test hook: whatever was left, every command works on it, and a re-run stores exactly what
    /// an uninterrupted import does.
    @Test func killedWhileCreatingTheDatabaseAtEveryStep() throws {
        let file = try dir.writeGzip(
            "small.csv.gz", "timestamp,user,app\n2024-03-01T12:00:00Z,u1,com.a\nbad,u1,com.a\n")
        for step in ["migrating", "created", "opening", "wal", "migrated"] {
            let db = dir.path("created-\(step).sqlite")
            let status = try runKilled(["import", "--db", db, file], environment: ["FETCHLAB_TEST_KILL_AT": step])
            #expect(status == -SIGKILL, "\(step): the hook did not kill the import")
            try expectNothingOrWhole(db, step)
            if ["migrating", "created"].contains(step) {
                // Killed before the new database was linked into place: nothing there yet.
                #expect(!FileManager.default.fileExists(atPath: db), "\(step)")
                #expect(try !creations().isEmpty, "\(step): the killed creation left no temporary file")
            }
            if FileManager.default.fileExists(atPath: db) {
                #expect(try integrity(db) == "ok", "\(step)")
                #expect(try counts(db) == Counts(events: 0, imports: 0, rejects: 0), "\(step)")
                let inspect = try dir.fetchlab(["inspect", "--db", db])
                #expect(inspect.status == 0, "\(step): \(inspect.err)")
            }
            let again = try dir.fetchlab(["import", "--db", db, file])
            #expect(again.status == 0, "\(step): \(again.err)")
            #expect(try counts(db) == Counts(events: 1, imports: 1, rejects: 1), "\(step)")
            #expect(try integrity(db) == "ok", "\(step)")
            let left = try creations()
            #expect(left.isEmpty, "\(step): \(left)")
        }
    }
}

/// What opening refuses or waits for, through the binary: one line on stderr naming the database,
/// exit 1 (64 for an impossible option value); nothing written.
@Suite(.serialized) struct OpenFailureTests {
    let dir = TemporaryDirectory()

    func seeded(_ name: String, rows: Int = 10) throws -> String {
        let db = dir.path(name)
        var text = "timestamp,user,app\n"
        for i in 0..<rows { text += "\(1_709_294_400 + i),u\(i % 7),com.app\(i % 5)\n" }
        let result = try dir.fetchlab(["import", "--db", db, try dir.write("\(name).csv", text)])
        #expect(result.status == 0, "\(result.err)")
        return db
    }

    /// A pipe or device named as the database is refused in one line (SQLite said "disk I/O error",
    /// or waited on a pipe for a writer), and left as it is.
    @Test func aPipeOrDeviceIsNotADatabase() throws {
        let fifo = dir.path("pipe")
        #expect(mkfifo(fifo, 0o644) == 0)
        let file = try dir.write("u.csv", "timestamp,user,app\n2024-03-02T12:00:00Z,u1,com.a\n")
        for (path, arguments) in [(fifo, ["inspect"]), (fifo, ["import", file]), ("/dev/zero", ["describe"])] {
            let result = try dir.fetchlab([arguments[0], "--db", path] + arguments.dropFirst())
            expectOneLineError(result, prefix: "fetchlab: error: \(path): ", ["not a regular file"])
        }
        var info = stat()
        #expect(stat(fifo, &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO)
    }

    @Test func aNewerFetchLabsDatabaseIsRefused() throws {
        let db = try seeded("newer.sqlite")
        let queue = try DatabaseQueue(path: db)
        try queue.write { try $0.execute(sql: "INSERT INTO grdb_migrations VALUES ('v10: from the future')") }
        try queue.close()
        let before = try bytes(db)
        let file = try dir.write("more.csv", "timestamp,user,app\n2024-03-02T12:00:00Z,u1,com.a\n")
        expectOneLineError(
            try dir.fetchlab(["import", "--db", db, file]), prefix: "fetchlab: error: \(db): ",
            ["newer FetchLab", "schema version 9", "up to 8"])
        expectOneLineError(
            try dir.fetchlab(["inspect", "--db", db]), prefix: "fetchlab: error: \(db): ",
            ["newer FetchLab", "schema version 9"])
        #expect(try bytes(db) == before)
    }

    @Test func aDamagedDatabaseIsRefusedByImport() throws {
        let db = try seeded("damaged.sqlite", rows: 30_000)
        let pageSize = 4096
        let handle = try #require(FileHandle(forUpdatingAtPath: db))
        let pages = Int(try handle.seekToEnd()) / pageSize
        #expect(pages > 20)
        var rng = SplitMix64(seed: 3)
        // Garbage over pages in the middle (the header page and the first pages, where the schema's
        // root pages are, intact).
        for page in (pages / 2)..<(pages / 2 + 4) {
            try handle.seek(toOffset: UInt64((page - 1) * pageSize))
            handle.write(Data((0..<pageSize).map { _ in UInt8(truncatingIfNeeded: rng.next()) }))
        }
        try handle.close()
        let before = try bytes(db)
        let file = try dir.write("more.csv", "timestamp,user,app\n2024-03-02T12:00:00Z,u1,com.a\n")
        expectOneLineError(
            try dir.fetchlab(["import", "--db", db, file]), prefix: "fetchlab: error: \(db): ", ["damaged", ".recover"])
        #expect(try bytes(db) == before)
    }

    @Test func anImpossibleBusyTimeoutIsAUsageError() throws {
        for value in ["nan", "1e300", "=-5", "inf", "86401", "ten"] {
            let db = dir.path("never.sqlite")
            let file = try dir.write("u.csv", "timestamp,user,app\n2024-03-02T12:00:00Z,u1,com.a\n")
            let option = value.hasPrefix("=") ? ["--busy-timeout\(value)"] : ["--busy-timeout", value]
            let result = try dir.fetchlab(["import", "--db", db] + option + [file])
            #expect(result.status == 64, "\(value): \(result.err)")
            #expect(result.err.split(separator: "\n").count == 1, "\(value): \(result.err)")
            #expect(result.err.contains("--busy-timeout") && !result.err.contains("Fatal"), "\(value): \(result.err)")
            #expect(!FileManager.default.fileExists(atPath: db), "\(value)")
        }
    }

    @Test func aNewDatabaseThatCannotBeWrittenLeavesNoFileBehind() throws {
        let db = dir.path("unwritable.sqlite")
        let file = try dir.write("u.csv", "timestamp,user,app\n2024-03-02T12:00:00Z,u1,com.a\n")
        // No file may grow past 0 bytes: SQLite creates the database file, then cannot write it.
        let result = try run(
            "/bin/sh",
            ["-c", "trap '' XFSZ; ulimit -f 0; exec \"$0\" import --db \"$1\" \"$2\"", fetchlabBinary(), db, file])
        expectOneLineError(result, prefix: "fetchlab: error: \(db): ", [])
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.url.path).filter {
            $0.hasPrefix("unwritable")
        }
        #expect(left.isEmpty, "\(left)")
    }

    @Test func aBusyTimeoutThatExpiresIsOneLineAndStillJSON() throws {
        let db = try seeded("locked.sqlite")
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true
        let holder = try DatabaseQueue(path: db, configuration: configuration)
        try holder.writeWithoutTransaction { try $0.execute(sql: "BEGIN IMMEDIATE") }
        defer { try? holder.writeWithoutTransaction { try $0.execute(sql: "ROLLBACK") } }
        let file = try dir.write("more.csv", "timestamp,user,app\n2024-03-02T12:00:00Z,u1,com.a\n")
        for format in ["text", "json"] {
            let result = try dir.fetchlab(["import", "--db", db, "--busy-timeout", "0.2", "--format", format, file])
            expectOneLineError(result, prefix: "fetchlab: error: \(db): ", ["locked", "0.2 s", "--busy-timeout"])
            if format == "json" {
                let object = try result.json()
                let errors = try #require(object["errors"] as? [String])
                #expect(errors.count == 1 && errors[0].contains("0.2 s"), "\(errors)")
            }
        }
    }

    /// Runs the binary as an unprivileged user (root ignores file modes), or as is when not root.
    func runUnprivileged(_ arguments: [String]) throws -> ProcessResult {
        if getuid() == 0 {
            return try fetchlabAsNobody(arguments)
        }
        return try dir.fetchlab(arguments)
    }

    @Test func inspectReadsADatabaseInAReadOnlyDirectory() throws {
        let sub = dir.path("readonly")
        try FileManager.default.createDirectory(atPath: sub, withIntermediateDirectories: true)
        let db = sub + "/store.sqlite"
        let file = try dir.write("u.csv", "timestamp,user,app\n2024-03-02T12:00:00Z,u1,com.a\n")
        #expect(try dir.fetchlab(["import", "--db", db, file]).status == 0)
        // A database whose last writer was killed after a commit: its WAL holds that commit
        // (a writer that exits without closing, so nothing checkpoints the log).
        let unfinished = sub + "/unfinished.sqlite"
        #expect(try dir.fetchlab(["import", "--db", unfinished, file]).status == 0)
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") else { return }
        let killed = try run(
            "/usr/bin/python3",
            [
                "-c",
                """
                import sqlite3, os, sys
                c = sqlite3.connect(sys.argv[1], isolation_level=None)
                c.execute("INSERT INTO app(name) VALUES ('com.committed')")
                os._exit(9)
                """, unfinished,
            ])
        #expect(killed.status == 9)
        chmod(dir.url.path, 0o755)
        for path in try FileManager.default.contentsOfDirectory(atPath: sub) { chmod(sub + "/" + path, 0o644) }
        chmod(sub, 0o555)
        defer { chmod(sub, 0o755) }
        let before = try bytes(db)
        let listing = try FileManager.default.contentsOfDirectory(atPath: sub).sorted()

        let inspect = try runUnprivileged(["inspect", "--db", db])
        #expect(inspect.status == 0, "\(inspect.err)")
        #expect(inspect.out.contains("u1"), "\(inspect.out)")
        #expect(try bytes(db) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: sub).sorted() == listing)

        let walBytes = (try? FileManager.default.attributesOfItem(atPath: unfinished + "-wal"))?[.size] as? NSNumber
        #expect((walBytes?.intValue ?? 0) > 0)
        // With the WAL's shared-memory file there, SQLite reads the WAL without writing.
        let throughWAL = try runUnprivileged(["inspect", "--db", unfinished])
        #expect(throughWAL.status == 0, "\(throughWAL.err)")
        // Without it (and no way to create it), the WAL's commits cannot be read: a clear error.
        if getuid() == 0 {
            try FileManager.default.removeItem(atPath: unfinished + "-shm")
            let refused = try runUnprivileged(["inspect", "--db", unfinished])
            #expect(refused.status == 1, "\(refused.err)")
            #expect(refused.err.split(separator: "\n").count == 1, "\(refused.err)")
            #expect(refused.err.contains("read-only") && refused.err.contains("-wal"), "\(refused.err)")
        }
    }
}
