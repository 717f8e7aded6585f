import Foundation
import GRDB
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A FetchLab SQLite database: opens or creates it, checks that it is one, migrates it.
///
/// The database runs in WAL mode with a busy timeout, so several processes may import into
/// it at once (their write transactions run one after the other) while others read.
///
/// Opening is safe against kills and against other processes opening the same file at once:
/// every connection waits for locks (``DatabaseWaiting``) from its first statement; the schema is
/// created or migrated, and stamped with FetchLab's application id and schema version, in one
/// `BEGIN IMMEDIATE` transaction that first looks again at what the file holds (a second process
/// waits, then finds the schema finished); a file left empty or half-created (by a kill, or by an
/// older build) is recognised as FetchLab's and completed. Before writing, the file is checked:
/// another application's database, one of a newer FetchLab, or a damaged one is refused, and
/// nothing is written to it.
public final class FetchLabDatabase: Sendable {
    public let path: String
    public let writer: any DatabaseWriter
    /// How connections wait for other processes' locks; ``DatabaseWaiting/totalSeconds`` is the
    /// time spent waiting so far.
    public let waiting: DatabaseWaiting
    /// Whether opening ran SQLite's quick check (it does unless the file is as FetchLab left it).
    let checkedOnOpen: Bool
    /// Whether closing records that the file is sound (see ``CheckStamp``): opened for writing,
    /// sound then, and no damage met since.
    private let stampsOnClose: Mutex<Bool>

