import FetchLabCore
import FetchLabResults
import Foundation
import Testing

import struct _FetchLabTestSupport.SeededDraws

@testable import FetchLabSimulation

/// The fetches that ran for each evaluated pair (the platform's answers included).
func runs(_ h: UserHistory, _ policy: any FetchPolicy, evaluation e: EvaluationProtocol, platform: PlatformKind = .none)
    throws -> [PairRun]
{
    let settings = ReplaySettings(platform: PlatformModel(kind: platform))
    let window = try #require(e.window(of: h))
    let user = UserSetup(history: h, window: window, evaluation: e, context: settings.context, cost: settings.cost)
    return user.pairs.indices.map { PolicyRunner.run(policy, pair: $0, of: user, settings: settings) }
}

/// One launch a day at `minute` past local midnight, for `days` days.
func daily(at minutes: [Int64], days: Int64, app: Int32 = 0) -> [(Instant, Int32)] {
    (0..<days).flatMap { d in minutes.map { (day0 + .days(d) + .minutes($0), app) } }
}

/// The minute of the local day of an instant (UTC clock).
func minuteOfDay(_ t: Instant) -> Int64 {
    (t - LocalCalendar.midnight(of: LocalCalendar.day(t, offset: 0), offset: 0)) / .perMinute
}

/// `count` users named user0, user1, …, each with a pseudo-random launch stream of `apps` apps
/// over `days` days, seeded by its index plus `seed`.
func randomUsers(_ count: Int, days: Int64 = 16, apps: Int32 = 3, seed: UInt64 = 1) -> [UserHistory] {
    (0..<count).map { u in
        var h = history(randomLaunches(seed: UInt64(u) + seed, days: days, apps: apps), apps: Int(apps))
        h.user = UserID("user\(u)")
        return h
    }
}

/// A pseudo-random launch stream of `apps` apps over `days` days (seeded).
func randomLaunches(seed: UInt64, days: Int64, apps: Int32 = 1) -> [(Instant, Int32)] {
    var draws = SeededDraws(seed: seed)
    var t = day0
    var out: [(Instant, Int32)] = []
    while t < day0 + .days(days) {
        let x = draws.next()
        t += .seconds(60 + Int64(x >> 33) % 10_800)
        out.append((t, Int32((x >> 20) % UInt64(apps))))
    }
    return out
}

@Suite struct IOSAdaptiveTests {
    @Test func fetchesTenMinutesBeforeADailyNoonHabit() throws {
        let h = history(daily(at: [12 * 60], days: 14))
        let run = try #require(try runs(h, IOSAdaptivePolicy(), evaluation: evaluation(warmUp: 7)).first)
        // From the second day on, one fetch a day at 11:50.
        #expect(run.fetches.map(\.time) == (1..<14).map { day0 + .days($0) + .hours(11) + .minutes(50) })
        let out = Simulator(evaluation: evaluation(warmUp: 7)).replay(
            h, policies: [IOSAdaptivePolicy(lead: .minutes(5))])
        #expect(out[0][0].fresh[0] == out[0][0].scored)  // fresh at 5 min: fetched at 11:55
        #expect(out[0][0].leads.allSatisfy { $0 == .minutes(5) })
    }

