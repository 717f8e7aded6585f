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
