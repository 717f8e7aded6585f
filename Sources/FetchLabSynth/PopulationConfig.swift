import Foundation

/// Every parameter of a synthetic population, with defaults. `fetchlab generate --print-config`
/// prints them as JSON; `--config FILE` reads a JSON object overriding any of them.
public struct PopulationConfig: Codable, Sendable, Equatable {
    /// A range of integers, both ends included.
    public struct IntRange: Codable, Sendable, Equatable {
        public var min: Int
        public var max: Int
        public init(_ min: Int, _ max: Int) {
            self.min = min
            self.max = max
        }
    }

    /// A range of numbers, both ends included.
    public struct DoubleRange: Codable, Sendable, Equatable {
        public var min: Double
        public var max: Double
        public init(_ min: Double, _ max: Double) {
            self.min = min
            self.max = max
        }
    }

    /// IANA zones users live in, with weights.
    public var timeZones: [String: Double] = [
        "Europe/Berlin": 3, "America/New_York": 3, "America/Los_Angeles": 2, "Europe/London": 2,
        "Asia/Kolkata": 2, "Asia/Tokyo": 1, "Australia/Sydney": 1, "America/Sao_Paulo": 1,
    ]
    /// Apps per user (from the catalog).
    public var appsPerUser = IntRange(8, 14)
    /// Share of a user's clock-type apps (news, weather, mail…) they open by the clock (routine
    /// peaks); with the others they have no fixed times.
    public var routineShare = 0.5
    /// Share of routine habits that happen on weekdays only.
    public var weekdayOnlyShare = 0.3
    /// Share of routine habits that drift; how far they move per week (minutes, either way).
    public var driftShare = 0.15
    public var driftMinutesPerWeek = IntRange(20, 90)
    /// Share of users with a vacation; its length in days (routines pause, the user wakes later).
    public var vacationShare = 0.3
    public var vacationDays = IntRange(4, 10)
    /// Probability that a given day has no phone use at all.
    public var offDayProbability = 0.02
    /// Share of users who travel to another time zone; the trip's length in days.
    public var tripShare = 0.1
    public var tripDays = IntRange(3, 8)
    /// Share of users whose phone enters Low Power Mode below `lowPowerThreshold` percent.
    public var lowPowerShare = 0.3
    public var lowPowerThreshold = 20.0
    /// Probability of charging during a workday (at the desk), besides overnight.
    public var daytimeChargeProbability = 0.25
    /// Probability that a session ends with a force-quit rather than a close.
    public var forceQuitProbability = 0.03
    /// Share of users who switch Background App Refresh off for one app for a while.
    public var refreshOffShare = 0.1
    public var refreshOffDays = IntRange(5, 20)
    /// Share of users with a habitual sequence (app B right after app A).
    public var sequenceShare = 0.6
    /// Multi-app sessions, each user's drawn from these ranges (see ``SessionHabits``): sessions a
    /// day from idle time; after each launch, the chance the session goes on; when it goes on, the
    /// chance it returns to an app already used; the mean pause between apps (seconds); the chance
    /// of a follow-up session soon after, and its median wait (minutes).
    public var idleSessionsPerDay = DoubleRange(0.5, 1.5)
    public var continueProbability = DoubleRange(0.6, 0.72)
    public var returnProbability = DoubleRange(0.3, 0.5)
    public var switchSeconds = DoubleRange(10, 40)
    public var followUpProbability = DoubleRange(0.45, 0.65)
    public var followUpMinutes = DoubleRange(12, 30)
    /// How habitual each user's app-to-app transitions are: the log-normal spread of the weights
    /// (0: everyone moves by the apps' popularity alone; larger: fewer, stronger habits).
    public var transitionSpread = 1.2
    /// Multiplies every app's prompt (burst) and random (irregular) sessions a day.
    public var promptRateScale = 0.25
    /// Probability per day of a stretch without network (a subway, a dead zone).
    public var noNetworkProbability = 0.15
    /// Share of users whose workplace has no Wi-Fi for them (cellular at work).
    public var cellularAtWorkShare = 0.3
    /// Device-context samples: every this many minutes, and at every change of charging,
    /// network or Low Power Mode.
    public var contextIntervalMinutes = 60
    /// Signals that precede use (all off by default; they never change the launches): the chance
    /// a session (a launch after more than a minute with the screen off) starts with the screen
    /// turning on and an unlock a few seconds before its first launch; the chance its first launch
    /// was prompted by a notification for that app 1–10 minutes before; notifications a day that
    /// no launch follows (for a random app of the user's); screen-on glances a day with no launch.
    public var unlockProbability = 0.0
    public var notificationProbability = 0.0
    public var spuriousNotificationsPerDay = 0.0
    public var glancesPerDay = 0.0