    /// Opens (creating if needed) the database at `path`.
    ///
    /// - Parameters:
    ///   - path: the database file.
    ///   - busyTimeout: how long to wait for another process's lock, in seconds (0…one day).
    ///   - readOnly: read only (never creates, migrates nor writes; works in a read-only directory).
    ///   - onWait: called while waiting for another process's lock, with the seconds waited so far.
    /// - Throws: ``StoreError`` when the file is not a FetchLab database (`notFetchLab`), is one
    ///   of a newer FetchLab (`tooNew`), is damaged (`corrupt`, when opened for writing), stays
    ///   locked longer than `busyTimeout` (`busy`) or cannot be opened. A file this call created
    ///   is removed again when opening fails.
    public init(
        path: String, busyTimeout: TimeInterval = 600, readOnly: Bool = false,
        onWait: (@Sendable (_ waited: Double) -> Void)? = nil
    ) throws(StoreError) {
        self.path = path
        guard busyTimeout.isFinite, busyTimeout >= 0, busyTimeout <= DatabaseWaiting.maximumTimeout else {
            throw StoreError(
                .database,
                "\(path): the busy timeout must be 0 to \(Int(DatabaseWaiting.maximumTimeout)) seconds, not \(busyTimeout)"
            )
        }
        let waiting = DatabaseWaiting(timeout: busyTimeout, observer: onWait)
        self.waiting = waiting
        var isDirectory: ObjCBool = false
        let existed = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        if isDirectory.boolValue {
            throw StoreError(.database, "\(path): is a directory, not a database file")
        }
        var info = stat()
        if existed, stat(path, &info) == 0, (info.st_mode & S_IFMT) != S_IFREG {
            // A device or a pipe: SQLite would fail on it with "disk I/O error", or hang on a FIFO.
            throw StoreError(.database, "\(path): not a regular file (a device, pipe or socket), not a database file")
        }
        if readOnly && !existed {
            throw StoreError(.database, "\(path): no such database (import some logs first: fetchlab import FILE)")
        }
        let opening = Opening(path: path, waiting: waiting)
        // The -wal and -shm files that were there: a refused database is left as it was.
        let sidecars = ["-wal", "-shm"].filter { !FileManager.default.fileExists(atPath: path + $0) }
        do {
            // A new database appears whole or not at all: made under a temporary name beside it,
            // then linked into place (a kill while creating it leaves no file a later command trips on).
            if !readOnly && !existed { opening.createAtomically() }
            writer = readOnly ? try opening.openForReading() : try opening.openForWriting()
            checkedOnOpen = opening.checked.withLock { $0 }
            stampsOnClose = Mutex(!readOnly)
        } catch {
            let failure = opening.storeError(error)
            // Busy: another process is creating it, and goes on with the file.
            if !existed && failure.code != .busy { opening.removeIfEmpty() }
            if existed && failure.code != .busy {
                // The -wal (empty: nothing was written) and -shm (the log's index) files this open
                // created beside a database it then refused.
                let walSize = (try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? NSNumber
                if sidecars.contains("-wal"), (walSize?.int64Value ?? 0) == 0 {
                    for suffix in sidecars { unlink(path + suffix) }
                }
            }
            throw failure
        }
    }

    /// A FetchLab database over any GRDB writer, e.g. `DatabaseQueue()` in memory for tests, or a
    /// pool the caller configured: refuses another application's database or a newer FetchLab's,
    /// completes the schema (in one immediate transaction).
    ///
    /// - Parameters:
    ///   - writer: the GRDB connection or pool.
    ///   - path: how messages name the database (default: the writer's path).
    public init(writer: any DatabaseWriter, path: String? = nil) throws(StoreError) {
        let name = path ?? writer.path
        self.path = name
        waiting = DatabaseWaiting(timeout: 0)
        let opening = Opening(path: name, waiting: waiting)
        do {
            try opening.complete(writer)
        } catch {
            throw opening.storeError(error)
        }
        self.writer = writer
        checkedOnOpen = false
        stampsOnClose = Mutex(false)
    }

    /// Closes the database; after writing it, records that FetchLab leaves the file sound, so that
    /// the next open skips the quick check while the file stays as it is.
    deinit {
        guard stampsOnClose.withLock({ $0 }), let pool = writer as? DatabasePool else { return }
        // Readers first (releasing memory closes them), so that the writer is the last
        // connection: closing it checkpoints the WAL into the file, which is then stamped.
        pool.releaseMemory()
        guard (try? pool.close()) != nil else { return }
        CheckStamp(database: path).record()
    }

    /// Copies the write-ahead log into the database file and empties it, so that a copy of the file
    /// alone holds everything written (closing does the same, but only as the last connection of
    /// the process: a command still reading keeps the log).
    public func checkpoint() throws(StoreError) {
        do {
            _ = try writer.writeWithoutTransaction { try $0.checkpoint(.truncate) }
        } catch let error as DatabaseError {
            throw storeError(error, while: "writing the log into the database file")
        } catch {
            throw StoreError(.database, "\(path): \(error)")
        }
    }

    /// SQLite's message without the SQL, with a hint for the usual causes.
    static func explain(_ error: DatabaseError, busyTimeout: Double? = nil) -> String {
        let message = error.message ?? "SQLite error \(error.resultCode.rawValue)"
        switch error.resultCode.primaryResultCode {
        case .SQLITE_READONLY, .SQLITE_PERM, .SQLITE_CANTOPEN:
            return message + " (check that the file and its directory are writable)"
        case .SQLITE_FULL: return message + " (free some disk space)"
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            guard let busyTimeout else { return message }
            return "\(message): another process kept it locked for longer than the busy timeout of "
                + "\(Opening.seconds(busyTimeout)); try again later, or wait longer with --busy-timeout"
        case .SQLITE_CORRUPT, .SQLITE_NOTADB:
            return "\(message): the database is damaged; \(Opening.recovery)"
        default: return message
        }
    }

    /// The store error of a failed SQLite call on this database (`busy` when a lock wait timed out).
    func storeError(_ error: DatabaseError, while doing: String? = nil) -> StoreError {
        let failure = Opening(path: path, waiting: waiting).databaseError(error, while: doing)
        if failure.code == .corrupt {
            // Damage met while writing: the next open checks the whole file again.
            stampsOnClose.withLock { $0 = false }
            try? FileManager.default.removeItem(atPath: CheckStamp(database: path).path)
        }
        return failure
    }
}

/// The steps of opening a database file, each refusing what FetchLab must not touch.
struct Opening {
    let path: String
    let waiting: DatabaseWaiting
    /// Whether opening ran `PRAGMA quick_check`.
    let checked = Flag()

    final class Flag: Sendable {
        private let value = Mutex(false)
        func withLock<T>(_ body: (inout Bool) -> T) -> T { value.withLock { body(&$0) } }
    }

