import FetchLabCore
import FetchLabResults
import Testing

@testable import FetchLabSimulation

/// A scheduler is shown only the usage events it observes (``FetchScheduler/observedEvents``); the
/// replay must come out exactly as if it were shown every event: same fetches, same refusals,
/// same stated probabilities, alone and in a predictive group, on every platform.
@Suite struct ObservedEventsTests {
    /// Seeded users whose logs hold every kind of event: launches of four apps, a close after
    /// most, force-quits, refresh switches, notifications, unlocks, screen-ons and system-UI
    /// screens of the device, content updates, and device context.
    static func users() -> [UserSetup] {
        (UInt64(1)...4).compactMap { seed in
            var rng = SplitMix64(seed: seed &* 7_919)
            let apps = (0..<4).map { AppID("com.app\($0)") } + [AppID.device]
            let device: Int32 = 4
            var launches: [UsageEvent] = []
            var others: [UsageEvent] = []
            for (t, app) in randomLaunches(seed: seed, days: 18, apps: 4) {
                launches.append(UsageEvent(time: t, offset: 3_600, app: app))
                let roll = rng.next() % 20
                let after = t + .seconds(Int64(5 + rng.next() % 600))
                switch roll {
                case 0: others.append(UsageEvent(time: after, offset: 3_600, app: app, kind: .forceQuit))
                case 1: others.append(UsageEvent(time: after, offset: 3_600, app: app, kind: .refreshOff))
                case 2: others.append(UsageEvent(time: after, offset: 3_600, app: app, kind: .refreshOn))
                case 3: others.append(UsageEvent(time: after, offset: 3_600, app: app, kind: .notification))
                default: others.append(UsageEvent(time: after, offset: 3_600, app: app, kind: .close))
                }
                let kinds: [UsageEventKind] = [.unlock, .screenOn, .systemUI]
                others.append(
                    UsageEvent(time: t - .seconds(3), offset: 3_600, app: device, kind: kinds[Int(rng.next() % 3)]))
            }
            var t = day0
            let context = (0..<500).map { i in
                t += Microseconds(rng.next() % 3_600_000_000)
                return ContextSample(
                    time: t, battery: Double(rng.next() % 100), charging: i % 3 == 0,
                    network: i % 2 == 0 ? .wifi : .cellular, utcOffset: 3_600)
            }
            let updates = (0..<300).map { _ in
                ContentUpdate(
                    time: day0 + Microseconds(rng.next() % UInt64(Microseconds.days(18).value)),
                    app: Int32(rng.next() % 4),
                    utcOffset: 0)
            }
            let h = UserHistory(
                user: UserID("user\(seed)"), apps: apps, launches: launches, events: others, context: context,
                contentUpdates: updates)
            let e = evaluation(warmUp: 1, minLaunches: 20)
            guard let window = e.window(of: h) else { return nil }
            return UserSetup(history: h, window: window, evaluation: e, context: ContextDefaults())
        }
    }

    static let policies =
        "fixed(1h),ios-adaptive,workmanager,workmanager(24h,15m,none,aligned),android-prefetch,budgeted(3),push(3),"
        + "predictive(10m,0.3),predictive-cost-aware(15m,0.2),budgeted(200j)"

    @Test(arguments: [PlatformKind.none, .ios, .android])
    func eachSchedulerReplaysAsIfShownEveryEvent(platform: PlatformKind) throws {
        let policies = try PolicyRegistry.parseList(Self.policies)
        var settings = ReplaySettings()
        settings.platform.kind = platform
        let users = Self.users()
        #expect(users.count == 4)
        var fetches = 0
        for user in users {
            #expect(user.pairs.count >= 3)
            for policy in policies {
                for pair in user.pairs.indices {
                    let shown = PolicyRunner.run(policy, pair: pair, of: user, settings: settings, logSkips: true)
                    let all = PolicyRunner.run(
                        policy, pair: pair, of: user, settings: settings, logSkips: true, everyEvent: true)
                    #expect(Outcome(shown) == Outcome(all), "\(policy.name), \(user.history.user), pair \(pair)")
                    fetches += all.fetches.count
                }
            }
        }
        #expect(fetches > 0)
    }

    @Test(arguments: [PlatformKind.none, .ios, .android])
    func aPredictiveGroupReplaysAsIfShownEveryEvent(platform: PlatformKind) throws {
        let group = try PolicyRegistry.parseList(
            "predictive(10m,0.2),predictive(10m,0.55),predictive-cost-aware(10m,0.3),predictive(10m,0.1,time-of-day)"
        ).map { $0 as! PredictivePolicy }
        var settings = ReplaySettings()
        settings.platform.kind = platform
        for user in Self.users() {
            for pair in user.pairs.indices {
                let shown = PolicyRunner.run(predictive: group, pair: pair, of: user, settings: settings)
                let all = PolicyRunner.run(
                    predictive: group, pair: pair, of: user, settings: settings, everyEvent: true)
                #expect(shown.map(Outcome.init) == all.map(Outcome.init), "\(user.history.user), pair \(pair)")
                #expect(all.contains { !$0.fetches.isEmpty })
            }
        }
    }

    /// The selections hold what they say, and are shorter than the whole log (else the test above
    /// shows nothing).
    @Test func theSelectionsHoldTheOwnAppsEventsAndTheLaunches() {
        for user in Self.users() {
            for (i, pair) in user.pairs.enumerated() {
                let own = user.events(.ownApp, pair: i)
                let withLaunches = user.events(.ownAppAndLaunches, pair: i)
                #expect(own == user.events.filter { $0.app == pair.app })
                #expect(withLaunches == user.events.filter { $0.app == pair.app || $0.kind == .launch })
                #expect(own.count < withLaunches.count && withLaunches.count < user.events.count)
                #expect(user.events(.all, pair: i) == user.events)
            }
        }
    }
}

/// A pair run's outcome, comparable.
private struct Outcome: Equatable {
    var fetches: [DoneFetch]
    var skips: [Int]
    var stated: [Instant]
    var probabilities: [Double]
    var skipLog: [Instant]
    var reasons: [SkipReason]

    init(_ run: PairRun) {
        fetches = run.fetches
        skips = run.skips
        stated = run.stated.map(\.time)
        probabilities = run.stated.map(\.p)
        skipLog = run.skipLog.map(\.time)
        reasons = run.skipLog.map(\.reason)
    }
}
