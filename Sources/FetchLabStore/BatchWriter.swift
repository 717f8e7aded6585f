import FetchLabCore
import FetchLabIngest
import FetchLabResults
import Foundation
import GRDB
import GRDBSQLite

/// Writes one file's batches inside the import transaction.
struct BatchWriter {
    private let db: Database
    private let connection: OpaquePointer
    private let path: String
    private let timeZone: String?
    let importID: Int64
    /// The `import` row, filled in by ``finish(contentSHA256:seconds:progress:)``.
    private var record: ImportRecord
    private(set) var counts = ReadCounts()
    private var inserted = ImportSummary.Inserted()
    private var firstRejects: [RejectedRow] = []
    /// Database ids of the users (devices) this file's context samples belong to.
    private var contextUsers: Set<Int64> = []
    private let compression: () -> CompressionFormat?
    private let byteCounts: () -> (Int64, Int64)

    // Reader name id → database id: 8 bytes a name, only for the names the reader still knows
    // (it starts its ids again past ``NameTable/maxNames``: ``RecordBatch/restartsNames``).
    private var users = NameIDs()
    private var apps = NameIDs()

    private static let rowsPerInsert = 64
    private let usageSorter: UsageRunSorter
    private let insertUsageMany: Statement
    private let insertUsageOne: Statement
    private let insertContext: Statement
    private let selectContext: Statement
    private let insertContent: Statement
    private let insertReject: Statement
    private let insertUser: Statement
    private let selectUser: Statement
    private let setUserTimeZone: Statement
    private let insertApp: Statement
    private let selectApp: Statement

    init(db: Database, reader: any RecordSource, path: String, options: ReadOptions, sortRunRows: Int) throws {
        self.db = db
        guard let connection = db.sqliteConnection else { throw StoreError(.database, "\(path): database is closed") }
        self.connection = connection
        self.path = path
        usageSorter = UsageRunSorter(runCapacity: sortRunRows)
        timeZone = options.timeZone?.identifier
        compression = { reader.compression }
        byteCounts = { (reader.inputBytesRead, reader.decompressedBytes) }
        var record = ImportRecord(
            path: path, format: reader.format.rawValue, syntax: reader.syntax?.rawValue,
            options: ReadFingerprint.describe(options), readFingerprint: ReadFingerprint.of(options),
            startedAt: Self.now())
        try record.insert(db)
        guard let importID = record.id else { throw StoreError(.database, "\(path): could not record the import") }
        self.record = record
        self.importID = importID
        let values = Array(repeating: "(?,?,?,?,?,\(importID))", count: Self.rowsPerInsert).joined(separator: ",")
        insertUsageMany = try db.makeStatement(
            sql:
                "INSERT OR IGNORE INTO usage_event (user_id, app_id, time, kind, utc_offset, import_id) VALUES \(values)"
        )
        insertUsageOne = try db.makeStatement(
            sql:
                "INSERT OR IGNORE INTO usage_event (user_id, app_id, time, kind, utc_offset, import_id) VALUES (?,?,?,?,?,\(importID))"
        )
        insertContext = try db.makeStatement(
            sql: """
                INSERT OR IGNORE INTO context_sample (user_id, time, battery, charging, network, low_power, screen_on, import_id)
                VALUES (?,?,?,?,?,?,?,\(importID))
                """)
        selectContext = try db.makeStatement(
            sql:
                "SELECT battery, charging, network, low_power, screen_on FROM context_sample WHERE user_id = ? AND time = ?"
        )
        insertContent = try db.makeStatement(
            sql: "INSERT OR IGNORE INTO content_update (app_id, time, import_id) VALUES (?,?,\(importID))")
        insertReject = try db.makeStatement(
            sql: "INSERT INTO rejected_row (import_id, line, reason, raw) VALUES (\(importID),?,?,?)")
        insertUser = try db.makeStatement(
            sql: "INSERT INTO user (name, time_zone) VALUES (?, ?) ON CONFLICT(name) DO NOTHING")
        selectUser = try db.makeStatement(sql: "SELECT id FROM user WHERE name = ?")
        setUserTimeZone = try db.makeStatement(
            sql: "UPDATE user SET time_zone = ? WHERE id = ? AND time_zone IS NULL")
        // The time zone is the same for every user of the file: bound once (a reset keeps bindings).
        if let timeZone {
            Self.bind(insertUser.sqliteStatement, 2, timeZone)
            Self.bind(setUserTimeZone.sqliteStatement, 1, timeZone)
        }
        insertApp = try db.makeStatement(sql: "INSERT INTO app (name) VALUES (?) ON CONFLICT(name) DO NOTHING")
        selectApp = try db.makeStatement(sql: "SELECT id FROM app WHERE name = ?")
    }

