import Foundation
import GRDB

/// A FetchLab SQLite database: opens or creates it, checks that it is one, migrates it.
///
/// The database runs in WAL mode with a busy timeout, so several processes may import into
/// it at once (their write transactions run one after the other) while others read.
public final class FetchLabDatabase: Sendable {
    public let path: String
    public let writer: any DatabaseWriter

    /// Opens (creating if needed) the database at `path`.
    ///
    /// - Parameter busyTimeout: how long a writer waits for another process's transaction.
    /// - Throws: ``StoreError`` when the file is not a FetchLab database or cannot be opened.
    public init(path: String, busyTimeout: TimeInterval = 600, readOnly: Bool = false) throws(StoreError) {
        self.path = path
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        if isDirectory.boolValue {
            throw StoreError(.database, "\(path): is a directory, not a database file")
        }
        if readOnly && !exists {
            throw StoreError(.database, "\(path): no such database (import some logs first: fetchlab import FILE)")
        }
        if exists { try Self.checkIsFetchLab(path) }
        var configuration = Configuration()
        configuration.busyMode = .timeout(busyTimeout)
        configuration.readonly = readOnly
        configuration.label = "fetchlab"
        // WAL with synchronous=NORMAL: commits are atomic and survive a crash of the process;
        // only a power cut can lose the last commits (never corrupt the file).
        configuration.prepareDatabase { db in
            if !db.configuration.readonly { try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        }
        do {
            let pool = try DatabasePool(path: path, configuration: configuration)
            if !readOnly { try Schema.migrator.migrate(pool) }
            writer = pool
        } catch let error as DatabaseError {
            throw StoreError(.database, "\(path): \(Self.explain(error))")
        } catch {
            throw StoreError(.database, "\(path): \(error)")
        }
    }

    /// A FetchLab database over any GRDB writer, e.g. `DatabaseQueue()` in memory for tests, or a
    /// pool the caller configured: refuses another application's database, migrates it.
    ///
    /// - Parameter path: how messages name the database (default: the writer's path).
    public init(writer: any DatabaseWriter, path: String? = nil) throws(StoreError) {
        let name = path ?? writer.path
        self.path = name
        do {
            let (id, tables) = try writer.read { db in
                (
                    try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0,
                    try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") ?? 0
                )
            }
            if id != Schema.applicationID && tables > 0 {
                throw StoreError(
                    .notFetchLab,
                    "\(name): a SQLite database of another application, not FetchLab's; refusing to touch it")
            }
            try Schema.migrator.migrate(writer)
        } catch let error as StoreError {
            throw error
        } catch let error as DatabaseError {
            throw StoreError(.database, "\(name): \(Self.explain(error))")
        } catch {
            throw StoreError(.database, "\(name): \(error)")
        }
        self.writer = writer
    }

    /// SQLite's message without the SQL, with a hint for the usual causes.
    static func explain(_ error: DatabaseError) -> String {
        let message = error.message ?? "SQLite error \(error.resultCode.rawValue)"
        switch error.resultCode.primaryResultCode {
        case .SQLITE_READONLY, .SQLITE_PERM, .SQLITE_CANTOPEN:
            return message + " (check that the file and its directory are writable)"
        case .SQLITE_FULL: return message + " (free some disk space)"
        default: return message
        }
    }

    /// Refuses files that are not SQLite, or SQLite databases of another application.
    static func checkIsFetchLab(_ path: String) throws(StoreError) {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw StoreError(.database, "\(path): cannot be opened for reading")
        }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 100)) ?? Data()
        if head.isEmpty { return }  // an empty file becomes a new database
        guard head.count >= 100, head.starts(with: Array("SQLite format 3\0".utf8)) else {
            throw StoreError(.notFetchLab, "\(path): not a SQLite database; refusing to touch it")
        }
        var configuration = Configuration()
        configuration.readonly = true
        let (id, tables): (Int32, Int)
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            (id, tables) = try queue.read { db in
                (
                    try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0,
                    try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") ?? 0
                )
            }
            try queue.close()
        } catch let error as DatabaseError {
            throw StoreError(.database, "\(path): cannot read the database: \(Self.explain(error))")
        } catch {
            throw StoreError(.database, "\(path): cannot read the database: \(error)")
        }
        if id != Schema.applicationID && tables > 0 {
            throw StoreError(
                .notFetchLab, "\(path): a SQLite database of another application, not FetchLab's; refusing to touch it")
        }
    }
}
