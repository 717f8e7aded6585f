import _FetchLabTestSupport
import FetchLabCore
import FetchLabIngest
import FetchLabResults
@testable import FetchLabStore
import Foundation
import GRDB
import Synchronization
import Testing

/// Opening a database: files left empty or half-created are completed, concurrent opens of a new
/// file all succeed, newer and damaged databases are refused, lock waits are reported.
@Suite struct DatabaseSafetyTests {
    let dir = TemporaryDirectory()

    func usage(_ rows: Int, seed: Int = 0, users: Int = 50) -> String {
        var text = "timestamp,user,app\n"
        for i in 0..<rows { text += "\(1_709_294_400 + i * 3 + seed),u\((i + seed) % users),com.app\(i % 17)\n" }
        return text
    }

    func applicationID(_ path: String) throws -> Int32 {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { try Int32.fetchOne($0, sql: "PRAGMA application_id") ?? 0 }
    }

    /// Opens, imports a small file, and checks that the schema is complete and stamped.
    func expectUsable(_ path: String, readOnlyFirst: Bool = false) throws {
        if readOnlyFirst {
            let reader = try FetchLabDatabase(path: path, readOnly: true)
            #expect(try UsageQueries(database: reader).appUsage().isEmpty)
        }
        let db = try FetchLabDatabase(path: path)
        let file = try dir.write("one-\(UUID().uuidString).csv", "timestamp,user,app\n2024-03-01T12:00:00Z,u,a\n")
        #expect(try Importer(database: db).importFile(file).inserted.usageEvents == 1)
        let state = try db.writer.read(SchemaState.read)
        #expect(state.verdict == .complete)
        #expect(state.applicationID == Schema.applicationID && state.userVersion == Schema.version)
        #expect(state.tables == Schema.tables)
    }

    // MARK: Item 1: empty and half-created databases

    @Test func anEmptyFileBecomesADatabase() throws {
        let path = try dir.write("empty.sqlite", Data())
        try expectUsable(path)
    }

