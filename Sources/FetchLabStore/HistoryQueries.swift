import FetchLabCore
import Foundation
import GRDB

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

    /// A user's history: launches and other usage events, context samples and the content updates
    /// of the user's apps, each in time order; only what happened before `before`, when given. Nil
    /// when the user is unknown. Apps are those the user launched or has events of, sorted by name.
    public func history(of user: UserID, before: Microseconds? = nil) throws(StoreError) -> UserHistory? {
        try read { db -> UserHistory? in
            guard
                let userID = try Int64.fetchOne(db, sql: "SELECT id FROM user WHERE name = ?", arguments: [user.name])
            else { return nil }
            let end = before ?? .max
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
            var launches: [UsageEvent] = []
            var events: [UsageEvent] = []
            let usage = try Row.fetchCursor(
                db,
                sql: "SELECT app_id, time, utc_offset, kind FROM usage_event WHERE user_id = ? AND time < ?",
                arguments: [userID, end])
            while let row = try usage.next() {
                let app: Int64 = row[0]
                let kind = UsageEventKind(rawValue: row[3]) ?? .launch
                let event = UsageEvent(
                    time: row[1], user: 0, app: appIndex[app] ?? 0, kind: kind,
                    utcOffset: (row[2] as Int64?).map { Int32($0) })
                if kind == .launch { launches.append(event) } else { events.append(event) }
            }
            let context = try Row.fetchAll(
                db,
                sql: """
                    SELECT time, battery, charging, network, low_power, screen_on FROM context_sample
                    WHERE user_id = ? AND time < ? ORDER BY time
                    """, arguments: [userID, end]
            ).map { row in
                ContextSample(
                    time: row[0], battery: row[1], charging: row[2],
                    network: (row[3] as Int?).flatMap(NetworkType.init(rawValue:)), lowPower: row[4],
                    screenOn: row[5])
            }
            var updates: [ContentUpdate] = []
            if !appIndex.isEmpty {
                let list = appIndex.keys.sorted().map(String.init).joined(separator: ",")
                let rows = try Row.fetchCursor(
                    db,
                    sql: "SELECT app_id, time FROM content_update WHERE app_id IN (\(list)) AND time < ?",
                    arguments: [end])
                while let row = try rows.next() {
                    let app: Int64 = row[0]
                    if let index = appIndex[app] { updates.append(ContentUpdate(time: row[1], app: index)) }
                }
            }
            return UserHistory(
                user: user, apps: apps, launches: launches, events: events, context: context, contentUpdates: updates)
        }
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
