import Foundation

/// Draws users' truths from a ``PopulationConfig``. User `i` depends only on (seed, i), so any
/// user can be made alone, and in any order.
public struct PersonaFactory: Sendable {
    public let config: PopulationConfig
    public let seed: UInt64
    public let days: Int

    public init(config: PopulationConfig, seed: UInt64, days: Int) {
        self.config = config
        self.seed = seed
        self.days = days
    }

    public static func userName(_ index: Int) -> String {
        let digits = String(index + 1)
        return "u" + String(repeating: "0", count: max(0, 5 - digits.count)) + digits
    }

    static func hhmm(_ minute: Double) -> String {
        let m = ((Int(minute.rounded()) % 1440) + 1440) % 1440
        return String(format: "%02d:%02d", m / 60, m % 60)
    }

    private func span(_ r: PopulationConfig.IntRange, _ rng: inout SeededRandom) -> Int { rng.int(r.min, r.max) }

    private func dayRange(length: Int, _ rng: inout SeededRandom) -> DayRange? {
        guard days >= 3 else { return nil }
        let length = min(length, days - 2)
        let start = rng.int(1, max(1, days - length - 1))
        return DayRange(start: start, end: start + length)
    }

    public func user(_ index: Int) -> UserTruth {
        var rng = SeededRandom(seed: seed, stream: "user", index: index)
        let zones = config.timeZones.keys.sorted().map { ($0, config.timeZones[$0]!) }
        let zone = rng.weighted(zones)
        let wake = Int(rng.normal(mean: 405, sd: 35).rounded())  // 06:45
        let sleep = min(1435, Int(rng.normal(mean: 1380, sd: 40).rounded()))  // 23:00
        let works = rng.chance(0.8)
        let leave = wake + rng.int(30, 80)
        let commute = rng.int(15, 55)
        let workHours = rng.int(480, 570)
        let threshold = rng.chance(config.lowPowerShare) ? config.lowPowerThreshold : nil

        var vacation: DayRange? = nil
        if rng.chance(config.vacationShare) { vacation = dayRange(length: span(config.vacationDays, &rng), &rng) }
        var trip: Trip? = nil
        if rng.chance(config.tripShare), let range = dayRange(length: span(config.tripDays, &rng), &rng) {
            let others = zones.filter { $0.0 != zone }
            if !others.isEmpty { trip = Trip(days: range, timeZone: rng.weighted(others)) }
        }
        let offDays = (0..<days).filter { _ in rng.chance(config.offDayProbability) }

        // Apps: a random subset of the catalog, in catalog order.
        let count = min(span(config.appsPerUser, &rng), AppCatalog.apps.count)
        let chosen = Set(rng.shuffled(Array(AppCatalog.apps.indices)).prefix(count))
        var habits: [AppHabit] = []
        for (i, template) in AppCatalog.apps.enumerated() where chosen.contains(i) {
            habits.append(habit(template, works: works, wake: wake, sleep: sleep, &rng))
        }
        // A habitual sequence: B right after A.
        if habits.count >= 2, rng.chance(config.sequenceShare) {
            let a = rng.int(0, habits.count - 1)
            var b = rng.int(0, habits.count - 2)
            if b >= a { b += 1 }
            habits[b].follows = Follow(
                after: habits[a].app, probability: rng.uniform(0.5, 0.85), delayMinutes: rng.uniform(0.5, 3))
        }
        var refreshOff: RefreshOff? = nil
        if rng.chance(config.refreshOffShare), let range = dayRange(length: span(config.refreshOffDays, &rng), &rng) {
            refreshOff = RefreshOff(app: habits[rng.int(0, habits.count - 1)].app, days: range)
        }
        return UserTruth(
            name: Self.userName(index), timeZone: zone, wakeMinute: wake,
            weekendWakeMinute: wake + rng.int(45, 150), sleepMinute: sleep, works: works,
            leaveHomeMinute: leave, arriveWorkMinute: leave + commute, leaveWorkMinute: leave + commute + workHours,
            arriveHomeMinute: leave + 2 * commute + workHours + rng.int(0, 30),
            cellularAtWork: rng.chance(config.cellularAtWorkShare), lowPowerThreshold: threshold,
            daytimeChargeProbability: works ? config.daytimeChargeProbability : config.daytimeChargeProbability / 2,
            screenDrainPerMinute: rng.uniform(0.12, 0.3), vacation: vacation, trip: trip, offDays: offDays,
            refreshOff: refreshOff, apps: habits, sessions: nil
        ).withSessions(config: config, seed: seed, index: index)
    }

