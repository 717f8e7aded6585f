import FetchLabCore
import Foundation

/// How new content for an app appears on its server (global: the same for every user).
public struct ContentProcess: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
        /// Every `minMinutes`…`maxMinutes` between `activeFrom` and `activeTo` (local minutes of
        /// the publisher's zone), every `nightMinutes` outside.
        case interval
        /// At random, `meanMinutes` apart on average (continuous feeds, mail).
        case poisson
        /// Daily at each of `minutes` (local), give or take `jitterMinutes`.
        case daily
        /// At the start of every hour (UTC).
        case hourly
        /// Weekly on `weekday` (1 = Sunday … 7 = Saturday) at `minutes[0]` (local).
        case weekly
    }

    public var kind: Kind
    public var timeZone = "UTC"
    public var minMinutes: Double?
    public var maxMinutes: Double?
    public var activeFrom: Int?
    public var activeTo: Int?
    public var nightMinutes: Double?
    public var meanMinutes: Double?
    public var minutes: [Int]?
    public var jitterMinutes: Double?
    public var weekday: Int?

    /// Updates per day this process produces on average (for checks and the documentation).
    public var expectedPerDay: Double {
        switch kind {
        case .interval:
            let day = Double((activeTo ?? 1440) - (activeFrom ?? 0))
            let mean = ((minMinutes ?? 30) + (maxMinutes ?? 30)) / 2
            return day / mean + (1440 - day) / (nightMinutes ?? 1e9)
        case .poisson: return 1440 / (meanMinutes ?? 60)
        case .daily: return Double(minutes?.count ?? 1)
        case .hourly: return 24
        case .weekly: return 1.0 / 7
        }
    }
}

/// What kind of habit a user has with an app.
public enum HabitKind: String, Codable, Sendable {
    /// Clock-like: at set times of day (peaks).
    case routine
    /// Checked on a prompt (a notification) several times a day: each opens a session.
    case burst
    /// At random times while awake.
    case irregular
}

/// One time-of-day peak of a routine habit, in the user's local time.
public struct Peak: Codable, Sendable, Equatable {
    /// Local minute of day on weekdays, on day 0 (before drift).
    public var minute: Double
    /// "HH:MM" of `minute`, for people reading the file.
    public var time: String
    /// Standard deviation of the launch time around the peak, minutes.
    public var spreadMinutes: Double
    /// Probability of a launch on a weekday (outside vacations).
    public var probability: Double
    /// Weekdays only: no launch from this peak on Saturdays and Sundays.
    public var weekdayOnly: Bool
    /// Local minute on weekend days (people start later) and its probability.
    public var weekendMinute: Double?
    public var weekendProbability: Double
    /// How far the peak moves per week (minutes; negative = earlier).
    public var driftMinutesPerWeek: Double

    /// Where the peak is on day `day` (weekend or not), drift included.
    public func expectedMinute(day: Int, weekend: Bool) -> Double? {
        if weekend && weekdayOnly { return nil }
        let base = weekend ? (weekendMinute ?? minute) : minute
        return base + driftMinutesPerWeek * Double(day) / 7
    }
}

/// App B habitually right after app A.
public struct Follow: Codable, Sendable, Equatable {
    public var after: String
    public var probability: Double
    /// Mean delay after A's launch, minutes.
    public var delayMinutes: Double
}

/// An app a user habitually opens next, and how likely.
public struct NextApp: Codable, Sendable, Equatable {
    public var app: String
    public var probability: Double
}

/// One user's habit with one app.
public struct AppHabit: Codable, Sendable, Equatable {
    public var app: String
    public var kind: HabitKind
    public var peaks: [Peak] = []
    /// Burst habits: sessions a day this app opens on a prompt (a notification).
    public var burstsPerDay: Double?
    /// Irregular habits: sessions a day this app opens at random waking times.
    public var ratePerDay: Double?
    public var follows: Follow?
    /// Mean time in the foreground per launch, minutes.
    public var sessionMinutes: Double
    /// How often a session started from idle time opens with this app (relative weight).
    public var entryWeight: Double?
    /// Within a session, the apps this user opens after this one, with probabilities summing to
    /// 1 (used when the session goes on to a new app; ``Follow`` comes first).
    public var next: [NextApp]?

    public init(
        app: String, kind: HabitKind, peaks: [Peak] = [], burstsPerDay: Double? = nil, ratePerDay: Double? = nil,
        follows: Follow? = nil, sessionMinutes: Double, entryWeight: Double? = nil, next: [NextApp]? = nil
    ) {
        self.app = app
        self.kind = kind
        self.peaks = peaks
        self.burstsPerDay = burstsPerDay
        self.ratePerDay = ratePerDay
        self.follows = follows
        self.sessionMinutes = sessionMinutes
        self.entryWeight = entryWeight
        self.next = next
    }
}

