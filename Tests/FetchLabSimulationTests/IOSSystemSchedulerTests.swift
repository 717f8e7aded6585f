import FetchLabCore
import FetchLabResults
import Testing

@testable import FetchLabSimulation

/// Under `--platform ios` a requested interval is a floor: `fixed(T)` is replayed through the
/// system's scheduler and a daily wake budget that follows use, and every request the system did
/// not run is counted by reason.
@Suite struct IOSSystemSchedulerTests {
    /// One app over `days` days from day0; each day's launch times (offsets from its midnight).
    static func usage(days: Int, _ times: (Int) -> [Microseconds]) -> UserHistory {
        var launches: [Instant] = []
        for d in 0..<days { launches += times(d).map { day0 + .days(Int64(d)) + $0 } }
        return user(launches: launches)
    }

    /// Eight habitual slots (7:00, 9:00, … 21:00), each used every other day: four launches a day,
    /// eight slots the scheduler expects a launch in (each on half the days, over its 25 %).
    static let alternating = usage(days: 28) { d in
        (0..<8).filter { ($0 + d) % 2 == 0 }.map { .hours(Int64(7 + 2 * $0)) + .minutes(5) }
    }

    /// The pair's run under `platform`, with its setup.
    static func run(
        _ h: UserHistory, _ policy: any FetchPolicy, _ platform: PlatformModel, warmUp: Int = 7
    ) throws -> (PairRun, UserSetup) {
        let e = evaluation(warmUp: warmUp, refreshes: true)
        let settings = ReplaySettings(platform: platform)
        let window = try #require(e.window(of: h))
        let user = UserSetup(history: h, window: window, evaluation: e, context: settings.context, cost: settings.cost)
        return (PolicyRunner.run(policy, pair: 0, of: user, settings: settings), user)
    }

    static func skips(_ run: PairRun) -> [SkipReason: Int] {
        var out: [SkipReason: Int] = [:]
        for (k, r) in SkipReason.allCases.enumerated() where run.skips[k] > 0 { out[r] = run.skips[k] }
        return out
    }

    /// The budget the model states, worked out here from the launches: one wake per launch a day
    /// over the 7 days before the day, rounded, 1 to 12; none without a launch in those days.
    static func statedBudget(_ h: UserHistory, day: Int) -> Int {
        let midnight = LocalCalendar.midnight(of: day, offset: 0)
        let n = h.launches.filter { $0.time >= midnight - .days(7) && $0.time < midnight }.count
        return n == 0 ? 0 : min(12, max(1, Int((Double(n) / 7).rounded())))
    }

    @Test func fixedFifteenMinutesSpendsAtMostTheDailyWakeBudgetAndCountsDeclinesByReason() throws {
        let h = Self.alternating
        let (run, user) = try Self.run(h, FixedIntervalPolicy(interval: .minutes(15)), PlatformModel(kind: .ios))
        var perDay: [Int: Int] = [:]
        for f in run.fetches { perDay[LocalCalendar.day(f.time, offset: 0), default: 0] += 1 }
        let first = LocalCalendar.day(user.window.start, offset: 0)
        let last = LocalCalendar.day(user.window.end, offset: 0)
        var binding = 0
        for day in first...last {
            let budget = Self.statedBudget(h, day: day)
            #expect(budget == 4)
            #expect((perDay[day] ?? 0) <= budget, "day \(day)")
            if perDay[day] == budget { binding += 1 }
        }
        // The scheduler expects eight launches a day, the budget allows four: it binds every day.
        #expect(binding == last - first + 1)
        // A floor is not a request: the app asked iOS for nothing at the interval's ticks, and the
        // system's own wakes its budget declined were not the app's either, so nothing is refused.
        #expect(Self.skips(run).isEmpty)
        let scoredFetches = run.fetches.filter { user.window.isScored($0.time) }.count
        #expect(scoredFetches >= 4 * (last - first))  // eight expected a day, four allowed
        // The same through the whole replay: about four fetches per app per day, not 96.
        let o = Simulator(
            evaluation: evaluation(warmUp: 7), settings: ReplaySettings(platform: PlatformModel(kind: .ios))
        )
        .replay(h, policies: [FixedIntervalPolicy(interval: .minutes(15))])[0][0]
        #expect(o.fetches == scoredFetches && o.fetches <= 4 * (last - first + 1))
    }