    public init() {}

    /// The defaults with signals on (`fetchlab generate --signals`): unlocks before 80 % of
    /// sessions, a notification before 25 % of session-opening launches, 3 notifications and 4
    /// glances a day that no launch follows.
    public static var withSignals: PopulationConfig {
        var c = PopulationConfig()
        c.unlockProbability = 0.8
        c.notificationProbability = 0.25
        c.spuriousNotificationsPerDay = 3
        c.glancesPerDay = 4
        return c
    }

    /// Whether the population carries signals (unlocks, screen-on, notifications).
    public var hasSignals: Bool {
        unlockProbability > 0 || notificationProbability > 0 || spuriousNotificationsPerDay > 0 || glancesPerDay > 0
    }

    public init(from decoder: any Decoder) throws {
        // Every key is optional: a config file names only what it changes.
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = PopulationConfig()
        timeZones = try c.decodeIfPresent([String: Double].self, forKey: .timeZones) ?? d.timeZones
        appsPerUser = try c.decodeIfPresent(IntRange.self, forKey: .appsPerUser) ?? d.appsPerUser
        routineShare = try c.decodeIfPresent(Double.self, forKey: .routineShare) ?? d.routineShare
        weekdayOnlyShare = try c.decodeIfPresent(Double.self, forKey: .weekdayOnlyShare) ?? d.weekdayOnlyShare
        driftShare = try c.decodeIfPresent(Double.self, forKey: .driftShare) ?? d.driftShare
        driftMinutesPerWeek =
            try c.decodeIfPresent(IntRange.self, forKey: .driftMinutesPerWeek) ?? d.driftMinutesPerWeek
        vacationShare = try c.decodeIfPresent(Double.self, forKey: .vacationShare) ?? d.vacationShare
        vacationDays = try c.decodeIfPresent(IntRange.self, forKey: .vacationDays) ?? d.vacationDays
        offDayProbability = try c.decodeIfPresent(Double.self, forKey: .offDayProbability) ?? d.offDayProbability
        tripShare = try c.decodeIfPresent(Double.self, forKey: .tripShare) ?? d.tripShare
        tripDays = try c.decodeIfPresent(IntRange.self, forKey: .tripDays) ?? d.tripDays
        lowPowerShare = try c.decodeIfPresent(Double.self, forKey: .lowPowerShare) ?? d.lowPowerShare
        lowPowerThreshold = try c.decodeIfPresent(Double.self, forKey: .lowPowerThreshold) ?? d.lowPowerThreshold
        daytimeChargeProbability =
            try c.decodeIfPresent(Double.self, forKey: .daytimeChargeProbability) ?? d.daytimeChargeProbability
        forceQuitProbability =
            try c.decodeIfPresent(Double.self, forKey: .forceQuitProbability) ?? d.forceQuitProbability
        refreshOffShare = try c.decodeIfPresent(Double.self, forKey: .refreshOffShare) ?? d.refreshOffShare
        refreshOffDays = try c.decodeIfPresent(IntRange.self, forKey: .refreshOffDays) ?? d.refreshOffDays
        sequenceShare = try c.decodeIfPresent(Double.self, forKey: .sequenceShare) ?? d.sequenceShare
        idleSessionsPerDay =
            try c.decodeIfPresent(DoubleRange.self, forKey: .idleSessionsPerDay) ?? d.idleSessionsPerDay
        continueProbability =
            try c.decodeIfPresent(DoubleRange.self, forKey: .continueProbability) ?? d.continueProbability
        returnProbability = try c.decodeIfPresent(DoubleRange.self, forKey: .returnProbability) ?? d.returnProbability
        switchSeconds = try c.decodeIfPresent(DoubleRange.self, forKey: .switchSeconds) ?? d.switchSeconds
        followUpProbability =
            try c.decodeIfPresent(DoubleRange.self, forKey: .followUpProbability) ?? d.followUpProbability
        followUpMinutes = try c.decodeIfPresent(DoubleRange.self, forKey: .followUpMinutes) ?? d.followUpMinutes
        transitionSpread = try c.decodeIfPresent(Double.self, forKey: .transitionSpread) ?? d.transitionSpread
        promptRateScale = try c.decodeIfPresent(Double.self, forKey: .promptRateScale) ?? d.promptRateScale
        noNetworkProbability =
            try c.decodeIfPresent(Double.self, forKey: .noNetworkProbability) ?? d.noNetworkProbability
        cellularAtWorkShare = try c.decodeIfPresent(Double.self, forKey: .cellularAtWorkShare) ?? d.cellularAtWorkShare
        contextIntervalMinutes =
            try c.decodeIfPresent(Int.self, forKey: .contextIntervalMinutes) ?? d.contextIntervalMinutes
        unlockProbability = try c.decodeIfPresent(Double.self, forKey: .unlockProbability) ?? d.unlockProbability
        notificationProbability =
            try c.decodeIfPresent(Double.self, forKey: .notificationProbability) ?? d.notificationProbability
        spuriousNotificationsPerDay =
            try c.decodeIfPresent(Double.self, forKey: .spuriousNotificationsPerDay) ?? d.spuriousNotificationsPerDay
        glancesPerDay = try c.decodeIfPresent(Double.self, forKey: .glancesPerDay) ?? d.glancesPerDay
    }

