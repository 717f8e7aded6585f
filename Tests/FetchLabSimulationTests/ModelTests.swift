import FetchLabCore
import FetchLabPredict
import FetchLabResults
import Foundation
import Testing

import struct _FetchLabTestSupport.SeededDraws

@testable import FetchLabSimulation

/// A user with one app: launches, other events and context samples at given times.
func user(
    launches: [Instant], events: [(Instant, UsageEventKind)] = [], context: [ContextSample] = [],
    content: [Instant] = []
) -> UserHistory {
    UserHistory(
        user: "u", apps: ["com.app0"], launches: launches.map { UsageEvent(time: $0, offset: 0, app: 0) },
        events: events.map { UsageEvent(time: $0.0, offset: 0, app: 0, kind: $0.1) }, context: context,
        contentUpdates: content.map { ContentUpdate(time: $0, app: 0) })
}

func simulator(_ kind: PlatformKind, refreshes: Bool = false, cost: CostModel = CostModel()) -> Simulator {
    Simulator(
        evaluation: evaluation(refreshes: refreshes),
        settings: ReplaySettings(platform: PlatformModel(kind: kind), cost: cost))
}

/// The scored day: day0 is the user's first event (warm-up of one day), scoring starts at day0 + 1 d.
let scoredDay = day0 + .days(1)

@Suite struct CostModelTests {
    let cost = CostModel()

    @Test func aLoneCellularFetchPaysPromotionTransferAndTail() {
        let e = cost.energy(of: [RadioUse(start: .epoch, duration: .seconds(3), network: .cellular)])
        let expected = 0.260 * 1.210 + 3 * 1.288 + 11.576 * 1.060
        #expect(abs(e[0] - expected) < 1e-9)
        // Most of it is promotion and tail, and Wi-Fi is several times cheaper.
        #expect(11.576 * 1.060 > e[0] / 2)
        let wifi = cost.energy(of: [RadioUse(start: .epoch, duration: .seconds(3), network: .wifi)])
        #expect(abs(wifi[0] - (0.079 * 0.124 + 3 * 0.54 + 0.238 * 0.119)) < 1e-9)
        #expect(e[0] / wifi[0] > 5)
    }

    @Test func coalescedFetchesPayOneTail() {
        // The second starts 2 s after the first ends: inside the tail. One promotion, the first
        // one's tail cut to 2 s, one full tail after the second.
        let uses = [
            RadioUse(start: .epoch, duration: .seconds(3), network: .cellular),
            RadioUse(start: .epoch + .seconds(5), duration: .seconds(3), network: .cellular),
        ]
        let e = cost.energy(of: uses)
        #expect(abs(e[0] - (0.260 * 1.210 + 3 * 1.288 + 2 * 1.060)) < 1e-9)
        #expect(abs(e[1] - (3 * 1.288 + 11.576 * 1.060)) < 1e-9)
        // Apart (a minute later), each pays its own promotion and tail.
        let apart = cost.energy(of: [uses[0], RadioUse(start: .seconds(60), duration: .seconds(3), network: .cellular)])
        #expect(apart[0] + apart[1] > e[0] + e[1] + 10)
        // Order of the input does not matter; radios do not share a tail.
        #expect(cost.energy(of: uses.reversed()) == e.reversed())
        let mixed = cost.energy(of: [
            uses[0], RadioUse(start: .epoch + .seconds(5), duration: .seconds(3), network: .wifi),
        ])
        #expect(abs(mixed[0] - (0.260 * 1.210 + 3 * 1.288 + 11.576 * 1.060)) < 1e-9)
    }

    @Test func chargingCostsNoBatteryAndCellularCountsData() {
        let launches = (0..<4).map { scoredDay + .hours(Int64(2 + 3 * $0)) }
        let fetches = launches.map { $0 - Microseconds.minutes(5) }
        for (charging, network) in [(true, NetworkType.cellular), (false, .cellular), (false, .wifi)] {
            let h = user(
                launches: [day0] + launches,
                context: [ContextSample(time: day0, battery: 50, charging: charging, network: network)])
            var s = simulator(.none)
            s.settings.context.hold = .days(30)
            let o = s.replay(h, policies: [AtTimes(times: fetches)])[0][0]
            #expect(o.fetches == 4)
            if charging {
                #expect(o.batteryJoules == 0)
            } else {
                #expect(o.batteryJoules > 0)
            }
            #expect(o.cellularBytes == (network == .cellular ? 4 * 150_000 : 0))
        }
    }
}

