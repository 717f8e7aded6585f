import FetchLabCore
import FetchLabIngest
import FetchLabResults
import GRDB

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
                let first: Instant = row[2]
                let last: Instant = row[3]
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

extension UsageQueries {
    /// Per user of the context samples import `id` stored (sorted by name): the samples' span and
    /// the user's launches' span.
    public func contextOverlap(ofImport id: Int64) throws(StoreError) -> [ContextOverlap] {
        try read { db in
            let launch = UsageEventKind.launch.rawValue
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT u.name, MIN(c.time), MAX(c.time),
                           (SELECT MIN(e.time) FROM usage_event e WHERE e.user_id = c.user_id AND e.kind = \(launch)),
                           (SELECT MAX(e.time) FROM usage_event e WHERE e.user_id = c.user_id AND e.kind = \(launch))
                    FROM context_sample c JOIN user u ON u.id = c.user_id
                    WHERE c.import_id = ?
                    GROUP BY c.user_id
                    ORDER BY u.name
                    """, arguments: [id])
            return rows.map { row in
                let first: Instant? = row[3]
                let last: Instant? = row[4]
                let launches = first.flatMap { f in last.map { f...max(f, $0) } }
                return ContextOverlap(user: row[0], firstSample: row[1], lastSample: row[2], launches: launches)
            }
        }
    }

    /// The first and last launch of every user in the database; nil when there is none.
    public func launchSpan() throws(StoreError) -> ClosedRange<Instant>? {
        try read { db in
            let row = try Row.fetchOne(
                db,
                sql: "SELECT MIN(time), MAX(time) FROM usage_event WHERE kind = \(UsageEventKind.launch.rawValue)")
            let first: Instant? = row?[0]
            let last: Instant? = row?[1]
            guard let first, let last else { return nil }
            return first...max(first, last)
        }
    }
}
