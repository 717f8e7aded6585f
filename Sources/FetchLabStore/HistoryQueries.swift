import FetchLabCore
import Foundation
import GRDB
import GRDBSQLite

extension UsageQueries {
    /// The names of users with at least one launch, sorted.
    public func usersWithLaunches() throws(StoreError) -> [UserID] {
        let names: [String] = try read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT u.name FROM user u
                    WHERE EXISTS (SELECT 1 FROM usage_event e WHERE e.user_id = u.id AND e.kind = 0)
                    ORDER BY u.name
                    """)
        }
        return names.map { UserID($0) }
    }

    /// Whether any content update was imported.
    public func hasContentUpdates() throws(StoreError) -> Bool {
        try read { db in try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM content_update)") ?? false }
    }

    /// Whether any notification event is stored.
    public func hasNotifications() throws(StoreError) -> Bool {
        try read { db in
            try Bool.fetchOne(
                db, sql: "SELECT EXISTS (SELECT 1 FROM usage_event WHERE kind = ?)",
                arguments: [UsageEventKind.notification.rawValue]) ?? false
        }
    }

    /// A user's history: launches and other usage events, context samples and the content updates
    /// of the user's apps, each in time order; only what happened before `before`, when given. Nil
    /// when the user is unknown. Apps are those the user launched or has events of, sorted by name.
    ///
    /// Signal events (unlock, screen on, notification, system UI) are among the other events
    /// (`UserHistory.events`), never launches; their apps are in `UserHistory.apps` like any other
    /// (`AppID.device` for the device's, launchers and system UI for theirs), with no launch, so never
    /// evaluated.
    public func history(of user: UserID, before: Instant? = nil) throws(StoreError) -> UserHistory? {
        try read { db -> UserHistory? in
            guard
                let userID = try Int64.fetchOne(db, sql: "SELECT id FROM user WHERE name = ?", arguments: [user.name])
            else { return nil }
            let end = before ?? .distantFuture
            var appIndex: [Int64: Int32] = [:]
            var apps: [AppID] = []
            let appRows = try Row.fetchAll(
                db,
                sql: """
                    SELECT a.id, a.name FROM app a
                    WHERE a.id IN (SELECT DISTINCT app_id FROM usage_event WHERE user_id = ?)
                    ORDER BY a.name
                    """, arguments: [userID])
            for row in appRows {
                appIndex[row[0]] = Int32(apps.count)
                apps.append(AppID(row[1]))
            }
            // GRDB's generic row decoding costs more than the query on these, the largest
            // tables: their columns are read straight from the statement.
            var launches: [UsageEvent] = []
            var events: [UsageEvent] = []
            let usage = try db.makeStatement(
                sql: "SELECT app_id, time, utc_offset, kind FROM usage_event WHERE user_id = ? AND time < ?")
            try usage.setArguments([userID, end])
            try Self.forEachRow(usage) { s in
                let kind = UsageEventKind(rawValue: Int(sqlite3_column_int64(s, 3))) ?? .launch
                let event = UsageEvent(
                    time: Instant(sinceEpoch: Microseconds(sqlite3_column_int64(s, 1))), user: 0,
                    app: appIndex[sqlite3_column_int64(s, 0)] ?? 0,
                    kind: kind, utcOffset: Self.int(s, 2).map { Int32($0) })
                if kind == .launch { launches.append(event) } else { events.append(event) }
            }
            var context: [ContextSample] = []
            let samples = try db.makeStatement(
                sql: """
                    SELECT time, battery, charging, network, low_power, screen_on FROM context_sample
                    WHERE user_id = ? AND time < ? ORDER BY time
                    """)
            try samples.setArguments([userID, end])
            try Self.forEachRow(samples) { s in
                context.append(
                    ContextSample(
                        time: Instant(sinceEpoch: Microseconds(sqlite3_column_int64(s, 0))),
                        battery: sqlite3_column_type(s, 1) == SQLITE_NULL ? nil : sqlite3_column_double(s, 1),
                        charging: Self.int(s, 2).map { $0 != 0 },
                        network: Self.int(s, 3).flatMap { NetworkType(rawValue: Int($0)) },
                        lowPower: Self.int(s, 4).map { $0 != 0 }, screenOn: Self.int(s, 5).map { $0 != 0 }))
            }
            // An app's updates are the same for every user: read once (per `UsageQueries`) and
            // shared, not decoded and held again for each user of the app.
            var updateTimes: [[Instant]] = []
            for row in appRows {
                let app: Int64 = row[0]
                let times: [Instant]
                if before == nil, let cached = contentCache[app] {
                    times = cached
                } else {
                    times = try Instant.fetchAll(
                        db, sql: "SELECT time FROM content_update WHERE app_id = ? AND time < ? ORDER BY time",
                        arguments: [app, end]
                    )
                    if before == nil { contentCache[app] = times }
                }
                updateTimes.append(times)
            }
            return UserHistory(
                user: user, apps: apps, launches: launches, events: events, context: context,
                updateTimes: updateTimes)
        }
    }

    /// Steps `statement` through its rows, handing `body` the raw statement of each.
    static func forEachRow(_ statement: Statement, _ body: (OpaquePointer) -> Void) throws {
        let s = statement.sqliteStatement
        while true {
            let code = sqlite3_step(s)
            if code == SQLITE_DONE { return }
            guard code == SQLITE_ROW else {
                throw DatabaseError(
                    resultCode: ResultCode(rawValue: code),
                    message: String(cString: sqlite3_errmsg(sqlite3_db_handle(s))),
                    sql: statement.sql)
            }
            body(s)
        }
    }

    /// Column `i` of the current row as an integer, nil when NULL.
    @inline(__always) static func int(_ s: OpaquePointer, _ i: Int32) -> Int64? {
        sqlite3_column_type(s, i) == SQLITE_NULL ? nil : sqlite3_column_int64(s, i)
    }

    /// Runs a read, turning database failures into ``StoreError``.
    func read<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try database.writer.read(body)
        } catch {
            throw StoreError(.database, "\(database.path): \(error)")
        }
    }
}