    mutating func write(_ batch: RecordBatch) throws {
        if batch.restartsNames {
            users.removeAll()
            apps.removeAll()
        }
        guard users.count == Int(batch.firstNewUser), apps.count == Int(batch.firstNewApp) else {
            throw StoreError(.database, "\(path): the reader's name ids are out of step with the batches")
        }
        users.add(batch.newUsers, first: batch.firstNewUser)
        apps.add(batch.newApps, first: batch.firstNewApp)
        defer {
            users.endBatch()
            apps.endBatch()
        }
        counts += batch.counts

        if !batch.usage.isEmpty { try writeUsage(batch.usage) }
        if !batch.context.isEmpty { try writeContext(batch.context) }
        for row in batch.content.sorted(by: { ($0.app, $0.time) < ($1.app, $1.time) }) {
            let s = insertContent.sqliteStatement
            sqlite3_bind_int64(s, 1, try app(row.app))
            sqlite3_bind_int64(s, 2, row.time.sinceEpoch.value)
            try step(s)
            if sqlite3_changes(connection) == 1 { inserted.contentUpdates += 1 } else { counts.duplicate += 1 }
        }
        for reject in batch.rejects { try recordReject(reject) }
    }

    /// Usage rows go to the sorter; the rows of a file in user order pass straight on to the
    /// table as the sorter's buffer fills (see ``UsageRunSorter/append(_:passing:)``).
    private mutating func writeUsage(_ rows: [UsageEvent]) throws {
        for var row in rows {
            row.user = Int32(try user(row.user))
            row.app = Int32(try app(row.app))
            try usageSorter.append(row) { sorted in try insertUsage(sorted) }
        }
    }

    /// Inserts the rows the sorter still holds in primary-key order: one sweep over the B-tree,
    /// however the file was ordered.
    private mutating func insertSortedUsage(progress: (_ stored: Int, _ total: Int) -> Void) throws {
        let rowCount = usageSorter.count
        guard rowCount > 0 else { return }
        var stored = 0
        try usageSorter.drain { rows in
            try insertUsage(rows)
            stored += rows.count
            progress(stored, rowCount)
        }
    }

    /// Inserts rows in the order given. Duplicates (in the file or already stored) are ignored and counted.
    private mutating func insertUsage(_ rows: UnsafeBufferPointer<UsageEvent>) throws {
        let before = Int(sqlite3_total_changes(connection))
        let many = insertUsageMany.sqliteStatement
        let one = insertUsageOne.sqliteStatement
        var i = 0
        while i + Self.rowsPerInsert <= rows.count {
            var p: Int32 = 1
            for k in i..<(i + Self.rowsPerInsert) {
                bindUsage(many, rows[k], at: p)
                p += 5
            }
            try step(many)
            i += Self.rowsPerInsert
        }
        while i < rows.count {
            bindUsage(one, rows[i], at: 1)
            try step(one)
            i += 1
        }
        let added = Int(sqlite3_total_changes(connection)) - before
        inserted.usageEvents += added
        counts.duplicate += rows.count - added
    }

    @inline(__always)
    private func bindUsage(_ s: OpaquePointer?, _ row: UsageEvent, at p: Int32) {
        sqlite3_bind_int64(s, p, Int64(row.user))
        sqlite3_bind_int64(s, p + 1, Int64(row.app))
        sqlite3_bind_int64(s, p + 2, row.time.sinceEpoch.value)
        sqlite3_bind_int64(s, p + 3, Int64(row.kind.rawValue))
        if let offset = row.utcOffset {
            sqlite3_bind_int64(s, p + 4, Int64(offset))
        } else {
            sqlite3_bind_null(s, p + 4)
        }
    }