    @Test func keepsItsMinimumInterval() throws {
        // Used at 12:00 and 12:20 every day: fetches at 11:50 and 12:10, or only 11:50 an hour apart.
        let h = history(daily(at: [12 * 60, 12 * 60 + 20], days: 10))
        let quarter = try #require(try runs(h, IOSAdaptivePolicy(), evaluation: evaluation(warmUp: 7)).first)
        let both: [Int64] = (0..<9).flatMap { _ in [710, 730] }  // 11:50, 12:10
        #expect(quarter.fetches.map { minuteOfDay($0.time) } == both)
        let hourly = try #require(
            try runs(h, IOSAdaptivePolicy(minimumInterval: .hours(1)), evaluation: evaluation(warmUp: 7)).first)
        let first: [Int64] = Array(repeating: 710, count: 9)
        #expect(hourly.fetches.map { minuteOfDay($0.time) } == first)
    }

    @Test func backsOffAfterRepeatedNoData() throws {
        let launches = daily(at: [8 * 60, 12 * 60, 18 * 60, 22 * 60], days: 21)
        func fetches(updates: [Instant]) throws -> Int {
            let h = UserHistory(
                user: "u", apps: ["com.app0"], launches: launches.map { UsageEvent(time: $0.0, offset: 0, app: $0.1) },
                contentUpdates: updates.map { ContentUpdate(time: $0, app: 0, utcOffset: 0) })
            return try #require(try runs(h, IOSAdaptivePolicy(), evaluation: evaluation(warmUp: 7)).first).fetches.count
        }
        // Content every 10 minutes: every fetch brings newData. One update before everything: noData.
        let fresh = try fetches(updates: (0..<(21 * 144)).map { day0 + .minutes(Int64($0) * 10) })
        let stale = try fetches(updates: [day0 - .hours(1)])
        let unknown = try fetches(updates: [])
        #expect(fresh == unknown)
        #expect(fresh >= 4 * 19)
        #expect(stale * 3 < fresh, "stale \(stale), fresh \(fresh)")
    }
}

@Suite struct WorkManagerTests {
    /// Context samples every 30 minutes from `day0` for `days` days.
    func context(days: Int64, _ sample: (Instant) -> ContextSample) -> [ContextSample] {
        (0..<(days * 48)).map { sample(day0 + .minutes($0 * 30)) }
    }

    func user(context: [ContextSample]) -> UserHistory {
        UserHistory(
            user: "u", apps: ["com.app0"],
            launches: randomLaunches(seed: 5, days: 10).map { UsageEvent(time: $0.0, offset: 0, app: $0.1) },
            context: context)
    }

    @Test func atMostOneRunPerPeriodAtTheStartOfTheFlexWindow() throws {
        let h = user(context: [])
        let t0 = try #require(h.launches.first).time
        for (period, flex) in [
            (Microseconds.hours(1), Microseconds.minutes(15)), (.hours(2), .hours(2)), (.minutes(15), .minutes(5)),
        ] {
            let policy = WorkManagerPolicy(period: period, flex: flex)
            let times = try #require(try runs(h, policy, evaluation: evaluation(warmUp: 2)).first).fetches.map(\.time)
            #expect(!times.isEmpty)
            #expect(Set(times.map { ($0 - t0) / period }).count == times.count)
            #expect(times.allSatisfy { ($0 - t0 + flex) % period == 0 })  // the window's start
            #expect(zip(times, times.dropFirst()).allSatisfy { $1 - $0 == period })
        }
    }

    @Test func unmeteredWaitsForWiFi() throws {
        // Cellular except from 20:00 to 21:59.
        let h = user(
            context: context(days: 11) { t in
                ContextSample(time: t, network: (20..<22).contains(minuteOfDay(t) / 60) ? .wifi : .cellular)
            })
        let t0 = try #require(h.launches.first).time
        let period = Microseconds.hours(1)
        let constrained = try #require(
            try runs(
                h, WorkManagerPolicy(period: period, flex: .minutes(15), constraints: .unmetered),
                evaluation: evaluation(warmUp: 2)
            )
            .first)
        #expect(constrained.fetches.count >= 9)
        #expect(constrained.fetches.allSatisfy { $0.state.network == .wifi })
        #expect(Set(constrained.fetches.map { ($0.time - t0) / period }).count == constrained.fetches.count)
        let free = try #require(try runs(h, WorkManagerPolicy(), evaluation: evaluation(warmUp: 2)).first)
        #expect(free.fetches.contains { $0.state.network == .cellular })
    }

    @Test func chargingWaitsForThePlug() throws {
        // Charging from 01:00 to 05:59.
        let h = user(
            context: context(days: 11) { t in ContextSample(time: t, charging: (1..<6).contains(minuteOfDay(t) / 60)) })
        let policy = WorkManagerPolicy(period: .hours(4), flex: .minutes(30), constraints: [.charging, .unmetered])
        let run = try #require(try runs(h, policy, evaluation: evaluation(warmUp: 2)).first)
        #expect(run.fetches.count >= 9)
        #expect(run.fetches.allSatisfy { $0.state.charging && $0.state.network == .wifi })
    }
}

