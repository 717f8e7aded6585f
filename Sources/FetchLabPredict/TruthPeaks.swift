import FetchLabCore

/// A routine habit's true time on a local day, for checking recovered habit times.
public struct TruePeak: Sendable, Equatable {
    public var app: Int32
    public var minute: Double
    public init(app: Int32, minute: Double) {
        self.app = app
        self.minute = minute
    }
}

/// The true routine times of a generated population, by user and local day: what the evaluator
/// checks the midnight plans against. Built from a decoded truth file (reading it is the caller's).
public struct TruthPeaks: Sendable {
    /// A user's habitual routine times on a day counted from the log's first day (weekend or
    /// not): each app's name and the local minute of the day.
    public typealias Routine = @Sendable (_ day: Int, _ weekend: Bool) -> [(app: String, minute: Double)]

    /// The log's first local day (days since 1970).
    public let startDay: Int
    private let users: [String: Routine]

    /// `users` by name; the first of two users with one name wins.
    public init(startDay: Int, users: [(name: String, routine: Routine)]) {
        self.startDay = startDay
        self.users = Dictionary(users.map { ($0.name, $0.routine) }, uniquingKeysWith: { first, _ in first })
    }

    /// The routine times of `user` on local day `day` (days since 1970), as indices into `apps`
    /// (apps not in the list are left out).
    public func peaks(user: String, day: Int, apps: [String]) -> [TruePeak] {
        guard let routine = users[user] else { return [] }
        return routine(day - startDay, LocalCalendar.isWeekend(day)).compactMap { p in
            apps.firstIndex(of: p.app).map { TruePeak(app: Int32($0), minute: p.minute) }
        }
    }

    /// The evaluator's truth function for `histories`: apps numbered as in each history.
    public func function(for histories: [UserHistory]) -> @Sendable (String, Int) -> [TruePeak] {
        let apps = Dictionary(
            histories.map { ($0.user.name, $0.apps.map(\.name)) }, uniquingKeysWith: { first, _ in first })
        return { user, day in peaks(user: user, day: day, apps: apps[user] ?? []) }
    }
}