@Suite struct PlatformTests {
    @Test func aForceQuitBlocksFetchesUntilTheNextLaunch() {
        let quit = scoredDay + .hours(1)
        let relaunch = scoredDay + .hours(5)
        let h = user(
            launches: [day0, scoredDay + .minutes(50), relaunch],
            events: [(quit, .forceQuit), (scoredDay + .hours(10), .close)])
        let fetches = [scoredDay + .hours(2), scoredDay + .hours(3), relaunch + .hours(1)]
        let ios = simulator(.ios).replay(h, policies: [AtTimes(times: fetches)])[0][0]
        #expect(ios.skips[SkipReason.allCases.firstIndex(of: .forceQuit)!] == 2)
        #expect(ios.fetches == 1)
        let none = simulator(.none).replay(h, policies: [AtTimes(times: fetches)])[0][0]
        #expect(none.fetches == 3)
        #expect(none.skips.allSatisfy { $0 == 0 })
    }

    @Test func theThirtySecondBudgetExpiresAFortySecondFetch() {
        var cost = CostModel()
        cost.perApp["com.app0"] = AppFetchCost(duration: .seconds(40), bytes: 1_000_000)
        let launch = scoredDay + .hours(3)
        let h = user(launches: [day0, launch])
        let o = simulator(.ios, cost: cost).replay(h, policies: [AtTimes(times: [launch - .minutes(5)])])[0][0]
        #expect(o.skips[SkipReason.allCases.firstIndex(of: .expired)!] == 1)
        #expect(o.fetches == 1)  // it ran, and spent energy …
        #expect(o.batteryJoules > 0)
        #expect(o.fresh[1] == 0)  // … but refreshed nothing
        #expect(o.wasted == 0)
        // A 20 s fetch fits.
        cost.perApp["com.app0"] = AppFetchCost(duration: .seconds(20), bytes: 1_000_000)
        let fits = simulator(.ios, cost: cost).replay(h, policies: [AtTimes(times: [launch - .minutes(5)])])[0][0]
        #expect(fits.fresh[1] == 1)
        #expect(fits.skips.allSatisfy { $0 == 0 })
    }

    @Test func iosRefusesOnLowPowerLowBatteryNoNetworkRefreshOffAndTooSoon() {
        let t = scoredDay + .hours(1)
        func skips(
            _ context: [ContextSample], events: [(Instant, UsageEventKind)] = [], times: [Instant]? = nil
        )
            -> [SkipReason: Int]
        {
            let h = user(launches: [day0, scoredDay + .hours(6)], events: events, context: context)
            // These rules alone: the daily wake budget (one here) is IOSSystemSchedulerTests'.
            var ios = simulator(.ios)
            ios.settings.platform.iosWakeBudgetMax = 0
            let o = ios.replay(h, policies: [AtTimes(times: times ?? [t])])[0][0]
            var out: [SkipReason: Int] = [:]
            for (k, r) in SkipReason.allCases.enumerated() where o.skips[k] > 0 { out[r] = o.skips[k] }
            return out
        }
        #expect(skips([ContextSample(time: t - 1, lowPower: true)]) == [.lowPower: 1])
        #expect(skips([ContextSample(time: t - 1, battery: 15, charging: false)]) == [.lowBattery: 1])
        #expect(skips([ContextSample(time: t - 1, battery: 15, charging: true)]) == [:])
        #expect(skips([ContextSample(time: t - 1, network: NetworkType.none)]) == [.noNetwork: 1])
        #expect(skips([], events: [(t - .hours(1), .refreshOff)]) == [.refreshOff: 1])
        #expect(skips([], events: [(t - .hours(1), .refreshOff), (t - 1, .refreshOn)]) == [:])
        #expect(skips([], times: [t, t + .minutes(10), t + .minutes(15)]) == [.minimumInterval: 1])
    }

    @Test func androidDefersByStandbyBucket() {
        // Last used at day0 + 1 h; S is day0 + 2 d; fetch requests every 30 minutes of that day (last
        // use over a day ago: the frequent bucket, one job per 8 hours).
        let start = day0 + .days(2)
        let h = user(launches: [day0 + .hours(1), start + .days(1) + .hours(1)])
        let times = (0..<48).map { start + .minutes(30 * Int64($0)) }
        let o = simulator(.android).replay(h, policies: [AtTimes(times: times)])[0][0]
        #expect(o.fetches == 3)  // 0 h, 8 h, 16 h
        #expect(o.skips[SkipReason.allCases.firstIndex(of: .quota)!] == 45)
        var gate = PlatformGate(model: PlatformModel(kind: .android), offset: 0)
        gate.observe(UsageEvent(time: 0, offset: 0, app: 0))
        #expect(gate.deferral(at: .minutes(30)) == 0)
        #expect(gate.deferral(at: .hours(5)) == .hours(2))
        #expect(gate.deferral(at: .days(3)) == .hours(8))
        #expect(gate.deferral(at: .days(10)) == .hours(24))
    }
}

