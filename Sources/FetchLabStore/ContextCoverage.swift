import FetchLabCore
import FetchLabIngest
import GRDB

/// How well one user's device context is covered, for `fetchlab inspect`.
///
/// Shares are of the samples that recorded the field (a log may leave any field out); nil when
/// none did.
public struct ContextCoverage: Sendable, Codable, Hashable {
    public var user: String
    public var samples: Int
    /// First and last sample (UTC, microseconds) and the same as `YYYY-MM-DDTHH:MM:SSZ`.
    public var firstSample: Microseconds
    public var lastSample: Microseconds
    public var first: String
    public var last: String
    /// UTC calendar days from the first to the last sample, both included.
    public var daysCovered: Int
    /// Samples that said whether the device was charging, and the share that said it was.
    public var chargingKnown: Int
    public var chargingShare: Double?
    /// Samples that named the network, and the shares on wifi, cellular and none.
    public var networkKnown: Int
    public var wifiShare: Double?
    public var cellularShare: Double?
    public var noNetworkShare: Double?
    /// Samples that said whether low-power mode was on, and the share with it on.
    public var lowPowerKnown: Int
    public var lowPowerShare: Double?
}

extension UsageQueries {
    /// Context-sample coverage per user (sorted by name), optionally for one user.
    public func contextCoverage(user: String? = nil) throws(StoreError) -> [ContextCoverage] {
        try read { db in
            var filter = ""
            var arguments: StatementArguments = []
            if let user {
                filter = "WHERE u.name = ?"
                arguments += [user]
            }
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT u.name, COUNT(*), MIN(c.time), MAX(c.time),
                           COUNT(c.charging), COALESCE(SUM(c.charging = 1), 0),
                           COUNT(c.network), COALESCE(SUM(c.network = \(NetworkType.wifi.rawValue)), 0),
                           COALESCE(SUM(c.network = \(NetworkType.cellular.rawValue)), 0),
                           COALESCE(SUM(c.network = \(NetworkType.none.rawValue)), 0),
                           COUNT(c.low_power), COALESCE(SUM(c.low_power = 1), 0)
                    FROM context_sample c JOIN user u ON u.id = c.user_id
                    \(filter)
                    GROUP BY c.user_id
                    ORDER BY u.name
                    """, arguments: arguments)
            return rows.map { row in
                func share(_ part: Int, of whole: Int) -> Double? { whole > 0 ? Double(part) / Double(whole) : nil }
                let first: Microseconds = row[2]
                let last: Microseconds = row[3]
                let (chargingKnown, networkKnown, lowPowerKnown): (Int, Int, Int) = (row[4], row[6], row[10])
                return ContextCoverage(
                    user: row[0], samples: row[1], firstSample: first, lastSample: last, first: Self.utc(first),
                    last: Self.utc(last),
                    daysCovered: LocalCalendar.day(last, offset: 0) - LocalCalendar.day(first, offset: 0) + 1,
                    chargingKnown: chargingKnown, chargingShare: share(row[5], of: chargingKnown),
                    networkKnown: networkKnown, wifiShare: share(row[7], of: networkKnown),
                    cellularShare: share(row[8], of: networkKnown), noNetworkShare: share(row[9], of: networkKnown),
                    lowPowerKnown: lowPowerKnown, lowPowerShare: share(row[11], of: lowPowerKnown))
            }
        }
    }

    /// The recorded imports, oldest first.
    public func imports() throws(StoreError) -> [ImportRecord] {
        try read { db in try ImportRecord.order(ImportRecord.Columns.id).fetchAll(db) }
    }

    /// The first `limit` rejects of an import, by line.
    public func rejects(ofImport id: Int64, limit: Int = 10) throws(StoreError) -> [RejectedRow] {
        typealias C = RejectedRowRecord.Columns
        return try read { db in
            try RejectedRowRecord.filter(C.importID == id).order(C.line, C.id).limit(limit).fetchAll(db)
        }.map(\.rejectedRow)
    }
}
