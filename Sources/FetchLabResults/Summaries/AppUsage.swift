import FetchLabCore

/// How one user uses one app, for `fetchlab inspect`.
public struct AppUsage: Sendable, Codable, Hashable {
    public var user: String
    public var app: String
    public var launches: Int
    /// First and last launch.
    public var firstLaunch: Instant
    public var lastLaunch: Instant
    /// The local dates (YYYY-MM-DD) of the first and last launch.
    public var firstDay = ""
    public var lastDay = ""
    /// Calendar days from the first to the last launch, both included (local days).
    public var daysCovered: Int
    /// Days with at least one launch.
    public var activeDays: Int
    /// Launches per covered day.
    public var launchesPerDay: Double
    /// Launches in each local hour of the day, 0–23.
    public var hourly: [Int]
    /// Whether the hours are local (the log carried offsets or a time zone) or UTC.
    public var localTime: Bool

    public init(
        user: String, app: String, launches: Int, firstLaunch: Instant, lastLaunch: Instant,
        firstDay: String = "", lastDay: String = "", daysCovered: Int, activeDays: Int, launchesPerDay: Double,
        hourly: [Int], localTime: Bool
    ) {
        self.user = user
        self.app = app
        self.launches = launches
        self.firstLaunch = firstLaunch
        self.lastLaunch = lastLaunch
        self.firstDay = firstDay
        self.lastDay = lastDay
        self.daysCovered = daysCovered
        self.activeDays = activeDays
        self.launchesPerDay = launchesPerDay
        self.hourly = hourly
        self.localTime = localTime
    }
}
