import GRDB

/// What the database's imports left out or could not link, for `fetchlab inspect`: rows of system
/// apps dropped by default, and context samples of users (devices) with no launches.
public struct ImportNotes: Sendable, Codable, Hashable {
    /// Rows of system apps the imports dropped: `android` and the logger in foreground logs (whose
    /// launcher and system-UI rows are signals), every system app in usagestats dumps
    /// (`--keep-system-apps` keeps them as launches).
    public var systemAppRowsDropped: Int
    /// Users (devices) with context samples but no launch, by name: no replay reads their
    /// samples (context is matched to launches by user name).
    public var unmatchedContextUsers: [String]

    public init(systemAppRowsDropped: Int = 0, unmatchedContextUsers: [String] = []) {
        self.systemAppRowsDropped = systemAppRowsDropped
        self.unmatchedContextUsers = unmatchedContextUsers
    }

    /// Nothing to say.
    public var isEmpty: Bool { systemAppRowsDropped == 0 && unmatchedContextUsers.isEmpty }
}

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
