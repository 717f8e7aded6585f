import FetchLabCore
import Foundation
import GRDB

/// One user's launches as stored: UTC time, the UTC offset the log gave (nil when none), and the
/// app as an index into `apps` (sorted by name).
public struct StoredLaunches: Sendable {
    public var user: String
    public var apps: [String]
    public var times: [Microseconds]
    public var offsets: [Int32?]
    public var appIndices: [Int32]
}

extension UsageQueries {
    /// The names of users with at least one launch, sorted.
    public func usersWithLaunches() throws(StoreError) -> [String] {
        do {
            return try database.writer.read { db in
                try String.fetchAll(
                    db,
                    sql: """
                        SELECT u.name FROM user u
                        WHERE EXISTS (SELECT 1 FROM usage_event e WHERE e.user_id = u.id AND e.kind = 0)
                        ORDER BY u.name
                        """)
            }
        } catch {
            throw StoreError(.database, "\(database.path): \(error)")
        }
    }

    /// A user's launches in time order (only those before `before`, when given), or nil when the
    /// user is unknown.
    public func launches(user: String, before: Microseconds? = nil) throws(StoreError) -> StoredLaunches? {
        do {
            return try database.writer.read { db -> StoredLaunches? in
                guard let userID = try Int64.fetchOne(db, sql: "SELECT id FROM user WHERE name = ?", arguments: [user])
                else { return nil }
                var appIndex: [Int64: Int32] = [:]
                var apps: [String] = []
                let appRows = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT a.id, a.name FROM app a
                        WHERE a.id IN (SELECT DISTINCT app_id FROM usage_event WHERE user_id = ? AND kind = 0)
                        ORDER BY a.name
                        """, arguments: [userID])
                for row in appRows {
                    appIndex[row[0]] = Int32(apps.count)
                    apps.append(row[1])
                }
                var rows: [(Microseconds, Int32?, Int32)] = []
                let cursor = try Row.fetchCursor(
                    db,
                    sql: "SELECT app_id, time, utc_offset FROM usage_event WHERE user_id = ? AND kind = 0 AND time < ?",
                    arguments: [userID, before ?? Int64.max])
                while let row = try cursor.next() {
                    let app: Int64 = row[0]
                    rows.append((row[1], (row[2] as Int64?).map { Int32($0) }, appIndex[app] ?? 0))
                }
                rows.sort { $0.0 < $1.0 }
                return StoredLaunches(
                    user: user, apps: apps, times: rows.map(\.0), offsets: rows.map(\.1), appIndices: rows.map(\.2))
            }
        } catch {
            throw StoreError(.database, "\(database.path): \(error)")
        }
    }
}