    /// Problems that make the config unusable, as readable sentences.
    public func problems() -> [String] {
        var out: [String] = []
        func share(_ name: String, _ v: Double) {
            if !(0...1).contains(v) { out.append("\(name) must be in 0…1, not \(v)") }
        }
        func range(_ name: String, _ r: IntRange, _ floor: Int) {
            if r.min < floor || r.max < r.min {
                out.append("\(name) must have \(floor) ≤ min ≤ max, not \(r.min)…\(r.max)")
            }
        }
        share("routineShare", routineShare)
        share("weekdayOnlyShare", weekdayOnlyShare)
        share("driftShare", driftShare)
        share("vacationShare", vacationShare)
        share("offDayProbability", offDayProbability)
        share("tripShare", tripShare)
        share("lowPowerShare", lowPowerShare)
        share("daytimeChargeProbability", daytimeChargeProbability)
        share("forceQuitProbability", forceQuitProbability)
        share("refreshOffShare", refreshOffShare)
        share("sequenceShare", sequenceShare)
        share("noNetworkProbability", noNetworkProbability)
        share("cellularAtWorkShare", cellularAtWorkShare)
        share("unlockProbability", unlockProbability)
        share("notificationProbability", notificationProbability)
        if !(0...200).contains(spuriousNotificationsPerDay) {
            out.append("spuriousNotificationsPerDay must be in 0…200, not \(spuriousNotificationsPerDay)")
        }
        if !(0...200).contains(glancesPerDay) { out.append("glancesPerDay must be in 0…200, not \(glancesPerDay)") }
        func bounded(_ name: String, _ r: DoubleRange, below limit: Double = 1) {
            if !(r.min >= 0 && r.min <= r.max && r.max <= limit) {
                out.append("\(name) must have 0 ≤ min ≤ max ≤ \(limit), not \(r.min)…\(r.max)")
            }
        }
        bounded("idleSessionsPerDay", idleSessionsPerDay, below: 200)
        bounded("continueProbability", continueProbability, below: 0.98)
        bounded("returnProbability", returnProbability)
        bounded("switchSeconds", switchSeconds, below: 3600)
        bounded("followUpProbability", followUpProbability, below: 0.95)
        bounded("followUpMinutes", followUpMinutes, below: 1440)
        if !(0...5).contains(transitionSpread) {
            out.append("transitionSpread must be in 0…5, not \(transitionSpread)")
        }
        if !(0...20).contains(promptRateScale) { out.append("promptRateScale must be in 0…20, not \(promptRateScale)") }
        range("appsPerUser", appsPerUser, 1)
        range("driftMinutesPerWeek", driftMinutesPerWeek, 0)
        range("vacationDays", vacationDays, 1)
        range("tripDays", tripDays, 1)
        range("refreshOffDays", refreshOffDays, 1)
        if appsPerUser.max > AppCatalog.apps.count {
            out.append("appsPerUser.max must be at most \(AppCatalog.apps.count) (the catalog's size)")
        }
        if !(0...100).contains(lowPowerThreshold) { out.append("lowPowerThreshold must be a percentage") }
        if !(5...1440).contains(contextIntervalMinutes) { out.append("contextIntervalMinutes must be in 5…1440") }
        if timeZones.isEmpty || timeZones.values.contains(where: { $0 < 0 }) || timeZones.values.reduce(0, +) <= 0 {
            out.append("timeZones must give at least one zone a positive weight")
        }
        for name in timeZones.keys.sorted() where TimeZoneCache.zone(name) == nil {
            out.append("timeZones: \"\(name)\" is not an IANA time zone")
        }
        return out
    }
}