    /// What to do with a damaged database (part of the one-line error).
    static let recovery =
        "nothing was written to it; recover its data with `sqlite3 DB .recover | sqlite3 NEW.sqlite` "
        + "(or restore a copy, or import the logs into a new database)"

    /// "600 s", "0.5 s".
    static func seconds(_ s: Double) -> String {
        s == s.rounded() ? "\(Int(s)) s" : "\(s) s"
    }

    // MARK: Writing

    /// Opens for writing: checks the file, then opens a WAL pool and completes the schema in one
    /// immediate transaction. A step that finds the database busy outside SQLite's busy handler
    /// (switching to WAL, recovering a crashed writer's WAL) is tried again until the timeout.
    func openForWriting() throws -> DatabasePool {
        try retryingWhileBusy {
            // Whether the read-only look found the schema complete: then the pool need not look again.
            var schemaComplete = false
            try rollBackHotJournal()
            if fileHoldsADatabase() {
                // A read-only look first, so that nothing (not even the switch to WAL) is written
                // to a file that is not a database, another application's, a newer FetchLab's or
                // a damaged one.
                let queue = try refusingNonDatabases {
                    try DatabaseQueue(path: path, configuration: configuration(readOnly: true))
                }
                defer { try? queue.close() }
                let unchanged = CheckStamp(database: path).matches
                schemaComplete = try queue.read { db in
                    let verdict = try SchemaState.read(db).verdict
                    try refuse(verdict)
                    // Skipped while the file is as FetchLab left it (see CheckStamp).
                    if !unchanged { try verify(db) }
                    return verdict == .complete
                }
                checked.withLock { $0 = !unchanged }
            }
            TestHook.kill(at: .opening)
            let pool = try DatabasePool(path: path, configuration: configuration(readOnly: false))
            TestHook.kill(at: .walMode)
            do {
                if !schemaComplete { try complete(pool) }
            } catch {
                try? pool.close()
                throw error
            }
            return pool
        }
    }

    /// Completes the schema if it needs it, refusing another application's or a newer FetchLab's
    /// database: a look without a lock first (nothing to do, the usual case), then again inside
    /// `BEGIN IMMEDIATE`, where the schema is completed and stamped all at once.
    func complete(_ writer: any DatabaseWriter) throws {
        try writer.writeWithoutTransaction { db in
            let verdict = try SchemaState.read(db).verdict
            try refuse(verdict)
            if verdict == .complete { return }
            try db.inTransaction(.immediate) {
                try refuse(try Schema.complete(db).verdict)
                TestHook.kill(at: .migrating)
                return .commit
            }
            TestHook.kill(at: .migrated)
        }
    }

    /// A writer killed in the middle of a transaction in rollback-journal mode (creating the
    /// database, before the switch to WAL) leaves a hot `-journal` that only a connection that may
    /// write can roll back: every read-only open would fail ("attempt to write a readonly
    /// database"). When the journal is there and the file and its directory are writable, one
    /// read-write connection reads the header (SQLite rolls the journal back) and closes; the
    /// usual checks follow on the file as it was before the interrupted transaction.
    func rollBackHotJournal() throws {
        let journal = path + "-journal"
        let size = (try? FileManager.default.attributesOfItem(atPath: journal))?[.size] as? NSNumber
        guard (size?.int64Value ?? 0) > 0, access(path, W_OK) == 0, access(directory, W_OK) == 0 else { return }
        try retryingWhileBusy {
            var configuration = Configuration()
            configuration.busyMode = .timeout(waiting.timeout)
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            defer { try? queue.close() }
            _ = try queue.read { try Int.fetchOne($0, sql: "PRAGMA schema_version") }
        }
    }

    /// Whether the file exists with some bytes in it (an empty file becomes a new database).
    ///
    /// Only `stat`: opening and closing a descriptor of the file would drop the POSIX locks that
    /// other SQLite connections of this process hold on it (SQLite's own opens avoid that).
    func fileHoldsADatabase() -> Bool {
        let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber
        return (size?.int64Value ?? 0) > 0
    }