@Suite struct AndroidPrefetchTests {
    @Test func fetchesOnlyWhenTheEstimatedLaunchIsWithinTheThreshold() throws {
        let h = history(daily(at: [12 * 60], days: 14))
        for hours in [Int64(3), 7] {
            let policy = AndroidPrefetchPolicy(threshold: .hours(hours), period: .hours(1))
            let run = try #require(try runs(h, policy, evaluation: evaluation(warmUp: 7)).first)
            // The estimate is the next noon: fetches from noon − threshold on, once an hour.
            #expect(run.fetches.count == 13 * Int(hours))
            #expect(
                run.fetches.allSatisfy { (12 - hours) * 60 <= minuteOfDay($0.time) && minuteOfDay($0.time) < 12 * 60 })
        }
    }
}

@Suite struct PushTests {
    func user(updates: [Instant]) -> UserHistory {
        UserHistory(
            user: "u", apps: ["com.app0"],
            launches: daily(at: [9 * 60], days: 4).map { UsageEvent(time: $0.0, offset: 0, app: 0) },
            contentUpdates: updates.map { ContentUpdate(time: $0, app: 0, utcOffset: 0) })
    }

    /// Every 5 minutes from 10:00 to 12:55 on the third day (scored).
    let burst = (0..<36).map { day0 + .days(2) + .hours(10) + .minutes(Int64($0) * 5) }

    @Test func onePushPerUpdateSpacedByItsRate() throws {
        let sparse = [day0 + .days(2) + .hours(10), day0 + .days(2) + .hours(14)]
        #expect(
            try #require(try runs(user(updates: sparse), PushPolicy(), evaluation: evaluation()).first).fetches.map(
                \.time) == sparse)
        let run = try #require(try runs(user(updates: burst), PushPolicy(rate: 3), evaluation: evaluation()).first)
        // One push every 20 minutes: 10:00, 10:20, …, 12:40, then the held-back 12:45–12:55 updates at 13:00.
        #expect(run.fetches.map(\.time) == (0..<10).map { day0 + .days(2) + .hours(10) + .minutes(Int64($0) * 20) })
        #expect(try #require(try runs(user(updates: []), PushPolicy(), evaluation: evaluation()).first).fetches.isEmpty)
        #expect(PushPolicy().needsContentUpdates)
        #expect(!PolicyRegistry.standard(contentUpdates: false).contains { $0.family == "push" })
        #expect(PolicyRegistry.standard(contentUpdates: true).contains { $0.family == "push" })
    }

    @Test func iOSRefusesPushesBeyondThreeAnHour() throws {
        let h = user(updates: burst)
        let run = try #require(try runs(h, PushPolicy(rate: 60), evaluation: evaluation(), platform: .ios).first)
        #expect(run.fetches.count == 9)  // 3 in each of the three hours
        for f in run.fetches {
            #expect(run.fetches.filter { abs($0.time - f.time) < .hours(1) && $0.time <= f.time }.count <= 3)
        }
        var settings = ReplaySettings(platform: PlatformModel(kind: .ios))
        settings.context = ContextDefaults()
        let out = Simulator(evaluation: evaluation(), settings: settings).replay(h, policies: [PushPolicy(rate: 60)])
        let rateLimited = out[0][0].skips[try #require(SkipReason.allCases.firstIndex(of: .rateLimit))]
        #expect(rateLimited == 36 - 9)
        #expect(out[0][0].fetches == 9)
    }
}

@Suite struct BudgetedTests {
    @Test(arguments: [1, 2, 4])
    func neverExceedsKFetchesPerLocalDay(k: Int) throws {
        let offset: Int32 = -5 * 3_600
        let h = history(randomLaunches(seed: UInt64(k) + 11, days: 21, apps: 2), apps: 2, offset: offset)
        let e = evaluation(warmUp: 7)
        let window = try #require(e.window(of: h))
        for run in try runs(h, BudgetedPolicy(budget: .fetches(k)), evaluation: e) {
            let scored = run.fetches.filter { window.isScored($0.time) }
            #expect(scored.count > 7)
            let perDay = Dictionary(grouping: scored) { LocalCalendar.day($0.time, offset: offset) }
            #expect(perDay.values.allSatisfy { $0.count <= k })
        }
    }