    private func habit(
        _ t: AppTemplate, works: Bool, wake: Int, sleep: Int, _ rng: inout SeededRandom
    ) -> AppHabit {
        let session = t.sessionMinutes * rng.uniform(0.6, 1.5)
        var kind = t.kind
        if kind == .routine && !rng.chance(config.routineShare) { kind = .irregular }
        switch kind {
        case .routine:
            var candidates = rng.shuffled(t.peakMinutes)
            let n = candidates.count > 1 && rng.chance(0.3) ? 2 : 1
            candidates = Array(candidates.prefix(n)).sorted()
            let peaks = candidates.map { base -> Peak in
                let minute = min(Double(sleep - 20), max(Double(wake + 5), Double(base) + rng.normal(sd: 40)))
                let weekdayOnly = (t.commute && works) ? rng.chance(0.8) : rng.chance(config.weekdayOnlyShare)
                let drift =
                    rng.chance(config.driftShare)
                    ? Double(rng.int(config.driftMinutesPerWeek.min, config.driftMinutesPerWeek.max))
                        * (rng.chance(0.5) ? 1 : -1)
                    : 0
                let probability = rng.uniform(0.65, 0.95)
                let rounded = (minute * 10).rounded() / 10
                let weekend =
                    weekdayOnly ? nil : (min(Double(sleep - 5), minute + rng.uniform(20, 120)) * 10).rounded() / 10
                return Peak(
                    minute: rounded, time: Self.hhmm(rounded), spreadMinutes: (rng.uniform(4, 20) * 10).rounded() / 10,
                    probability: (probability * 100).rounded() / 100, weekdayOnly: weekdayOnly,
                    weekendMinute: weekend,
                    weekendProbability: weekdayOnly ? 0 : ((probability * 0.8) * 100).rounded() / 100,
                    driftMinutesPerWeek: drift)
            }
            return AppHabit(app: t.name, kind: .routine, peaks: peaks, sessionMinutes: (session * 10).rounded() / 10)
        case .burst:
            let rate = t.burstsPerDay * rng.uniform(0.5, 1.5) * config.promptRateScale
            return AppHabit(
                app: t.name, kind: .burst, burstsPerDay: (rate * 10).rounded() / 10,
                sessionMinutes: (session * 10).rounded() / 10)
        case .irregular:
            // A clock-type app this user opens whenever (not by the clock): now and then.
            let base = t.kind == .irregular ? t.ratePerDay : 0.4
            let rate = base * rng.uniform(0.5, 2) * config.promptRateScale
            return AppHabit(
                app: t.name, kind: .irregular, ratePerDay: (rate * 100).rounded() / 100,
                sessionMinutes: (session * 10).rounded() / 10)
        }
    }
}

extension UserTruth {
    /// This user with multi-app session habits drawn from `config` (an independent stream of
    /// the seed, so the rest of the persona does not depend on them): the session parameters,
    /// a daily rhythm, how often each app opens a session, and per-app transition habits.
    func withSessions(config: PopulationConfig, seed: UInt64, index: Int) -> UserTruth {
        var rng = SeededRandom(seed: seed, stream: "sessions", index: index)
        func draw(_ r: PopulationConfig.DoubleRange, digits: Double = 100) -> Double {
            (rng.uniform(r.min, r.max) * digits).rounded() / digits
        }
        func round3(_ x: Double) -> Double { (x * 1000).rounded() / 1000 }
        var copy = self
        // Log-normal weights around each app's popularity: who opens what first, and what next.
        let popularity = apps.map { AppCatalog.template($0.app)?.popularity ?? 1 }
        let sigma = config.transitionSpread
        for a in copy.apps.indices {
            copy.apps[a].entryWeight = round3(popularity[a] * Foundation.exp(rng.normal(sd: 0.6)))
        }
        for a in copy.apps.indices {
            var weights: [(String, Double)] = []
            for b in apps.indices where b != a {
                weights.append((apps[b].app, popularity[b] * Foundation.exp(rng.normal(sd: sigma))))
            }
            let total = weights.reduce(0) { $0 + $1.1 }
            guard total > 0 else { continue }
            copy.apps[a].next =
                weights.map { NextApp(app: $0.0, probability: round3($0.1 / total)) }
                .filter { $0.probability > 0 }
                .sorted { $0.probability != $1.probability ? $0.probability > $1.probability : $0.app < $1.app }
        }
        let morning = Double(wakeMinute) + rng.uniform(10, 60)
        let rhythm = [
            RhythmPeak(minute: morning.rounded(), spreadMinutes: 40, weight: draw(.init(0.5, 1.5))),
            RhythmPeak(minute: rng.uniform(720, 810).rounded(), spreadMinutes: 45, weight: draw(.init(0.5, 1.5))),
            RhythmPeak(minute: rng.uniform(1110, 1260).rounded(), spreadMinutes: 70, weight: draw(.init(1, 2.5))),
            RhythmPeak(
                minute: Double(sleepMinute) - rng.uniform(20, 60).rounded(), spreadMinutes: 25,
                weight: draw(.init(0.3, 1.2))),
        ]
        copy.sessions = SessionHabits(
            idleSessionsPerDay: draw(config.idleSessionsPerDay),
            continueProbability: draw(config.continueProbability, digits: 1000),
            returnProbability: draw(config.returnProbability),
            switchSeconds: draw(config.switchSeconds, digits: 1),
            followUpProbability: draw(config.followUpProbability),
            followUpMinutes: draw(config.followUpMinutes, digits: 1), followUpSpread: 0.9, rhythm: rhythm)
        return copy
    }
}