@Suite struct ContextTests {
    @Test func aSampleHoldsThenTheDefaultApplies() {
        var defaults = ContextDefaults()
        defaults.hold = .hours(6)
        let timeline = ContextTimeline(
            samples: [
                ContextSample(time: .hours(1), battery: 30, network: .cellular),
                ContextSample(time: .hours(2), charging: true),
            ], defaults: defaults)
        #expect(timeline.state(at: 0) == defaults.state)
        let mid = timeline.state(at: .hours(5))
        #expect(mid.network == .cellular && mid.battery == 30 && mid.charging)
        // The battery sample is 7 h old, the charging one 6 h: only the latter still holds.
        let late = timeline.state(at: .hours(8))
        #expect(late.network == .wifi && late.battery == 80 && late.charging)
        #expect(timeline.state(at: .hours(9)) == defaults.state)
        #expect(ContextTimeline(samples: [], defaults: defaults).isEmpty)
    }
}

@Suite struct MetricTests {
    @Test func stalenessLeadAndWasteOnAHandMadeDay() throws {
        // Launches at 1 h, 2 h, 2 h 10 m, 6 h; fetches at 0:50 (used at 1 h, lead 10 m), 1:40 and
        // 1:55 (1:40 superseded by 1:55: wasted; 1:55 used at 2 h, lead 5 m), 5:00 and 9:00 (no
        // launch after 9:00: wasted). Launch refreshes on.
        let s = scoredDay
        let launches = [s + .hours(1), s + .hours(2), s + .hours(2) + .minutes(10), s + .hours(6)]
        let fetches = [
            s + .minutes(50), s + .minutes(100), s + .minutes(115), s + .hours(5), s + .hours(9),
        ]
        let h = user(launches: [day0] + launches, events: [(s + .hours(10), .close)])
        let o = try #require(
            simulator(.none, refreshes: true).replay(h, policies: [AtTimes(times: fetches)]).first?.first)
        #expect(o.scored == 4)
        // Staleness: 10 m, 5 m, 10 m (the previous launch), 60 m.
        #expect(o.staleness == [.minutes(10), .minutes(5), .minutes(10), .minutes(60)])
        #expect(o.fresh == [1, 3, 4])
        #expect(o.leads == [.minutes(10), .minutes(5)])
        #expect(o.wasted == 2)
        #expect(o.fetches == 5)
        var sums = MetricSums(taus: 3)
        sums.add(o)
        sums.costUnits = 1
        let m = sums.metrics(
            taus: [5, 15, 60].map { .minutes(fractional: $0) }, primary: 1, batteryJoules: 43_200)
        #expect(m.stalenessMedianMinutes == 10)
        #expect(m.stalenessP90Minutes == 60)
        #expect(m.leadMedianMinutes == 5)
        #expect(m.wastedShare == 0.4)
    }

    @Test func contentFreshnessCountsNewerContent() {
        let s = scoredDay
        // Content at 0:30 and 3:00; launches at 1 h (fetched at 0:45: content fresh) and 4 h (last
        // refresh the 1 h launch, content of 3:00 newer: not content-fresh).
        let h = user(launches: [day0, s + .hours(1), s + .hours(4)], content: [s + .minutes(30), s + .hours(3)])
        let o = simulator(.none, refreshes: true).replay(h, policies: [AtTimes(times: [s + .minutes(45)])])[0][0]
        #expect(o.contentScored == 2)
        #expect(o.contentFresh == 1)
    }

    @Test func histogramQuantilesAreBinEdges() {
        var h = DurationHistogram()
        for s in [30, 90, 4_000, 100_000] { h.add(.seconds(Int64(s))) }
        h.add(nil)
        #expect(h.quantileMinutes(0.2) == 0.5)
        #expect(h.quantileMinutes(0.4) == 1.5)
        #expect(h.quantileMinutes(0.6) == Double(3_600 + 6 * 60) / 60)  // 4,000 s: the 1-minute bin at 66 min
        #expect(h.quantileMinutes(0.8) == Double(86_400 + 15 * 900) / 60)
        #expect(h.quantileMinutes(1.0) == nil)  // never refreshed
        #expect(DurationHistogram().quantileMinutes(0.5) == nil)
    }
}