    @Test func aJouleBudgetBuysFewerFetchesOnCellular() throws {
        let launches = randomLaunches(seed: 3, days: 14)
        func perDayMax(_ joules: Double, network: NetworkType) throws -> (Int, Int) {
            let context = (0..<(14 * 6)).map { ContextSample(time: day0 + .hours(Int64($0) * 4), network: network) }
            let h = UserHistory(
                user: "u", apps: ["com.app0"], launches: launches.map { UsageEvent(time: $0.0, offset: 0, app: 0) },
                context: context)
            let run = try #require(
                try runs(h, BudgetedPolicy(budget: .joules(joules)), evaluation: evaluation(warmUp: 7)).first)
            let perDay = Dictionary(grouping: run.fetches) { LocalCalendar.day($0.time, offset: 0) }
            return (perDay.values.map(\.count).max() ?? 0, run.fetches.count)
        }
        // A lone 3 s fetch: about 16.5 J on LTE, 1.7 J on Wi-Fi.
        #expect(try perDayMax(20, network: .cellular).0 == 1)
        #expect(try perDayMax(40, network: .cellular).0 == 2)
        #expect(try perDayMax(20, network: .wifi).0 == 12)  // 20 / 1.66
    }
}

@Suite struct AlignedWorkManagerTests {
    /// A daily 12:00 habit (the first event at 07:00): plain daily work runs at 06:45 every day and
    /// misses every launch. Aligned work first aligns to the 07:00 launch (06:45 on day 1), then,
    /// once 12:00 is the busiest slot (day 1's launch), runs at 11:45 every day.
    @Test func theFlexWindowMovesBeforeTheHabit() throws {
        let h = history([(day0 + .hours(7), 0)] + daily(at: [12 * 60], days: 14))
        let plain = try #require(
            try runs(h, WorkManagerPolicy(period: .hours(24), flex: .minutes(15)), evaluation: evaluation(warmUp: 7))
                .first)
        #expect(plain.fetches.allSatisfy { minuteOfDay($0.time) == 6 * 60 + 45 })
        let aligned = try #require(
            try runs(
                h, WorkManagerPolicy(period: .hours(24), flex: .minutes(15), aligned: true),
                evaluation: evaluation(warmUp: 7)
            ).first)
        let expected: [Int64] = [405] + [Int64](repeating: 705, count: 12)  // 06:45, then 11:45
        #expect(aligned.fetches.map { minuteOfDay($0.time) } == expected)
        let out = Simulator(evaluation: evaluation(warmUp: 7, refreshes: false)).replay(
            h, policies: [WorkManagerPolicy(period: .hours(24), flex: .minutes(15), aligned: true)])
        #expect(out[0][0].scored > 0 && out[0][0].fresh[1] == out[0][0].scored)
        #expect(
            try PolicyRegistry.parse("workmanager(24h,15m,none,aligned)")[0].name == "workmanager(24h,15m,none,aligned)"
        )
        #expect(throws: PolicyRegistry.ParseError.self) {
            try PolicyRegistry.parse("workmanager(24h,15m,none,sometimes)")
        }
    }
}