    @Test func aFileWithOnlyTheMigrationsTableIsCompleted() throws {
        // What a process killed in its first milliseconds left: GRDB's table, application id 0.
        let path = dir.path("half.sqlite")
        do {
            let queue = try DatabaseQueue(path: path)
            try queue.write {
                try $0.execute(sql: "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
            }
            try queue.close()
        }
        try expectUsable(path)
    }

    @Test func aHalfCreatedFileIsCompletedEvenByAReadOnlyOpen() throws {
        let path = dir.path("half-ro.sqlite")
        do {
            let queue = try DatabaseQueue(path: path)
            try queue.write {
                try $0.execute(sql: "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
            }
            try queue.close()
        }
        try expectUsable(path, readOnlyFirst: true)
    }

    @Test func anUnstampedDatabaseWithFetchLabsSchemaIsAdopted() throws {
        // An older build that set the application id after the migrations, killed in between.
        let path = dir.path("unstamped.sqlite")
        do {
            let queue = try DatabaseQueue(path: path)
            try Schema.migrator.migrate(queue)
            try queue.writeWithoutTransaction { try $0.execute(sql: "PRAGMA application_id = 0") }
            try queue.close()
        }
        #expect(try applicationID(path) == 0)
        try expectUsable(path)
        #expect(try applicationID(path) == Schema.applicationID)
    }

    @Test func unstampedDatabasesThatAreNotFetchLabsAreStillRefused() throws {
        let cases = [
            // Only some of FetchLab's tables, or FetchLab's tables without GRDB's record of them.
            "CREATE TABLE grdb_migrations (identifier TEXT PRIMARY KEY); INSERT INTO grdb_migrations VALUES ('v1'); CREATE TABLE user (id)",
            "CREATE TABLE user (id); CREATE TABLE app (id)",
            // Another GRDB application's migrations.
            "CREATE TABLE grdb_migrations (identifier TEXT PRIMARY KEY); INSERT INTO grdb_migrations VALUES ('createPlayers')",
            // Another application's id.
            "PRAGMA application_id = 1234",
        ]
        for (i, sql) in cases.enumerated() {
            let path = dir.path("other-\(i).sqlite")
            do {
                let queue = try DatabaseQueue(path: path)
                try queue.writeWithoutTransaction { try $0.execute(sql: sql) }
                try queue.close()
            }
            let before = try bytes(path)
            #expect(throws: StoreError.self, "\(sql)") { _ = try FetchLabDatabase(path: path) }
            #expect {
                _ = try FetchLabDatabase(path: path)
            } throws: { error in
                (error as? StoreError)?.code == .notFetchLab
            }
            #expect(try bytes(path) == before, "\(sql)")
        }
    }

    /// Item 2: connections of one process behave as processes do towards SQLite's locks.
    @Test func concurrentFirstOpensOfANewDatabaseAllSucceed() throws {
        let files = try (0..<8).map { try dir.write("f\($0).csv", usage(50, seed: $0 * 1_000)) }
        for round in 0..<12 {
            let path = dir.path("new-\(round).sqlite")
            let failures = Mutex<[String]>([])
            let finished = DispatchGroup()
            // One thread each (not a pool as wide as the cores): all of them open at once.
            for file in files {
                finished.enter()
                let thread = Thread {
                    do {
                        let db = try FetchLabDatabase(path: path)
                        _ = try Importer(database: db).importFile(file)
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                    finished.leave()
                }
                thread.stackSize = 8 << 20
                thread.start()
            }
            finished.wait()
            #expect(failures.withLock { $0 } == [], "round \(round)")
            let db = try FetchLabDatabase(path: path)
            #expect(try db.writer.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM usage_event") } == 400)
            #expect(try db.writer.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM import") } == 8)
        }
    }

    // MARK: Item 4: a newer FetchLab's database

    @Test func aNewerFetchLabsDatabaseIsRefusedForReadingAndWriting() throws {
        for (name, sql, version) in [
            ("migration", "INSERT INTO grdb_migrations VALUES ('v4: something new')", Schema.version + 1),
            ("stamp", "PRAGMA user_version = 9", 9),
        ] {
            let path = dir.path("newer-\(name).sqlite")
            do {
                let queue = try DatabaseQueue(path: path)
                try Schema.migrator.migrate(queue)
                try queue.writeWithoutTransaction { try $0.execute(sql: sql) }
                try queue.close()
            }
            let before = try bytes(path)
            for readOnly in [false, true] {
                #expect {
                    _ = try FetchLabDatabase(path: path, readOnly: readOnly)
                } throws: { error in
                    let message = "\(error)"
                    return (error as? StoreError)?.code == .tooNew && message.hasPrefix("\(path): ")
                        && message.contains("schema version \(version)")
                        && message.contains("up to \(Schema.version)") && !message.contains("\n")
                }
            }
            #expect(try bytes(path) == before)
        }
    }

    // MARK: Item 3: a damaged database

    /// A database of some size whose pages in the middle are overwritten with garbage (the header
    /// and the tables' root pages intact, so that SQLite opens it and finds its schema).
    func damagedDatabase() throws -> String {
        let path = dir.path("damaged.sqlite")
        do {
            let db = try FetchLabDatabase(path: path)
            _ = try Importer(database: db).importFile(try dir.write("big.csv", usage(40_000)))
        }  // closed: the WAL is checkpointed into the file
        let (pageSize, roots) = try {
            let queue = try DatabaseQueue(path: path)
            defer { try? queue.close() }
            return try queue.read { db in
                (
                    try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 4096,
                    try Set(Int.fetchAll(db, sql: "SELECT rootpage FROM sqlite_master WHERE rootpage > 0"))
                )
            }
        }()
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        defer { try? handle.close() }
        let pages = Int(try handle.seekToEnd()) / pageSize
        #expect(pages > 20)
        var rng = SplitMix64(seed: 7)
        for page in (pages / 2)..<(pages / 2 + 4) where !roots.contains(page) && page > 1 {
            try handle.seek(toOffset: UInt64((page - 1) * pageSize))
            handle.write(Data((0..<pageSize).map { _ in UInt8(truncatingIfNeeded: rng.next()) }))
        }
        return path
    }

    @Test func aDamagedDatabaseIsRefusedBeforeAnythingIsWritten() throws {
        let path = try damagedDatabase()
        let before = try bytes(path)
        #expect {
            _ = try FetchLabDatabase(path: path)
        } throws: { error in
            let message = "\(error)"
            return (error as? StoreError)?.code == .corrupt && message.hasPrefix("\(path): ")
                && message.contains("damaged") && message.contains(".recover") && !message.contains("\n")
        }
        #expect(try bytes(path) == before)
        // A read-only look may leave an empty WAL file; never a frame of it.
        let wal = (try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? NSNumber
        #expect((wal?.intValue ?? 0) == 0)
    }

    @Test func theQuickCheckIsSkippedWhileTheFileIsAsFetchLabLeftIt() throws {
        let path = dir.path("stamped.sqlite")
        do {
            let db = try FetchLabDatabase(path: path)
            #expect(!db.checkedOnOpen)  // a new file: nothing to check
            _ = try Importer(database: db).importFile(try dir.write("s1.csv", usage(100)))
        }  // closed: the stamp is recorded
        #expect(FileManager.default.fileExists(atPath: path + "-checked"))
        do {
            let db = try FetchLabDatabase(path: path)
            #expect(!db.checkedOnOpen)
            _ = try Importer(database: db).importFile(try dir.write("s2.csv", usage(100, seed: 500)))
        }
        #expect(try !FetchLabDatabase(path: path).checkedOnOpen)
        // Changed by something else (here only its time): checked again.
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1)], ofItemAtPath: path)
        #expect(try FetchLabDatabase(path: path).checkedOnOpen)
        // No stamp (a copy, an unwritable directory): checked.
        try FileManager.default.removeItem(atPath: path + "-checked")
        #expect(try FetchLabDatabase(path: path).checkedOnOpen)
    }

    // MARK: Item 11: waiting for another process's lock

    /// A connection that holds the write lock until told.
    func holdWriteLock(_ path: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true
        let holder = try DatabaseQueue(path: path, configuration: configuration)
        try holder.writeWithoutTransaction { try $0.execute(sql: "BEGIN IMMEDIATE") }
        return holder
    }

    @Test func anImportWaitsForAnotherWriterAndSaysSo() throws {
        let path = dir.path("wait.sqlite")
        let waiting = DispatchSemaphore(value: 0)
        let db = try FetchLabDatabase(path: path, busyTimeout: 600) { _ in waiting.signal() }
        let holder = try holdWriteLock(path)
        let file = try dir.write("w.csv", usage(10))
        let outcome = Mutex<Result<ImportSummary, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            outcome.withLock { $0 = Result { try Importer(database: db).importFile(file) } }
            done.signal()
        }
        thread.stackSize = 8 << 20
        thread.start()
        waiting.wait()  // the importer says it waits: let the other writer finish
        try holder.writeWithoutTransaction { try $0.execute(sql: "COMMIT") }
        done.wait()
        let summary = try #require(try outcome.withLock { $0 }?.get())
        #expect(summary.inserted.usageEvents == 10)
        #expect(db.waiting.totalSeconds > 0)
    }

    @Test func aBusyTimeoutThatExpiresIsOneLineNamingTheDatabaseAndTheTimeout() throws {
        let path = dir.path("busy.sqlite")
        let db = try FetchLabDatabase(path: path, busyTimeout: 0.25)
        let holder = try holdWriteLock(path)
        defer { try? holder.writeWithoutTransaction { try $0.execute(sql: "ROLLBACK") } }
        let file = try dir.write("b.csv", usage(10))
        #expect {
            _ = try Importer(database: db).importFile(file)
        } throws: { error in
            let message = "\(error)"
            return (error as? StoreError)?.code == .busy && message.hasPrefix("\(path): ")
                && message.contains("0.25 s") && message.contains("locked") && !message.contains("\n")
        }
        #expect(db.waiting.totalSeconds > 0.2)
    }

    @Test func anImpossibleBusyTimeoutIsRefusedWithoutCreatingAFile() throws {
        for timeout in [Double.nan, .infinity, -1, 1e300] {
            let path = dir.path("never-\(timeout).sqlite")
            #expect(throws: StoreError.self) { _ = try FetchLabDatabase(path: path, busyTimeout: timeout) }
            #expect(!FileManager.default.fileExists(atPath: path))
        }
    }
}
