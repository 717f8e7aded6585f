import FetchLabCore
import FetchLabResults
import GRDB

extension UsageQueries {
    /// The signal events stored, per kind: of every user, or only of `users` (by name) when given.
    public func signalCounts(users: [String] = []) throws(StoreError) -> SignalCounts {
        try read { db in
            var sql = "SELECT kind, COUNT(*), COUNT(DISTINCT user_id) FROM usage_event WHERE kind >= ?"
            var arguments: StatementArguments = [UsageEventKind.unlock.rawValue]
            if !users.isEmpty {
                sql +=
                    " AND user_id IN (SELECT id FROM user WHERE name IN (\(Array(repeating: "?", count: users.count).joined(separator: ","))))"
                arguments += StatementArguments(users)
            }
            sql += " GROUP BY kind"
            var counts = SignalCounts()
            for row in try Row.fetchAll(db, sql: sql, arguments: arguments) {
                guard let kind = UsageEventKind(rawValue: row[0]), kind.isSignal else { continue }
                counts[kind] = SignalCounts.Tally(events: row[1], users: row[2])
            }
            return counts
        }
    }
}
