import FetchLabCore
import FetchLabResults
import Foundation
import Testing

@testable import FetchLabSimulation

/// A history of one app named `user`, launches at the given times.
private func named(_ user: String, _ launches: [Instant]) -> UserHistory {
    var h = history(launches.map { ($0, 0) })
    h.user = UserID(user)
    return h
}

/// A tuner over in-memory histories (one batch).
private func tune(
    _ histories: [UserHistory], family: String, grid: String? = nil, objective: Objective,
    constraints: String? = nil, method: SearchMethod = .grid,
    evaluation e: EvaluationProtocol = evaluation(warmUp: 1, minLaunches: 20),
    split: TuningSplit = .time(trainUntil: nil, folds: 1)
) throws -> TuningResult {
    var tuner = Tuner(
        simulator: Simulator(evaluation: e), space: try SearchSpace.parse(family: family, grid: grid),
        objective: objective,
        constraints: try constraints.map { try TuningConstraint.parseList($0) } ?? [])
    tuner.method = method
    tuner.split = split
    return try tuner.run { body in body(histories) }
}

private let freshness = Objective(metric: .fresh(.minutes(15)), maximize: true)

@Suite struct TuningParsingTests {
    @Test func constraintsParseIntoTypedBounds() throws {
        let c = try TuningConstraint.parseList(
            "battery<=1%/day, cellular<=5MB/day,fresh@15m>=0.6,fetches<=5,energy<=300J/day")
        #expect(c.map(\.metric) == [.battery, .cellular, .fresh(.minutes(15)), .fetches, .energy])
        #expect(c.map(\.atMost) == [true, true, false, true, true])
        #expect(c.map(\.bound) == [1, 5, 0.6, 5, 300])
        #expect(try TuningMetric.parse("fresh@1h") == .fresh(.hours(1)))
    }

    /// Gap closed rewarded spending nothing: asking for it is refused in one line that says what to
    /// ask instead, as an objective and in a constraint.
    @Test(arguments: ["gap", "gap-closed", "GAP"])
    func gapClosedIsRefusedWithWhatToUseInstead(name: String) {
        #expect {
            _ = try TuningMetric.parse(name)
        } throws: { error in
            let message = "\(error)"
            return message.contains("gap closed was removed") && message.contains("rewarded spending nothing")
                && message.contains("--maximize fresh@15m --subject-to \"fetches<=2\"") && !message.contains("\n")
        }
        #expect(throws: TuningError.self) { try TuningConstraint.parseList("\(name)>=0.5") }
    }

    @Test(arguments: [
        ("battery<1%/day", "battery<1%/day"), ("speed<=3", "speed"), ("fetches<=lots", "lots"),
        ("fresh@2d>=0.5", "fresh@2d"), ("fetches<=5<=6", "fetches<=5<=6"),
    ])
    func badConstraintsAreOneLineNamingThePart(text: String, part: String) {
        #expect {
            _ = try TuningConstraint.parseList("fetches<=5," + text)
        } throws: { error in
            let message = "\(error)"
            return message.contains(part) && !message.contains("\n") && !message.contains("fetches<=5,")
        }
    }

    @Test func badMetricsAreOneLine() {
        #expect(throws: TuningError.self) { try TuningMetric.parse("speed") }
        #expect(throws: TuningError.self) { try TuningMetric.parse("fresh@0s") }
    }

    @Test func gridsBuildCanonicalNames() throws {
        let predictive = try SearchSpace.parse(family: "predictive", grid: "lead=5m,10m,15m;threshold=0.2,0.3,0.4,0.55")
        let names = try predictive.settings.map { try predictive.name($0) }
        #expect(names.count == 12)
        #expect(names.first == "predictive(5m,0.2)")
        #expect(names.last == "predictive(15m,0.55)")
        #expect(names.contains("predictive(10m,0.4)"))
        #expect(predictive.middle == [1, 1])

        let fixed = try SearchSpace.parse(family: "fixed", grid: "interval=15m,30m,60m,2h,4h,8h,24h")
        #expect(
            try fixed.settings.map { try fixed.name($0) }
                == ["fixed(15m)", "fixed(30m)", "fixed(1h)", "fixed(2h)", "fixed(4h)", "fixed(8h)", "fixed(24h)"])
        let budgeted = try SearchSpace.parse(family: "budgeted", grid: "k=1,2,4,8")
        #expect(
            try budgeted.settings.map { try budgeted.name($0) } == [
                "budgeted(1)", "budgeted(2)", "budgeted(4)", "budgeted(8)",
            ])
        let ios = try SearchSpace.parse(family: "ios-adaptive", grid: "lead=5m,10m;min=15m,1h")
        #expect(
            try ios.settings.map { try ios.name($0) } == [
                "ios-adaptive(5m,15m)", "ios-adaptive(5m,1h)", "ios-adaptive(10m,15m)", "ios-adaptive(10m,1h)",
            ])
        let work = try SearchSpace.parse(family: "workmanager", grid: "period=1h,2h;flex=15m")
        #expect(
            try work.settings.map { try work.name($0) } == ["workmanager(1h,15m,none)", "workmanager(2h,15m,none)"])
    }

    @Test(
        arguments: [
            ("predictive", "speed=1", "speed"), ("predictive", "lead=5m;lead=10m", "lead"),
            ("fixed", "interval=0s", "'0s'"),
            ("oracle", nil, "oracle"), ("predictive", "threshold", "threshold"),
        ] as [(String, String?, String)])
    func badGridsAreOneLine(family: String, grid: String?, part: String) {
        #expect {
            _ = try SearchSpace.parse(family: family, grid: grid)
        } throws: { error in "\(error)".contains(part) && !"\(error)".contains("\n") }
    }
}