    private mutating func writeContext(_ rows: [ContextRow]) throws {
        let s = insertContext.sqliteStatement
        for context in rows {
            let row = context.sample
            let userID = try user(row.user)
            contextUsers.insert(userID)
            sqlite3_bind_int64(s, 1, userID)
            sqlite3_bind_int64(s, 2, row.time.sinceEpoch.value)
            Self.bind(s, 3, row.battery)
            Self.bind(s, 4, row.charging.map { $0 ? 1 : 0 })
            Self.bind(s, 5, row.network.map(\.rawValue))
            Self.bind(s, 6, row.lowPower.map { $0 ? 1 : 0 })
            Self.bind(s, 7, row.screenOn.map { $0 ? 1 : 0 })
            try step(s)
            if sqlite3_changes(connection) == 1 {
                inserted.contextSamples += 1
                continue
            }
            // Same user and time as a stored sample: a duplicate if it says the same thing.
            let existing = try Row.fetchOne(selectContext, arguments: [userID, row.time.sinceEpoch.value])
            let same =
                existing.map {
                    $0[0] as Double? == row.battery && $0[1] as Bool? == row.charging
                        && ($0[2] as Int?).flatMap(NetworkType.init(rawValue:)) == row.network
                        && $0[3] as Bool? == row.lowPower && $0[4] as Bool? == row.screenOn
                } ?? false
            if same {
                counts.duplicate += 1
            } else {
                counts.accepted -= 1
                counts.rejected += 1
                try recordReject(
                    RejectedRow(
                        line: context.line,
                        reason: "conflicts with the sample already stored for this device at the same time",
                        raw: context.raw ?? ""))
            }
        }
    }

    private mutating func recordReject(_ reject: RejectedRow) throws {
        let s = insertReject.sqliteStatement
        sqlite3_bind_int64(s, 1, Int64(reject.line))
        Self.bind(s, 2, reject.reason)
        Self.bind(s, 3, reject.raw)
        try step(s)
        if firstRejects.count < 10 { firstRejects.append(reject) }
    }

    @inline(__always)
    private mutating func user(_ local: Int32) throws -> Int64 {
        if let id = users.id(local) { return id }
        guard let name = users.name(local) else { throw unknownName("user", local) }
        let id = try resolve(name, insert: insertUser, select: selectUser, kind: "user")
        if timeZone != nil, !id.inserted {
            let s = setUserTimeZone.sqliteStatement
            sqlite3_bind_int64(s, 2, id.id)
            try step(s)
        }
        users.set(local, id.id)
        return id.id
    }

    @inline(__always)
    private mutating func app(_ local: Int32) throws -> Int64 {
        if let id = apps.id(local) { return id }
        guard let name = apps.name(local) else { throw unknownName("app", local) }
        let id = try resolve(name, insert: insertApp, select: selectApp, kind: "app")
        apps.set(local, id.id)
        return id.id
    }

    private func unknownName(_ kind: String, _ local: Int32) -> StoreError {
        StoreError(.database, "\(path): the reader's \(kind) id \(local) names no \(kind) it announced")
    }

    /// The database id of a name: inserted (then the new row's id), or looked up.
    private func resolve(_ name: String, insert: Statement, select: Statement, kind: String) throws -> (
        id: Int64, inserted: Bool
    ) {
        let s = insert.sqliteStatement
        Self.bindName(s, 1, name)
        let before = sqlite3_total_changes(connection)
        try step(s)
        if sqlite3_total_changes(connection) != before { return (sqlite3_last_insert_rowid(connection), true) }
        let q = select.sqliteStatement
        Self.bindName(q, 1, name)
        defer { sqlite3_reset(q) }
        guard sqlite3_step(q) == SQLITE_ROW else {
            throw StoreError(.database, "\(path): could not store \(kind) \(name)")
        }
        return (sqlite3_column_int64(q, 0), false)
    }

    @inline(__always)
    private func step(_ s: OpaquePointer?) throws {
        let rc = sqlite3_step(s)
        sqlite3_reset(s)
        guard rc == SQLITE_DONE else {
            let message = String(cString: sqlite3_errmsg(connection))
            throw StoreError(.database, "\(path): SQLite error \(rc): \(message)")
        }
    }

    private static func bind(_ s: OpaquePointer?, _ p: Int32, _ value: Double?) {
        if let value { sqlite3_bind_double(s, p, value) } else { sqlite3_bind_null(s, p) }
    }

    private static func bind(_ s: OpaquePointer?, _ p: Int32, _ value: Int?) {
        if let value { sqlite3_bind_int64(s, p, Int64(value)) } else { sqlite3_bind_null(s, p) }
    }

