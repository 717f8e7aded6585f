import FetchLabCore
import FetchLabResults
import Foundation
import GRDB
import Synchronization

/// Read-only questions about what is stored.
public struct UsageQueries: Sendable {
    public let database: FetchLabDatabase
    /// Each app's content-update times, read once by ``history(of:before:)`` and shared by every
    /// history of this value's users (a command reads a database that does not change under it).
    let contentCache = ContentCache()

    public init(database: FetchLabDatabase) { self.database = database }

    /// SQL for ⌊`x` / `d`⌋ (`d` > 0). SQLite's `/` rounds toward zero, which would put an instant
    /// before 1970 in the second, hour or day after its own (and give a negative hour of the day).
    static func floorDivision(_ x: String, by d: Int64) -> String {
        "(((\(x)) - (((\(x)) % \(d)) + \(d)) % \(d)) / \(d))"
    }

    /// YYYY-MM-DD of a day count since 1970.
    static func date(_ day: Int) -> String { CivilDate(daysSince1970: day).description }

    /// `YYYY-MM-DDTHH:MM:SSZ` of an instant.
    static func utc(_ time: Instant) -> String { ISO8601.string(time, offset: 0, style: .logFile) }

    /// The names of the apps the database knows.
    public func appNames() throws(StoreError) -> Set<String> {
        do {
            return Set(try database.writer.read { try String.fetchAll($0, sql: "SELECT name FROM app") })
        } catch let error as DatabaseError {
            throw database.storeError(error, while: "reading the apps")
        } catch {
            throw StoreError(.database, "\(database.path): \(error)")
        }
    }

    /// UsageEvent statistics per user and app, optionally for one user or one app.
    public func appUsage(user: String? = nil, app: String? = nil) throws(StoreError) -> [AppUsage] {
        do {
            return try database.writer.read { db in
                var filters = ["e.kind = 0"]
                var arguments: StatementArguments = []
                if let user {
                    filters.append("u.name = ?")
                    arguments += [user]
                }
                if let app {
                    filters.append("a.name = ?")
                    arguments += [app]
                }
                let localSeconds =
                    "(\(Self.floorDivision("e.time", by: Microseconds.perSecond.value)) + COALESCE(e.utc_offset, 0))"
                let hours = Self.floorDivision(localSeconds, by: Seconds.perHour)
                let sql = """
                    SELECT u.name, a.name, \(Self.floorDivision(localSeconds, by: Seconds.perDay)) AS day,
                           ((\(hours)) % 24 + 24) % 24 AS hour,
                           COUNT(*), MIN(e.time), MAX(e.time), MAX(e.utc_offset IS NOT NULL)
                    FROM usage_event e JOIN user u ON u.id = e.user_id JOIN app a ON a.id = e.app_id
                    WHERE \(filters.joined(separator: " AND "))
                    GROUP BY e.user_id, e.app_id, day, hour
                    ORDER BY u.name, a.name
                    """
                var result: [AppUsage] = []
                var minDay = 0
                var maxDay = 0
                var days = Set<Int>()
                func close() {
                    guard var last = result.popLast() else { return }
                    last.daysCovered = maxDay - minDay + 1
                    last.firstDay = Self.date(minDay)
                    last.lastDay = Self.date(maxDay)
                    last.activeDays = days.count
                    last.launchesPerDay = Double(last.launches) / Double(max(1, last.daysCovered))
                    result.append(last)
                }
                let rows = try Row.fetchCursor(db, sql: sql, arguments: arguments)
                while let row = try rows.next() {
                    let (userName, appName): (String, String) = (row[0], row[1])
                    let day: Int = row[2]
                    let hour: Int = row[3]
                    let count: Int = row[4]
                    if result.last?.user != userName || result.last?.app != appName {
                        close()
                        result.append(
                            AppUsage(
                                user: userName, app: appName, launches: 0, firstLaunch: .distantFuture,
                                lastLaunch: .distantPast,
                                daysCovered: 0, activeDays: 0, launchesPerDay: 0,
                                hourly: Array(repeating: 0, count: 24), localTime: false))
                        minDay = .max
                        maxDay = .min
                        days.removeAll(keepingCapacity: true)
                    }
                    let i = result.count - 1
                    result[i].launches += count
                    result[i].hourly[hour] += count
                    result[i].firstLaunch = min(result[i].firstLaunch, row[5])
                    result[i].lastLaunch = max(result[i].lastLaunch, row[6])
                    result[i].localTime = result[i].localTime || row[7] as Bool
                    minDay = min(minDay, day)
                    maxDay = max(maxDay, day)
                    days.insert(day)
                }
                close()
                return result
            }
        } catch {
            throw StoreError(.database, "\(database.path): \(error)")
        }
    }

    /// Totals of what is stored, for summaries.
    public func totals() throws(StoreError) -> [String: Int] {
        do {
            return try database.writer.read { db in
                var totals: [String: Int] = [:]
                for table in [
                    "user", "app", "usage_event", "context_sample", "content_update", "import", "rejected_row",
                ] {
                    totals[table] = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table)") ?? 0
                }
                return totals
            }
        } catch {
            throw StoreError(.database, "\(database.path): \(error)")
        }
    }
}

/// Content-update times by app id, shared between threads reading histories.
final class ContentCache: Sendable {
    private let times = Mutex<[Int64: [Instant]]>([:])

    subscript(app: Int64) -> [Instant]? {
        get { times.withLock { $0[app] } }
        set { times.withLock { $0[app] = newValue } }
    }
}