    /// `PRAGMA quick_check`: refuses a damaged database before anything is written to it.
    func verify(_ db: Database) throws {
        let problems = try String.fetchAll(db, sql: "PRAGMA quick_check(1)")
        guard problems == ["ok"] else {
            let first = (problems.first ?? "").split(separator: "\n").first.map(String.init) ?? ""
            throw StoreError(.corrupt, "\(path): the database is damaged (\(first)); \(Self.recovery)")
        }
    }

    /// `body`, with "file is not a database" as FetchLab's refusal.
    func refusingNonDatabases<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError where error.resultCode.primaryResultCode == .SQLITE_NOTADB {
            throw StoreError(.notFetchLab, "\(path): not a SQLite database; refusing to touch it")
        }
    }

    /// Throws for the verdicts FetchLab refuses: another application's, a newer FetchLab's.
    func refuse(_ verdict: SchemaState.Verdict) throws {
        switch verdict {
        case .foreign:
            throw StoreError(
                .notFetchLab, "\(path): a SQLite database of another application, not FetchLab's; refusing to touch it")
        case .tooNew(let version, let unknown):
            let names = unknown.isEmpty ? "" : " (migration \(unknown.map { "'\($0)'" }.joined(separator: ", ")))"
            throw StoreError(
                .tooNew,
                "\(path): written by a newer FetchLab (schema version \(version)\(names)); this FetchLab knows "
                    + "schema versions up to \(Schema.version) — use the newer fetchlab; refusing to read or write it")
        case .complete, .incomplete: return
        }
    }

    // MARK: Reading

    /// Opens read-only: never creates, migrates nor writes the file. A database left unfinished
    /// (empty, half-created, an earlier schema) is completed first when the file may be written.
    /// In a directory FetchLab may not write (where SQLite cannot create the WAL's shared-memory
    /// file), the database is read as immutable when its WAL holds nothing.
    func openForReading() throws -> any DatabaseWriter {
        try rollBackHotJournal()
        let reader = try retryingWhileBusy { try refusingNonDatabases { try openReadOnly() } }
        let verdict = try reader.read { try SchemaState.read($0).verdict }
        try refuse(verdict)
        // A file changed since FetchLab last left it sound is checked as a writer checks it, so
        // that a damaged database is refused here, in one line with the recovery, not later by a
        // query's raw SQLite error.
        if !CheckStamp(database: path).matches {
            do {
                try reader.read { try verify($0) }
            } catch {
                try? reader.close()
                throw error
            }
        }
        guard case .incomplete(let missing) = verdict, !missing.isEmpty else { return reader }
        if access(path, W_OK) == 0 && access(directory, W_OK) == 0 {
            try? reader.close()
            try openForWriting().close()
            return try retryingWhileBusy { try openReadOnly() }
        }
        if missing.contains(Schema.migrations[0].identifier) {
            throw StoreError(
                .database, "\(path): holds no FetchLab data yet (import some logs first: fetchlab import FILE)")
        }
        return reader  // an earlier schema, read as it is
    }

    var directory: String {
        let parent = (path as NSString).deletingLastPathComponent
        return parent.isEmpty ? "." : parent
    }

    private func openReadOnly() throws -> any DatabaseWriter {
        do {
            let pool = try DatabasePool(path: path, configuration: configuration(readOnly: true))
            _ = try pool.read { try Int.fetchOne($0, sql: "PRAGMA user_version") }
            return pool
        } catch let error as DatabaseError
            where [.SQLITE_CANTOPEN, .SQLITE_READONLY, .SQLITE_PERM].contains(error.resultCode.primaryResultCode)
            && access(directory, W_OK) != 0
        {
            // A WAL database in a read-only directory: SQLite cannot create the -shm file. Reading
            // the file as immutable is right only if no WAL holds commits not in the file yet.
            let wal = path + "-wal"
            let walBytes = (try? FileManager.default.attributesOfItem(atPath: wal)[.size] as? NSNumber)?.intValue ?? 0
            guard walBytes == 0 else {
                throw StoreError(
                    .database,
                    "\(path): cannot be read: its directory is read-only and its write-ahead log \(wal) holds "
                        + "changes not yet in the database (open it once with write access to the directory, e.g. "
                        + "fetchlab import, or copy the database with its -wal file elsewhere)")
            }
            var configuration = configuration(readOnly: true)
            configuration.label = "fetchlab-immutable"
            let queue = try DatabaseQueue(path: Self.immutableURI(path), configuration: configuration)
            _ = try queue.read { try Int.fetchOne($0, sql: "PRAGMA user_version") }
            return queue
        }
    }

