import FetchLabCore

/// How predictable a population's launches are: launch classes, same-app gaps, sessions, launch
/// rates, regularity, weekday against weekend, hour-of-day entropy and transition concentration,
/// pooled over the users given. Only launches are read, on each launch's local clock. FetchLabPredict
/// computes it (`UsageDescription.describe(_:)`, `UsageDescription.Tally`).
///
/// Percentiles (medians too) interpolate linearly between order statistics: the q-th of n sorted
/// values x₀ … xₙ₋₁ is x at position h = q·(n − 1), between x⌊h⌋ and x⌈h⌉ (numpy's default
/// rule). A statistic with nothing to be computed from is nil; the counts beside it say why.
public struct UsageDescription: Codable, Sendable, Equatable {
    /// The window W: launches at most this far apart (inclusive) belong to one session.
    public static let window: Microseconds = 15 * Microseconds.perMinute
    /// The launches an app needs (per user) to count as a regular app.
    public static let regularMinimumLaunches = 20
    /// The half-width of an app's usual-time window, in minutes (a window holds 2·30 + 1 minutes).
    public static let usualWindowHalfWidth = 30
    /// The most usual-time windows an app gets.
    public static let maximumUsualWindows = 6

    /// Users with at least one launch.
    public var users: Int
    public var launches: Int
    /// Distinct (user, app) pairs with a launch.
    public var apps: Int
    /// Summed over users: the local days from the user's first launch's day to the last's, inclusive.
    public var userDays: Int
    public var classes: LaunchClasses
    /// Gaps between consecutive launches of the same app by the same user, in minutes.
    public var sameAppGaps: GapPercentiles
    public var sessions: SessionSummary
    public var rates: LaunchRates
    public var regularity: Regularity
    public var weekdayWeekend: WeekdayWeekend
    public var hourEntropy: HourEntropy
    public var transitions: Transitions

    /// The shares of launches that start a session cold, return to the same app, or follow another app.
    public struct LaunchClasses: Codable, Sendable, Equatable {
        /// No launch of any app of the user in the W before (the user's first launch is cold).
        public var cold: Int
        /// Not cold, and the same app's previous launch came at most W before.
        public var sameApp: Int
        /// The rest: another app was launched in the W before, this one not.
        public var afterOtherApp: Int
        @NullWhenAbsent public var coldShare: Double?
        @NullWhenAbsent public var sameAppShare: Double?
        @NullWhenAbsent public var afterOtherAppShare: Double?

        public init(
            cold: Int, sameApp: Int, afterOtherApp: Int, coldShare: Double?, sameAppShare: Double?,
            afterOtherAppShare: Double?
        ) {
            self.cold = cold
            self.sameApp = sameApp
            self.afterOtherApp = afterOtherApp
            self.coldShare = coldShare
            self.sameAppShare = sameAppShare
            self.afterOtherAppShare = afterOtherAppShare
        }
    }

    /// Percentiles of a set of durations in minutes; nil when `count` is 0.
    public struct GapPercentiles: Codable, Sendable, Equatable {
        public var count: Int
        @NullWhenAbsent public var p10: Double?
        @NullWhenAbsent public var p25: Double?
        @NullWhenAbsent public var median: Double?
        @NullWhenAbsent public var p75: Double?
        @NullWhenAbsent public var p90: Double?

        public init(count: Int, p10: Double?, p25: Double?, median: Double?, p75: Double?, p90: Double?) {
            self.count = count
            self.p10 = p10
            self.p25 = p25
            self.median = median
            self.p75 = p75
            self.p90 = p90
        }
    }

    /// A user's launches split where consecutive launches (any apps) are more than W apart.
    public struct SessionSummary: Codable, Sendable, Equatable {
        public var count: Int
        @NullWhenAbsent public var appsMean: Double?
        /// The 90th percentile of distinct apps per session (linear interpolation).
        @NullWhenAbsent public var appsP90: Double?
        @NullWhenAbsent public var launchesMean: Double?
        /// Last launch − first launch of a session, in minutes (0 for a one-launch session).
        @NullWhenAbsent public var lengthMedianMinutes: Double?
        @NullWhenAbsent public var lengthP90Minutes: Double?

        public init(
            count: Int, appsMean: Double?, appsP90: Double?, launchesMean: Double?, lengthMedianMinutes: Double?,
            lengthP90Minutes: Double?
        ) {
            self.count = count
            self.appsMean = appsMean
            self.appsP90 = appsP90
            self.launchesMean = launchesMean
            self.lengthMedianMinutes = lengthMedianMinutes
            self.lengthP90Minutes = lengthP90Minutes
        }
    }