@Suite struct HeuristicRegistryTests {
    @Test func canonicalNamesParseBack() throws {
        let typed = [
            "ios-adaptive", "ios-adaptive(5m)", "ios-adaptive(0m,1h)", "workmanager",
            "workmanager(2h,30m,unmetered+charging)", "workmanager(24h,15m,none,aligned)",
            "WorkManager(1h, 15m, battery-not-low+unmetered)", "android-prefetch", "android-prefetch(3h)",
            "android-prefetch(7h,1h)", "push", "push(0.5)", "budgeted", "budgeted(8)", "budgeted(200j)",
            "budgeted(12.5J)",
        ]
        for name in typed {
            let policies = try PolicyRegistry.parse(name)
            #expect(policies.count == 1)
            let p = try #require(policies.first)
            let again = try #require(try PolicyRegistry.parse(p.name).first)
            #expect(again.name == p.name)
            #expect(again.parameters == p.parameters)
            #expect(again.family == p.family)
            #expect(!p.summary.isEmpty && !p.summary.contains("\n"))
            #expect(!p.isClairvoyant)
            #expect(p.parameters.keys.allSatisfy { $0 == $0.lowercased() && !$0.contains("-") })
        }
        #expect(
            try PolicyRegistry.parseList("ios-adaptive, workmanager, android-prefetch, budgeted, push").map(\.name) == [
                "ios-adaptive(10m,15m)", "workmanager(1h,15m,none)", "android-prefetch(7h,4h)", "budgeted(4)",
                "push(3)",
            ])
        #expect(
            try PolicyRegistry.parse("workmanager(1h,15m,charging+unmetered)")[0].name
                == "workmanager(1h,15m,unmetered+charging)")
        #expect(
            try PolicyRegistry.parseList(PolicyRegistry.standardNames).map(\.family) == ["never"]
                + Array(repeating: "fixed", count: 7) + ["ios-adaptive", "workmanager"]
                + Array(repeating: "android-prefetch", count: 3) + Array(repeating: "predictive", count: 8)
                + Array(repeating: "predictive-cost-aware", count: 3) + Array(repeating: "budgeted", count: 4)
                + Array(repeating: "learned", count: 5) + Array(repeating: "learned-cost-aware", count: 2)
                + Array(repeating: "learned-app", count: 5)
                + ["push", "push", "notification-refresh", "oracle"] + Array(repeating: "budget-oracle", count: 5))
    }

    @Test(arguments: [
        ("ios-adaptive(3h)", "ios-adaptive"), ("ios-adaptive(x)", "ios-adaptive"),
        ("ios-adaptive(10m,5m)", "ios-adaptive"),
        ("ios-adaptive(10m,15m,1)", "ios-adaptive"), ("workmanager(10m)", "workmanager"),
        ("workmanager(1h,2h)", "workmanager"), ("workmanager(1h,1m)", "workmanager"),
        ("workmanager(1h,15m,wifi)", "workmanager"), ("workmanager(1h,15m,none,x)", "workmanager"),
        ("workmanager(1h,15m,none+charging)", "workmanager"), ("android-prefetch(0m)", "android-prefetch"),
        ("android-prefetch(7h,4h,1)", "android-prefetch"), ("android-prefetch(7h,5m)", "android-prefetch"),
        ("push(0)", "push"), ("push(x)", "push"), ("budgeted(0)", "budgeted"), ("budgeted(-5j)", "budgeted"),
        ("budgeted(xj)", "budgeted"), ("budgeted(1.5)", "budgeted"),
    ])
    func badArgumentsAreOneLineNamingThePolicy(name: String, family: String) {
        do {
            _ = try PolicyRegistry.parseList(name)
            Issue.record("\(name) parsed")
        } catch {
            #expect(error.message.hasPrefix("policy '\(name)'"), "\(error.message)")
            #expect(error.message.contains(family))
            #expect(!error.message.contains("\n"))
        }
    }
}

/// Records what the schedulers of one policy are shown and when they are woken, per app.
final class CallLog: @unchecked Sendable {
    enum Call: Equatable {
        /// The scheduler was made (the wake it asks for from the start).
        case created
        case event(Instant)
        case update(Instant)
        case wake(Instant)
        case completed(Instant)
    }
    /// A call, and the wake the scheduler asked for after it.
    typealias Entry = (call: Call, asked: Instant?)
    private let lock = NSLock()
    private var entries: [Int32: [Entry]] = [:]

    func record(app: Int32, _ call: Call, asked: Instant?) {
        lock.lock()
        defer { lock.unlock() }
        entries[app, default: []].append((call, asked))
    }

    var byApp: [Int32: [Entry]] {
        lock.lock()
        defer { lock.unlock() }
        return entries
    }
}

/// Wraps a causal policy's scheduler and logs every call.
struct SpyPolicy: FetchPolicy {
    var inner: any FetchPolicy
    let log = CallLog()
    var name: String { "spy(\(inner.name))" }
    var family: String { "test" }
    var signals: Set<PolicySignal> { inner.signals }
    var summary: String { "spy" }
    func makeScheduler(_ pair: PairInfo) -> (any FetchScheduler)? {
        inner.makeScheduler(pair).map {
            log.record(app: pair.app, .created, asked: $0.nextWake)
            return SpyScheduler(inner: $0, app: pair.app, log: log)
        }
    }
}