    /// Binds a name by its bytes and length (not as a C string).
    private static func bindName(_ s: OpaquePointer?, _ p: Int32, _ value: String) {
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        var value = value
        value.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                if let base = chars.baseAddress {
                    _ = sqlite3_bind_text(s, p, base, Int32(chars.count), transient)
                } else {
                    _ = sqlite3_bind_text(s, p, "", 0, transient)
                }
            }
        }
    }

    private static func bind(_ s: OpaquePointer?, _ p: Int32, _ value: String) {
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        sqlite3_bind_text(s, p, value, -1, transient)
    }

    /// Fills in the import row and returns the summary.
    mutating func finish(
        contentSHA256: String, seconds: () -> Double, progress: (_ stored: Int, _ total: Int) -> Void
    ) throws -> ImportSummary {
        try insertSortedUsage(progress: progress)
        let (bytes, decompressed) = byteCounts()
        record.contentSHA256 = contentSHA256
        record.compression = compression()?.rawValue
        record.bytes = bytes
        record.decompressedBytes = decompressed
        record.counts = counts
        record.recordsInserted = inserted.total
        record.finishedAt = Self.now()
        if counts.systemApps > 0 {
            record.options = ReadFingerprint.adding(
                ReadFingerprint.systemAppRowsKey, String(counts.systemApps), to: record.options)
        }
        try record.update(db)
        var summary = ImportSummary(
            record: record, importID: importID, status: counts.accepted > 0 ? .imported : .nothingAccepted,
            inserted: inserted, seconds: seconds(), firstRejects: firstRejects)
        summary.unmatchedContextUsers = try unmatchedContextUsers()
        return summary
    }

    /// The users (devices) of this file's context samples who have no launch in the database now:
    /// no replay reads their samples (context is matched to launches by user name). Signal events
    /// (a battery sampler's screen turning on) do not make a device a user with launches.
    private func unmatchedContextUsers() throws -> [String] {
        guard !contextUsers.isEmpty else { return [] }
        var names: [String] = []
        let usage = try db.makeStatement(
            sql:
                "SELECT EXISTS (SELECT 1 FROM usage_event WHERE user_id = ? AND kind = \(UsageEventKind.launch.rawValue))"
        )
        let name = try db.makeStatement(sql: "SELECT name FROM user WHERE id = ?")
        for id in contextUsers where try Bool.fetchOne(usage, arguments: [id]) != true {
            if let n = try String.fetchOne(name, arguments: [id]) { names.append(n) }
        }
        return names.sorted()
    }

    static func now() -> String {
        ISO8601.utc(Date())
    }
}

/// Reader name ids → database ids for one file: a flat array (0 = not resolved yet). The names of
/// the batch being written are at hand; a name left unresolved after its batch (only rejected
/// rows used it) is kept aside until a later batch uses it or the reader's ids start again.
private struct NameIDs {
    private var ids: [Int64] = []
    private var batchNames: [String] = []
    private var batchFirst = 0
    private var leftover: [Int32: String] = [:]

    /// Names announced so far (since the reader's last restart).
    var count: Int { ids.count }

    mutating func removeAll() {
        ids.removeAll(keepingCapacity: true)
        leftover = [:]
    }

    /// The names first seen in the batch about to be written, with their first id.
    mutating func add(_ names: [String], first: Int32) {
        batchNames = names
        batchFirst = Int(first)
        ids.append(contentsOf: repeatElement(0, count: names.count))
    }

    /// Keeps the batch's unresolved names for later batches.
    mutating func endBatch() {
        for (k, name) in batchNames.enumerated() where ids[batchFirst + k] == 0 {
            leftover[Int32(batchFirst + k)] = name
        }
        batchNames = []
    }

    @inline(__always)
    func id(_ local: Int32) -> Int64? {
        let id = ids[Int(local)]
        return id != 0 ? id : nil
    }

    func name(_ local: Int32) -> String? {
        let k = Int(local) - batchFirst
        if k >= 0 && k < batchNames.count { return batchNames[k] }
        return leftover[local]
    }

    @inline(__always)
    mutating func set(_ local: Int32, _ id: Int64) {
        ids[Int(local)] = id
        if Int(local) < batchFirst { leftover[local] = nil }
    }
}