@Suite struct TunerTests {
    /// A launch every minute for 8 days: fixed(T) keeps the 16 launches at 0 to 15 minutes after
    /// each fetch fresh (launches do not refresh), 16m/T of them, at 24h/T fetches a day. The
    /// closed-form baseline at that rate keeps 15m/T, so each interval's gain over it is the one
    /// minute of the whole-minute stream, 1m/T, except fixed(15m), where both keep every launch
    /// (gain 0). Ranked by the gain, `fetches<=k` picks the shortest T with 24h/T ≤ k, except that
    /// under fetches<=100 fixed(30m) beats fixed(15m), which is no better than fetching blind.
    @Test(arguments: [
        (5.0, "fixed(8h)"), (7, "fixed(4h)"), (30, "fixed(1h)"), (100, "fixed(30m)"), (1.5, "fixed(24h)"),
    ])
    func aUniformStreamPicksTheIntervalWithTheAnalyticGain(k: Double, expected: String) throws {
        let launches = (0..<Int64(8 * 24 * 60)).map { day0 + .minutes($0) }
        var e = evaluation(warmUp: 1, minLaunches: 20, refreshes: false)
        e.minLaunches = 20
        let r = try tune(
            [named("u", launches)], family: "fixed", objective: freshness,
            constraints: "fetches<=\(PolicyRegistry.Arguments.numberName(k))", evaluation: e)
        let ranking = try #require(r.ranking)
        for row in ranking {
            let policy = try #require(try PolicyRegistry.parse(row.name).first as? FixedIntervalPolicy)
            let minutes = policy.interval.inMinutes
            let gain = min(1, 16 / minutes) - min(1, 15 / minutes)
            #expect(abs((row.train.gainVsFixed ?? 1) - gain) < 0.001, "\(row.name): \(row.train)")
        }
        #expect(r.folds[0].chosen == expected)
        #expect(r.folds[0].bestFixed == expected)
        #expect(r.replays == 7)
    }