struct SpyScheduler: FetchScheduler {
    var inner: any FetchScheduler
    let app: Int32
    let log: CallLog
    var nextWake: Instant? { inner.nextWake }

    mutating func observe(_ event: UsageEvent, state: DeviceState) -> FetchRequest? {
        let r = inner.observe(event, state: state)
        log.record(app: app, .event(event.time), asked: inner.nextWake)
        return r
    }
    mutating func observe(_ update: ContentUpdate, state: DeviceState) -> FetchRequest? {
        let r = inner.observe(update, state: state)
        log.record(app: app, .update(update.time), asked: inner.nextWake)
        return r
    }
    mutating func wake(at time: Instant, state: DeviceState) -> FetchRequest? {
        let r = inner.wake(at: time, state: state)
        log.record(app: app, .wake(time), asked: inner.nextWake)
        return r
    }
    mutating func completed(_ result: FetchResult) {
        inner.completed(result)
        log.record(app: app, .completed(result.time), asked: inner.nextWake)
    }
}

@Suite struct CausalityTests {
    /// Every call of every heuristic policy comes in time order, so that it is never shown anything
    /// later than its own moment; a wake comes only when asked for; a request's answer comes at once.
    @Test func schedulersAreShownThePastOnlyInTimeOrder() throws {
        let launches = randomLaunches(seed: 17, days: 12, apps: 3)
        let closes = launches.map { UsageEvent(time: $0.0 + .minutes(2), offset: 0, app: $0.1, kind: .close) }
        let context = (0..<96).map { (i: Int) -> ContextSample in
            let network: NetworkType = i % 2 == 0 ? .wifi : .cellular
            return ContextSample(time: day0 + .hours(Int64(i) * 3), charging: i % 3 == 0, network: network)
        }
        let updates = (0..<(12 * 10)).map {
            ContentUpdate(time: day0 + .minutes(Int64($0) * 144 + 7), app: 0, utcOffset: 0)
        }
        let h = UserHistory(
            user: "u", apps: ["a0", "a1", "a2"],
            launches: launches.map { UsageEvent(time: $0.0, offset: 0, app: $0.1) },
            events: closes, context: context, contentUpdates: updates)
        let policies = try PolicyRegistry.parseList(
            "ios-adaptive, workmanager(1h,15m,unmetered), android-prefetch, budgeted, budgeted(100j), push(6), "
                + "learned(2), learned-cost-aware(40j)")
        for kind in PlatformKind.allCases {
            for policy in policies {
                let spy = SpyPolicy(inner: policy)
                let out = Simulator(
                    evaluation: evaluation(warmUp: 7), settings: ReplaySettings(platform: PlatformModel(kind: kind))
                )
                .replay(h, policies: [spy])
                #expect(out[0].count == 3)
                let logs = spy.log.byApp
                #expect(logs.keys.sorted() == [0, 1, 2])
                var requests = 0
                for (app, entries) in logs {
                    var now = Instant.distantPast
                    var asked: Instant? = nil
                    var answerable = false
                    for (call, next) in entries {
                        switch call {
                        case .created:
                            break
                        case .event(let t), .update(let t):
                            #expect(t >= now, "\(policy.name), app \(app): shown \(t) after \(now)")
                            now = t
                            answerable = true
                        case .wake(let t):
                            #expect(
                                t > now || (t == now && asked == t),
                                "\(policy.name), app \(app): woken at \(t) after \(now)")
                            #expect(
                                t == asked,
                                "\(policy.name), app \(app): woken at \(t), asked for \(String(describing: asked))")
                            now = t
                            answerable = true
                        case .completed(let t):
                            #expect(t == now && answerable, "\(policy.name), app \(app): an answer at \(t), now \(now)")
                            answerable = false
                            requests += 1
                        }
                        asked = next
                    }
                }
                #expect(requests > 0, "\(policy.name) on \(kind)")
            }
        }
    }
}