    /// `file:PATH?immutable=1`: SQLite reads the file without locks or a -shm file.
    static func immutableURI(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%")
        let encoded = absolute.addingPercentEncoding(withAllowedCharacters: allowed) ?? absolute
        return "file:\(encoded)?immutable=1"
    }

    // MARK: Helpers

    func configuration(readOnly: Bool) -> Configuration {
        var configuration = Configuration()
        // The busy handler is installed before the connection's first statement.
        configuration.busyMode = waiting.busyMode
        configuration.readonly = readOnly
        configuration.label = "fetchlab"
        // WAL with synchronous=NORMAL: commits are atomic and survive a crash of the process;
        // only a power cut can lose the last commits (never corrupt the file).
        configuration.prepareDatabase { db in
            if !db.configuration.readonly { try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        }
        return configuration
    }

    /// Runs `body` again while it fails with SQLITE_BUSY that SQLite's busy handler did not wait
    /// for (switching to WAL, a WAL being recovered or removed by another process), until the
    /// busy timeout is spent.
    func retryingWhileBusy<T>(_ body: () throws -> T) throws -> T {
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(waiting.timeout)
        var pause = Duration.milliseconds(1)
        while true {
            do {
                return try body()
            } catch let error as DatabaseError where error.resultCode.primaryResultCode == .SQLITE_BUSY {
                guard clock.now + pause < deadline else { throw error }
                Thread.sleep(forTimeInterval: pause / .seconds(1))
                waiting.add(pause / .seconds(1))
                pause = min(pause * 2, .milliseconds(100))
            }
        }
    }

    /// Removes the file this open created and left empty (a failed first open), so that no
    /// 0-byte database is left behind. (The caller skips this after a busy failure: another
    /// process is then creating the file and goes on with it.)
    func removeIfEmpty() {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            (attributes[.size] as? NSNumber)?.intValue == 0,
            !FileManager.default.fileExists(atPath: path + "-wal")
        else { return }
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Any failure of opening as the store's one-line error.
    func storeError(_ error: any Error) -> StoreError {
        switch error {
        case let error as StoreError: error
        case let error as DatabaseError: databaseError(error)
        default: StoreError(.database, "\(path): \(error)")
        }
    }

    func databaseError(_ error: DatabaseError, while doing: String? = nil) -> StoreError {
        let code: StoreError.Code =
            switch error.resultCode.primaryResultCode {
            case .SQLITE_BUSY, .SQLITE_LOCKED: .busy
            case .SQLITE_CORRUPT, .SQLITE_NOTADB: .corrupt
            default: .database
            }
        let context = doing.map { " (\($0))" } ?? ""
        return StoreError(
            code, "\(path): \(FetchLabDatabase.explain(error, busyTimeout: waiting.timeout))\(context)")
    }
}

/// Hidden, for the crash-safety tests: `FETCHLAB_TEST_KILL_AT=STEP` makes the process kill itself
/// (SIGKILL, as `kill -9` would) when opening a database for writing reaches STEP. Unset, nothing.
enum TestHook {
    enum Step: String {
        /// The file checked, before SQLite opens (and creates) it.
        case opening
        /// The pool open and in WAL mode, before the schema is looked at.
        case walMode = "wal"
        /// Inside the schema's transaction, every migration run, before the commit.
        case migrating
        /// The schema committed, before anything else.
        case migrated
        /// A new database complete and closed under its temporary name, before it is linked into place.
        case created
    }

    static let step = ProcessInfo.processInfo.environment["FETCHLAB_TEST_KILL_AT"].flatMap(Step.init(rawValue:))

    static func kill(at step: Step) {
        if step == Self.step { raise(SIGKILL) }
    }
}
