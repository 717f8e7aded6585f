import FetchLabResults
import GRDB

extension UsageQueries {
    /// The notes on the finished imports and the users they stored.
    public func importNotes() throws(StoreError) -> ImportNotes {
        try read { db in
            let options = try String.fetchAll(
                db,
                sql: "SELECT options FROM import WHERE finished_at IS NOT NULL AND options LIKE ?",
                arguments: ["%\(ReadFingerprint.systemAppRowsKey)%"])
            let dropped = options.reduce(0) {
                $0 + (ReadFingerprint.value(ReadFingerprint.systemAppRowsKey, in: $1).flatMap { Int($0) } ?? 0)
            }
            let unmatched = try String.fetchAll(
                db,
                sql: """
                    SELECT u.name FROM user u
                    WHERE EXISTS (SELECT 1 FROM context_sample c WHERE c.user_id = u.id)
                      AND NOT EXISTS (SELECT 1 FROM usage_event e WHERE e.user_id = u.id AND e.kind = 0)
                    ORDER BY u.name
                    """)
            return ImportNotes(systemAppRowsDropped: dropped, unmatchedContextUsers: unmatched)
        }
    }
}