/// A time of day around which a user's idle-time sessions cluster.
public struct RhythmPeak: Codable, Sendable, Equatable {
    /// Local minute of the day (on weekends the morning peak moves with the later wake).
    public var minute: Double
    public var spreadMinutes: Double
    public var weight: Double
}

/// How a user moves through their phone: sessions of several apps in a row. Absent (hand-made
/// personas): every launch is its own session, save the ``Follow`` habits.
public struct SessionHabits: Codable, Sendable, Equatable {
    /// Sessions a day started from idle time (besides routines, prompts and follow-ups).
    public var idleSessionsPerDay: Double
    /// After each launch in a session, the chance that another launch follows.
    public var continueProbability: Double
    /// When the session goes on, the chance it goes back to an app already used in it.
    public var returnProbability: Double
    /// Mean pause between leaving one app and opening the next, seconds.
    public var switchSeconds: Double
    /// The chance that a session is followed by another one soon, and the median wait (minutes;
    /// log-normal, `followUpSpread` its log standard deviation).
    public var followUpProbability: Double
    public var followUpMinutes: Double
    public var followUpSpread: Double
    /// Times of day idle sessions and answered prompts cluster around.
    public var rhythm: [RhythmPeak]
}

/// Days `[start, end)` counted from the first day of the log.
public struct DayRange: Codable, Sendable, Equatable {
    public var start: Int
    public var end: Int
    public func contains(_ day: Int) -> Bool { day >= start && day < end }
}

/// A journey to another zone: on these days the user's clock is `timeZone`'s.
public struct Trip: Codable, Sendable, Equatable {
    public var days: DayRange
    public var timeZone: String
}

/// Background App Refresh switched off for `app` on `days`.
public struct RefreshOff: Codable, Sendable, Equatable {
    public var app: String
    public var days: DayRange
}

/// Everything the generator decided about one user: the truth that their logs were drawn from.
public struct UserTruth: Codable, Sendable, Equatable {
    public var name: String
    public var timeZone: String
    public var wakeMinute: Int
    public var weekendWakeMinute: Int
    public var sleepMinute: Int
    /// Goes to work on weekdays (commute on cellular, work on Wi-Fi unless `cellularAtWork`).
    public var works: Bool
    public var leaveHomeMinute: Int
    public var arriveWorkMinute: Int
    public var leaveWorkMinute: Int
    public var arriveHomeMinute: Int
    public var cellularAtWork: Bool
    /// Low Power Mode turns on below this battery percentage (nil: never).
    public var lowPowerThreshold: Double?
    public var daytimeChargeProbability: Double
    /// Battery drain with the screen on, percent per minute.
    public var screenDrainPerMinute: Double
    public var vacation: DayRange?
    public var trip: Trip?
    public var offDays: [Int]
    public var refreshOff: RefreshOff?
    public var apps: [AppHabit]
    /// Multi-app sessions (nil: single-app sessions).
    public var sessions: SessionHabits? = nil
    /// What the signals were (nil: the population has none; see `PopulationConfig.unlockProbability`).
    public var signals: SignalTruth? = nil
}

/// A user's signals as simulated: sessions (a launch after more than a minute with the screen
/// off), those opened by an unlock (the screen on just before), launches prompted by a
/// notification, sessions with no signal before them, and the notifications and glances no
/// launch followed.
public struct SignalTruth: Codable, Sendable, Equatable {
    public var sessions = 0
    public var unlockedSessions = 0
    public var notifiedLaunches = 0
    public var sessionsWithoutSignal = 0
    public var spuriousNotifications = 0
    public var glances = 0

    public init() {}
}

/// A truth file as `fetchlab generate` writes it: the parts a reader needs.
public struct TruthFile: Decodable, Sendable {
    public struct Generated: Decodable, Sendable {
        public var command: String
        public var start: String
    }
    public var generator: Generated
    public var users: [UserTruth]

    /// The first local day (days since 1970), or nil when `start` is not a date.
    public var startDay: Int? { CivilDate(generator.start)?.daysSince1970 }
}

extension UserTruth {
    /// The habitual routine times of a local day (`day` counted from the log's first day): every
    /// routine peak at least `minimumProbability` likely that day, at its drifted time. Days off,
    /// vacation days and trip days with the day before and after (travel) have none.
    public func routinePeaks(onDay day: Int, weekend: Bool, minimumProbability: Double = 0.5)
        -> [(app: String, minute: Double)]
    {
        if offDays.contains(day) || (vacation?.contains(day) ?? false) { return [] }
        if let t = trip, day >= t.days.start - 1 && day <= t.days.end + 1 { return [] }
        var out: [(app: String, minute: Double)] = []
        for habit in apps where habit.kind == .routine {
            for peak in habit.peaks {
                guard (weekend ? peak.weekendProbability : peak.probability) >= minimumProbability,
                    let minute = peak.expectedMinute(day: day, weekend: weekend), minute >= 0 && minute < 1440
                else { continue }
                out.append((habit.app, minute))
            }
        }
        return out
    }
}