extension PopulationConfig {
    /// Reads a population config from JSON, each key it names overriding `base` (the defaults
    /// unless given); the error names the field at fault.
    public static func decode(_ data: Data, over base: PopulationConfig = PopulationConfig()) throws(SynthError)
        -> PopulationConfig
    {
        // A key this build does not know (a typo, a key of another version) is an error, not ignored.
        if let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let defaults = try? JSONEncoder().encode(PopulationConfig()),
            let known = (try? JSONSerialization.jsonObject(with: defaults)) as? [String: Any]
        {
            if let unknown = object.keys.sorted().first(where: { known[$0] == nil }) {
                throw SynthError(
                    "\(unknown): unknown key; the keys are \(known.keys.sorted().joined(separator: ", ")) "
                        + "(fetchlab generate --print-config shows them)", code: .config)
            }
        }
        var data = data
        if base != PopulationConfig(), let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let encoded = try? JSONEncoder().encode(base),
            var merged = (try? JSONSerialization.jsonObject(with: encoded)) as? [String: Any]
        {
            merged.merge(object) { _, file in file }
            if let again = try? JSONSerialization.data(withJSONObject: merged) { data = again }
        }
        do {
            return try JSONDecoder().decode(PopulationConfig.self, from: data)
        } catch let DecodingError.typeMismatch(_, c), let DecodingError.valueNotFound(_, c) {
            throw SynthError("\(c.codingPath.map(\.stringValue).joined(separator: ".")): \(c.debugDescription)", code: .config)
        } catch let DecodingError.keyNotFound(key, c) {
            throw SynthError("\((c.codingPath + [key]).map(\.stringValue).joined(separator: ".")): missing", code: .config)
        } catch let DecodingError.dataCorrupted(c) {
            throw SynthError(c.debugDescription, code: .config)
        } catch {
            throw SynthError("\(error)", code: .config)
        }
    }
}