    @Test func aNoonReaderIsWokenAtAboutElevenFiftyAndNotOtherwise() throws {
        // Apple's example: an app opened every day at noon is refreshed at about 11:50.
        let h = Self.usage(days: 21) { _ in [.hours(12)] }
        let (run, user) = try Self.run(h, FixedIntervalPolicy(interval: .hours(1)), PlatformModel(kind: .ios))
        let scored = run.fetches.filter { user.window.isScored($0.time) }
        #expect(!scored.isEmpty)
        for f in scored {
            let local = f.time - LocalCalendar.midnight(of: LocalCalendar.day(f.time, offset: 0), offset: 0)
            #expect(local == Microseconds.hours(12) - .minutes(10))
        }
        // One wake a day; the other hourly requests were not acted on.
        let days = LocalCalendar.day(user.window.end, offset: 0) - LocalCalendar.day(user.window.start, offset: 0) + 1
        #expect(scored.count == days)
        let requests = FixedIntervalPolicy(interval: .hours(1)).fetchTimes(for: user.pairs[0])
            .filter(user.window.isScored).count
        #expect(requests > 23 * days)
        // The other hourly ticks were not requests: nothing is counted refused.
        #expect(Self.skips(run).isEmpty)
    }

    @Test func anAppUnusedForAWeekIsNotWoken() throws {
        // Used daily at 9:00 for 10 days, then not at all; one launch 9 days later ends the log.
        let h = user(launches: (0..<10).map { day0 + .days(Int64($0)) + .hours(9) } + [day0 + .days(19) + .hours(9)])
        let late = day0 + .days(18) + .hours(9)
        let (run, _) = try Self.run(h, AtTimes(times: [day0 + .days(10) + .hours(8), late]), PlatformModel(kind: .ios))
        #expect(run.fetches.map(\.time) == [day0 + .days(10) + .hours(8)])
        #expect(Self.skips(run) == [.systemBudget: 1])
    }

    @Test func theWakeBudgetFollowsUseWithinItsBounds() {
        var m = PlatformModel(kind: .ios)
        #expect(m.wakeBudget(launches: 0) == 0)
        #expect(m.wakeBudget(launches: 1) == 1)  // a launch a week still gets the least budget
        #expect(m.wakeBudget(launches: 28) == 4)
        #expect(m.wakeBudget(launches: 31) == 4)
        #expect(m.wakeBudget(launches: 1_000) == 12)
        m.iosWakeBudgetPerLaunch = 0.5
        #expect(m.wakeBudget(launches: 28) == 2)
        m.iosWakeBudgetWindow = .days(14)
        #expect(m.wakeBudget(launches: 28) == 1)
        m.iosWakeBudgetMax = 0
        #expect(m.wakeBudget(launches: 28) == nil)
        // The system's scheduler for a requested interval: never closer than iOS's floor.
        #expect(PlatformModel(kind: .ios).systemScheduler(minimumInterval: .minutes(5)).name == "ios-adaptive(10m,15m)")
        #expect(PlatformModel(kind: .ios).systemScheduler(minimumInterval: .hours(1)).name == "ios-adaptive(10m,1h)")
    }

    @Test func aPerAppIntervalGoesThroughTheSystemToo() throws {
        let h = Self.alternating
        let perApp = PerAppPolicy(
            assignments: ["com.app0": FixedIntervalPolicy(interval: .minutes(15))], fallback: NeverPolicy())
        let (a, _) = try Self.run(h, perApp, PlatformModel(kind: .ios))
        let (b, _) = try Self.run(h, FixedIntervalPolicy(interval: .minutes(15)), PlatformModel(kind: .ios))
        #expect(a.fetches == b.fetches && a.skips == b.skips)
    }

    @Test(arguments: [PlatformKind.none, .android])
    func otherPlatformsReplayEveryRequestedTimeAsBefore(kind: PlatformKind) throws {
        // Without iOS's scheduler a fixed interval is its planned times through the platform's
        // gate: exactly what the same times asked for one by one give (a wake budget set on the
        // model is iOS's alone).
        let h = Self.alternating
        var model = PlatformModel(kind: kind)
        model.iosWakeBudgetMax = 1
        let fixed = FixedIntervalPolicy(interval: .minutes(15))
        let (run, user) = try Self.run(h, fixed, model)
        let (planned, _) = try Self.run(h, AtTimes(times: fixed.fetchTimes(for: user.pairs[0])), model)
        #expect(run.fetches == planned.fetches && run.skips == planned.skips)
        if kind == .none {
            #expect(run.fetches.map(\.time) == fixed.fetchTimes(for: user.pairs[0]))
            #expect(run.skips.allSatisfy { $0 == 0 })
        }
        #expect(Self.skips(run)[.systemBudget] == nil)
    }
}