    /// Settings that miss the constraint come after the feasible ones, the one that misses it
    /// least first (not the freshest): under fetches<=5, fixed(4h) (6 a day) before fixed(15m) (96).
    @Test func infeasibleSettingsRankByHowFarTheyMiss() throws {
        let launches = (0..<Int64(8 * 24 * 60)).map { day0 + .minutes($0) }
        let r = try tune(
            [named("u", launches)], family: "fixed", objective: freshness, constraints: "fetches<=5",
            evaluation: evaluation(warmUp: 1, minLaunches: 20, refreshes: false))
        let tried = r.folds[0].tried
        #expect(
            tried.map(\.name) == [
                "fixed(8h)", "fixed(24h)", "fixed(4h)", "fixed(2h)", "fixed(1h)", "fixed(30m)", "fixed(15m)",
            ])
        #expect(tried.filter(\.feasible).allSatisfy { $0.violation == 0 })
        #expect(abs(tried[2].violation - 0.2) < 0.01)  // 6 a day against at most 5
    }

    /// Users who open the app daily at noon ± a few minutes: the tuned lead is no longer than τ.
    @Test func aNoonHabitGetsALeadWithinTau() throws {
        let users = (0..<4).map { u in
            named(
                "user\(u)",
                (0..<30).map { d in
                    let jitter = Int64((d * 7 + u * 3) % 9) - 4  // −4 … +4 minutes
                    return day0 + .days(Int64(d)) + .hours(12) + .minutes(jitter)
                })
        }
        let r = try tune(
            users, family: "predictive", grid: "lead=1m,5m,10m,15m,30m;threshold=0.3", objective: freshness,
            evaluation: evaluation(warmUp: 7, minLaunches: 20))
        let chosen = try #require(try PolicyRegistry.parse(r.folds[0].chosen).first as? PredictivePolicy)
        #expect(chosen.lead <= .minutes(15), "\(r.folds[0].tried.map { ($0.name, $0.train.fresh15) })")
        #expect(r.folds[0].chosenTrain.fresh15 > 0.5)
        // Not a tie: a lead past τ scores worse.
        let late = try #require(r.folds[0].tried.first { $0.name == "predictive(30m,0.3)" })
        #expect(late.train.fresh15 < r.folds[0].chosenTrain.fresh15)
    }

    /// Coordinate descent from the middle reaches the grid's best training score within 1 % and
    /// replays no more settings than the grid.
    @Test func coordinateDescentMatchesTheGridWithFewerReplays() throws {
        let users = (0..<3).map { u in
            named("user\(u)", randomLaunches(seed: UInt64(u + 1), days: 16).map { $0.0 })
        }
        let grid = "lead=5m,10m,15m;threshold=0.1,0.3,0.55"
        let full = try tune(users, family: "predictive", grid: grid, objective: freshness, constraints: "fetches<=6")
        let descent = try tune(
            users, family: "predictive", grid: grid, objective: freshness, constraints: "fetches<=6",
            method: .coordinate)
        let best = full.folds[0].chosenTrain.objective
        let reached = descent.folds[0].chosenTrain.objective
        #expect(
            abs(reached - best) <= 0.01 * best,
            "grid \(full.folds[0].chosen) \(best), coordinate \(descent.folds[0].chosen) \(reached)")
        #expect(full.replays == 9)
        // The replays each search used: 9 for the grid, 5 for coordinate descent (the middle, two
        // more leads, two more thresholds; the second pass replays nothing new).
        #expect(descent.replays == 5)
        #expect(descent.replays <= full.replays, "coordinate replays \(descent.replays), grid \(full.replays)")
        #expect(descent.replays == Set(descent.folds[0].tried.map(\.name)).count)
    }

    /// Launches at 00:01 and 12:01 daily, after the cut also at 16:01. Minimising energy under
    /// fresh@15m ≥ 0.5, fixed(24h) is right on the training days (1 fetch a day, half fresh) but
    /// the extra test-period launches would favour fixed(8h) had they reached selection.
    @Test func noTestPeriodLaunchReachesSelection() throws {
        let cutDay: Int64 = 10
        func launches(extra: Bool) -> [Instant] {
            [day0]
                + (Int64(0)..<20).flatMap { d -> [Instant] in
                    let day = day0 + Microseconds.days(d)
                    return [day + .minutes(1), day + .hours(12) + .minutes(1)]
                        + (extra && d > cutDay ? [day + .hours(16) + .minutes(1)] : [])
                }
        }
        let plain = named("u", launches(extra: false))
        let extra = named("u", launches(extra: true))
        let energy = Objective(metric: .energy, maximize: false)
        let e = evaluation(warmUp: 1, minLaunches: 20, refreshes: false)
        let cut = CivilDate(daysSince1970: Int(day0.sinceEpoch / .perDay + cutDay))
        let a = try tune(
            [plain], family: "fixed", objective: energy, constraints: "fresh@15m>=0.5", evaluation: e,
            split: .time(trainUntil: cut, folds: 1))
        let b = try tune(
            [extra], family: "fixed", objective: energy, constraints: "fresh@15m>=0.5", evaluation: e,
            split: .time(trainUntil: cut, folds: 1))
        #expect(a.folds[0].chosen == "fixed(24h)")
        #expect(b.folds[0].chosen == a.folds[0].chosen)
        #expect(b.folds[0].tried == a.folds[0].tried)
        // The held-out days do differ, and had they been trained on, another setting would win.
        #expect(b.folds[0].chosenTest.fresh15 < a.folds[0].chosenTest.fresh15)
        let late = CivilDate(daysSince1970: Int(day0.sinceEpoch / .perDay + 18))
        let leaky = try tune(
            [extra], family: "fixed", objective: energy, constraints: "fresh@15m>=0.5", evaluation: e,
            split: .time(trainUntil: late, folds: 1))
        #expect(leaky.folds[0].chosen == "fixed(8h)")
    }

    @Test func foldsAndTheUserSplitAreDeterministic() throws {
        let users = (0..<6).map { u in named("user\(u)", randomLaunches(seed: UInt64(u + 10), days: 20).map(\.0)) }
        let folds = try tune(
            users, family: "fixed", objective: freshness, constraints: "fetches<=5",
            split: .time(trainUntil: nil, folds: 3))
        #expect(folds.folds.count == 3)
        #expect(folds.chosenTest.min <= folds.chosenTest.mean && folds.chosenTest.mean <= folds.chosenTest.max)
        let byUsers = try tune(users, family: "fixed", objective: freshness, constraints: "fetches<=5", split: .users)
        #expect(
            byUsers
                == (try tune(users, family: "fixed", objective: freshness, constraints: "fetches<=5", split: .users)))
        let trained = Tuner.trainingUsers(users.map(\.user.name)).count
        #expect(trained > 0 && trained < users.count)
    }

    @Test func randomSearchIsSeeded() throws {
        let space = try SearchSpace.parse(family: "predictive", grid: "lead=5m,10m,15m;threshold=0.2,0.3,0.4,0.55")
        let users = [named("u", randomLaunches(seed: 3, days: 12).map(\.0))]
        func draw(_ seed: UInt64) throws -> [String] {
            var tuner = Tuner(
                simulator: Simulator(evaluation: evaluation(warmUp: 1, minLaunches: 20)), space: space,
                objective: freshness)
            tuner.method = .random
            tuner.samples = 4
            tuner.seed = seed
            return try tuner.run { $0(users) }.folds[0].tried.map(\.name).sorted()
        }
        #expect(try draw(7) == (try draw(7)))
        #expect(try draw(7).count == 4)
        #expect(try draw(7) != (try draw(8)))
    }
}