@Suite struct FixedClosedFormTests {
    /// The closed form of fixed intervals gives what the event-by-event replay gives.
    @Test(arguments: [Microseconds.minutes(15), .hours(1), .hours(7), .hours(24)])
    func closedFormEqualsTheReplay(interval: Microseconds) throws {
        var draws = SeededDraws(seed: 11)
        func next(_ n: UInt64) -> UInt64 {
            let x = draws.next()
            return (x >> 33) % n
        }
        var launches: [UsageEvent] = []
        var t = day0 + .minutes(7)
        while t < day0 + .days(20) {
            t += .seconds(Int64(next(9_000)))
            launches.append(UsageEvent(time: t, offset: 3_600, app: Int32(next(3))))
        }
        var context: [ContextSample] = []
        var c = day0
        while c < day0 + .days(20) {
            c += .seconds(Int64(next(40_000)))
            context.append(
                ContextSample(
                    time: c, battery: Double(next(100)), charging: next(3) == 0,
                    network: [NetworkType.wifi, .cellular, .none][Int(next(3))], lowPower: next(5) == 0))
        }
        let content = (0..<60).map { ContentUpdate(time: day0 + .hours(Int64($0) * 8), app: Int32($0 % 3)) }
        let h = UserHistory(
            user: "u", apps: ["a", "b", "c"], launches: launches, context: context, contentUpdates: content)
        var e = EvaluationProtocol()
        e.minLaunches = 5
        var settings = ReplaySettings()
        settings.cost.perApp["b"] = AppFetchCost(duration: .seconds(9), bytes: 2_000_000)
        let sim = Simulator(evaluation: e, settings: settings)
        let window = try #require(e.window(of: h))
        let user = UserSetup(history: h, window: window, evaluation: e, context: settings.context, cost: settings.cost)
        #expect(FixedReplay.applies(interval: interval, user: user, settings: settings))
        let closed = sim.replay(user, policy: FixedIntervalPolicy(interval: interval))
        let replayed = sim.replayEventByEvent(user, policy: FixedIntervalPolicy(interval: interval))
        #expect(closed.count == 3)
        for (a, b) in zip(closed, replayed) {
            #expect(a.scored == b.scored && a.fresh == b.fresh && a.fetches == b.fetches)
            #expect(a.staleness == b.staleness && a.leads == b.leads && a.wasted == b.wasted)
            #expect(a.contentScored == b.contentScored && a.contentFresh == b.contentFresh)
            #expect(a.lowBattery == b.lowBattery)
            #expect(abs(a.batteryJoules - b.batteryJoules) < 1e-6 * max(1, b.batteryJoules))
            #expect(abs(a.cellularBytes - b.cellularBytes) < 1e-6 * max(1, b.cellularBytes))
        }
        #expect(replayed.contains { $0.batteryJoules > 0 && $0.cellularBytes > 0 && $0.lowBattery > 0 })
        // Under a platform model, or too short an interval, the replay runs event by event.
        var ios = settings
        ios.platform.kind = .ios
        #expect(!FixedReplay.applies(interval: interval, user: user, settings: ios))
        #expect(!FixedReplay.applies(interval: .seconds(10), user: user, settings: settings))
        // The shortest interval a name may ask for still takes the closed form (memory in
        // proportion to launches, not fetches); shorter ones are refused when parsed.
        #expect(FixedReplay.applies(interval: FixedIntervalPolicy.shortest, user: user, settings: settings))
        #expect {
            _ = try PolicyRegistry.parse("fixed(1s)")
        } throws: { error in
            "\(error)".contains("interval '1s' is not a duration from 5m to 365d")
        }
        #expect(try PolicyRegistry.parse("fixed(5m)").first?.name == "fixed(5m)")
    }
}