    /// Launch rates per day of a user's day span.
    public struct LaunchRates: Codable, Sendable, Equatable {
        /// Apps with at least ``UsageDescription/regularMinimumLaunches`` launches (per user).
        public var regularApps: Int
        /// Median over regular apps of their launches ÷ their user's days.
        @NullWhenAbsent public var perAppDayMedian: Double?
        /// All launches ÷ user-days.
        @NullWhenAbsent public var perUserDay: Double?

        public init(regularApps: Int, perAppDayMedian: Double?, perUserDay: Double?) {
            self.regularApps = regularApps
            self.perAppDayMedian = perAppDayMedian
            self.perUserDay = perUserDay
        }
    }

    /// The share of a regular app's launches inside its usual-time windows.
    public struct Regularity: Codable, Sendable, Equatable {
        public var regularApps: Int
        /// The regular apps' launches inside their windows ÷ all their launches.
        @NullWhenAbsent public var pooledShare: Double?
        @NullWhenAbsent public var medianShare: Double?

        public init(regularApps: Int, pooledShare: Double?, medianShare: Double?) {
            self.regularApps = regularApps
            self.pooledShare = pooledShare
            self.medianShare = medianShare
        }
    }

    /// Launches per weekday against per weekend day (Saturday, Sunday; local).
    public struct WeekdayWeekend: Codable, Sendable, Equatable {
        public var weekdayLaunches: Int
        public var weekendLaunches: Int
        /// Weekdays and weekend days in the users' day spans, summed over users.
        public var weekdays: Int
        public var weekendDays: Int
        @NullWhenAbsent public var perWeekday: Double?
        @NullWhenAbsent public var perWeekendDay: Double?
        /// Per weekend day ÷ per weekday.
        @NullWhenAbsent public var weekendToWeekdayRatio: Double?
        /// Total-variation distance between the weekday and the weekend 24-bin hour-of-day
        /// profiles (pooled over users, each normalised): 0 the same, 1 disjoint.
        @NullWhenAbsent public var hourProfileDistance: Double?

        public init(
            weekdayLaunches: Int, weekendLaunches: Int, weekdays: Int, weekendDays: Int, perWeekday: Double?,
            perWeekendDay: Double?, weekendToWeekdayRatio: Double?, hourProfileDistance: Double?
        ) {
            self.weekdayLaunches = weekdayLaunches
            self.weekendLaunches = weekendLaunches
            self.weekdays = weekdays
            self.weekendDays = weekendDays
            self.perWeekday = perWeekday
            self.perWeekendDay = perWeekendDay
            self.weekendToWeekdayRatio = weekendToWeekdayRatio
            self.hourProfileDistance = hourProfileDistance
        }
    }

    /// Shannon entropy, in bits, of 24-bin local hour-of-day profiles (at most log2 24 ≈ 4.585).
    public struct HourEntropy: Codable, Sendable, Equatable {
        /// Of all launches pooled.
        @NullWhenAbsent public var pooledBits: Double?
        /// The median over regular apps of each app's own profile's entropy.
        @NullWhenAbsent public var regularAppMedianBits: Double?

        public init(pooledBits: Double?, regularAppMedianBits: Double?) {
            self.pooledBits = pooledBits
            self.regularAppMedianBits = regularAppMedianBits
        }
    }

    /// How often the next launch in a session is the app's usual successor.
    public struct Transitions: Codable, Sendable, Equatable {
        /// Consecutive launches (a, b) of a user at most W apart.
        public var pairs: Int
        /// Share of pairs whose b is a's most frequent successor in the user's whole history.
        @NullWhenAbsent public var top1Share: Double?
        /// Share of pairs whose b is among a's 3 most frequent successors.
        @NullWhenAbsent public var top3Share: Double?

        public init(pairs: Int, top1Share: Double?, top3Share: Double?) {
            self.pairs = pairs
            self.top1Share = top1Share
            self.top3Share = top3Share
        }
    }

    public init(
        users: Int, launches: Int, apps: Int, userDays: Int, classes: LaunchClasses, sameAppGaps: GapPercentiles,
        sessions: SessionSummary, rates: LaunchRates, regularity: Regularity, weekdayWeekend: WeekdayWeekend,
        hourEntropy: HourEntropy, transitions: Transitions
    ) {
        self.users = users
        self.launches = launches
        self.apps = apps
        self.userDays = userDays
        self.classes = classes
        self.sameAppGaps = sameAppGaps
        self.sessions = sessions
        self.rates = rates
        self.regularity = regularity
        self.weekdayWeekend = weekdayWeekend
        self.hourEntropy = hourEntropy
        self.transitions = transitions
    }
}