@Suite struct ParetoTests {
    private func row(_ name: String, fresh: Double, joules: Double, cellular: Double) -> TriedSetting {
        TriedSetting(
            name: name, values: "",
            train: ScoreSummary(
                objective: fresh, fresh15: fresh, energyJoulesPerDay: joules, batteryPercentPerDay: 0,
                cellularMBPerDay: cellular, fetchesPerAppDay: 0, scoredLaunches: 1),
            feasible: true, pareto: false)
    }

    /// A setting is on the front unless another is no worse on fresh@15m, energy and cellular
    /// and better on one of them.
    @Test func theFrontLeavesOutDominatedSettings() {
        var rows = [
            row("a", fresh: 0.8, joules: 50, cellular: 1),  // the freshest
            row("b", fresh: 0.6, joules: 10, cellular: 1),  // the cheapest
            row("c", fresh: 0.6, joules: 20, cellular: 1),  // dominated by b
            row("d", fresh: 0.7, joules: 60, cellular: 2),  // dominated by a
            row("e", fresh: 0.5, joules: 30, cellular: 0),  // the least cellular
        ]
        Tuner.markPareto(&rows)
        #expect(rows.filter(\.pareto).map(\.name) == ["a", "b", "e"])
    }
}

@Suite struct PlatformSettingTests {
    @Test func aFixedIntervalBecomesTheIOSFloorAndAnAndroidPeriodicRequest() throws {
        let settings = PlatformTranslation.translate(FixedIntervalPolicy(interval: .hours(2))).map(\.setting)
        #expect(settings.map(\.platform) == [.ios, .android])
        #expect(settings[0].snippet.contains("setMinimumBackgroundFetchInterval(7200)"))
        #expect(settings[0].model == "fixed(2h)")
        // The interval is a floor: under iOS it is replayed as the system's scheduler runs it.
        #expect(settings[0].replayedAs == "ios-adaptive(10m,2h) within the daily wake budget")
        #expect(settings[1].replayedAs == nil)
        #expect(settings[1].snippet.contains("PeriodicWorkRequestBuilder<RefreshWorker>(120, TimeUnit.MINUTES, 15"))
        #expect(settings[1].model == "workmanager(2h,15m,none)")
        // Every model is a policy the registry reads back.
        for s in settings { #expect(try PolicyRegistry.parse(s.model).first?.name == s.model) }
        // Below Android's 15-minute minimum the period is raised, and the note says why.
        let short = PlatformTranslation.translate(FixedIntervalPolicy(interval: .minutes(5))).map(\.setting)
        #expect(short[1].model == "workmanager(15m,15m,none)" && short[1].note?.contains("15 min") == true)
    }

    @Test func aPredictivePolicyBecomesABackgroundTaskRequestBeforeThePredictedUse() throws {
        let policy = try #require(PolicyRegistry.parse("predictive(10m,0.3)").first)
        let settings = PlatformTranslation.translate(policy).map(\.setting)
        #expect(settings.map(\.platform) == [.ios, .android, .android])
        #expect(settings[0].snippet.contains("BGAppRefreshTaskRequest") && settings[0].snippet.contains("-600"))
        #expect(try PolicyRegistry.parse(settings[0].model).first?.family == "ios-adaptive")
        // A daily request whose 10-minute flex window ends at the habit, and the hourly Wi-Fi one.
        #expect(settings[1].model == "workmanager(24h,10m,none,aligned)")
        #expect(try PolicyRegistry.parse(settings[1].model).first?.name == settings[1].model)
        #expect(settings[1].snippet.contains("setInitialDelay") && settings[1].snippet.contains("UPDATE"))
        #expect(settings[2].model.hasPrefix("workmanager("))
        #expect(PlatformTranslation.translate(NeverPolicy()).map(\.setting).isEmpty)
    }

    @Test func silentPushIsAPushPolicyUnderIOS() throws {
        let push = PlatformTranslation.silentPush().setting
        #expect(push.platform == .ios && push.model == "push(3)")
        #expect(try PolicyRegistry.parse(push.model).first?.family == "push")
        #expect(push.snippet.contains("content-available") && push.snippet.contains("fetchCompletionHandler"))
    }
}