@Suite struct FetchOutlookTests {
    @Test func sharesAndEnergyComeFromTheSameMomentOfPastDays() {
        // Every day at 09:00: Wi-Fi on even days, cellular on odd days; charging on days divisible by 4.
        var samples: [ContextSample] = []
        for d in 0..<30 {
            let network: NetworkType = d % 2 == 0 ? .wifi : .cellular
            let at: Instant = day0 + .days(Int64(d)) + .hours(9)
            samples.append(ContextSample(time: at, battery: 60, charging: d % 4 == 0, network: network))
        }
        let origin = day0 + .days(30)
        let o = FetchOutlook.estimate(
            at: origin + .hours(9) + .minutes(5), samples: samples, origin: origin, duration: .seconds(3), days: 8)
        // Days 22 to 29: four on Wi-Fi (two of them charging), four on cellular.
        #expect(o.days == 8)
        #expect(o.wifi == 0.5 && o.cellular == 0.5 && o.offline == 0)
        #expect(o.charging == 0.25)
        let cost = CostModel()
        let wifi = cost.energy(of: [RadioUse(start: .epoch, duration: .seconds(3), network: .wifi)])[0]
        let cell = cost.energy(of: [RadioUse(start: .epoch, duration: .seconds(3), network: .cellular)])[0]
        #expect(abs(o.joules - (2 * wifi + 4 * cell) / 8) < 1e-9)
        // Samples after the origin are not read.
        let later: Instant = origin + .hours(1)
        let future = samples + [ContextSample(time: later, network: NetworkType.none)]
        let at: Instant = origin + .hours(9)
        let a = FetchOutlook.estimate(at: at, samples: future, origin: origin, duration: .seconds(3))
        let b = FetchOutlook.estimate(at: at, samples: samples, origin: origin, duration: .seconds(3))
        #expect(a == b)
    }
}

@Suite struct TraceTests {
    @Test func aDayShowsLaunchesFetchOutcomesSkipsAndContext() throws {
        let s = scoredDay
        // Launches at 1:00, 2:00, 2:10 and 6:00; fetches at 0:50 (useful), 1:40 (wasted: 1:55
        // follows), 1:55 (useful), 2:05 (used: 2:10 is fresh from the 2:00 launch anyway), 5:00 (used:
        // 6:00 is an hour later), 9:00 (wasted: nothing after); force-quit at 7:00, so under iOS
        // the 9:00 fetch is refused. Context: cellular from 3:00 (held 6 h).
        let launches = [s + .hours(1), s + .hours(2), s + .hours(2) + .minutes(10), s + .hours(6)]
        let fetches = [
            s + .minutes(50), s + .minutes(100), s + .minutes(115), s + .minutes(125), s + .hours(5), s + .hours(9),
        ]
        let h = user(
            launches: [day0] + launches, events: [(s + .hours(7), .forceQuit), (s + .hours(10), .close)],
            context: [ContextSample(time: s + .hours(3), network: .cellular)])
        let policy = AtTimes(times: fetches)
        let none = try #require(simulator(.none, refreshes: true).trace(h, policies: [policy], choice: "test"))
        #expect(none.day == CivilDate(daysSince1970: LocalCalendar.day(s, offset: 0)).description)
        #expect(none.apps == ["com.app0"])
        let day = none.policies[0]
        #expect(day.launches.map(\.fresh) == [true, true, true, false])
        #expect(day.launches.map(\.stalenessMinutes) == [10, 5, 5, 60])
        #expect(day.fetches.map(\.outcome) == ["useful", "wasted", "useful", "used", "used", "wasted"])
        #expect(day.skips.isEmpty)
        // Cellular from 3:00 for the 6-hour hold, then the default again.
        #expect(none.context.map(\.network) == [NetworkType.wifi, .cellular, .wifi])
        #expect(none.context[2].start == s + .hours(9) + 1)
        #expect(none.context.first?.start == none.start && none.context.last?.end == none.end)
        #expect(!none.assumedContext)
        // Without a single context sample the day's context is the assumed defaults, and says so.
        let unsampled = user(
            launches: [day0] + launches, events: [(s + .hours(7), .forceQuit), (s + .hours(10), .close)], context: [])
        let assumed = try #require(simulator(.none, refreshes: true).trace(unsampled, policies: [policy], choice: "t"))
        #expect(assumed.assumedContext)
        let defaults = ContextDefaults()
        #expect(assumed.context.allSatisfy { $0.network == defaults.network && $0.battery == defaults.battery })
        // The force-quit and spacing rules alone (the daily wake budget, one fetch here, aside).
        var rules = simulator(.ios, refreshes: true)
        rules.settings.platform.iosWakeBudgetMax = 0
        let ios = try #require(rules.trace(h, policies: [policy], choice: "test"))
        #expect(ios.policies[0].skips.map(\.reason) == [.minimumInterval, .forceQuit])  // 1:55 is 15 min after 1:40
        // A day outside the scored span has no trace.
        #expect(simulator(.none).trace(h, day: CivilDate(daysSince1970: 0), policies: [policy], choice: "x") == nil)
    }
}
