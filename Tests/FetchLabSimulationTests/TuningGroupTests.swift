import FetchLabCore
import FetchLabResults
import Testing

@testable import FetchLabSimulation

/// Apps (index 0: "com.app0" …) launched at the given times, for one user.
private func user(_ name: String, _ launches: [(Instant, Int32)], apps: Int) -> UserHistory {
    var h = history(launches.sorted { $0.0 < $1.0 }, apps: apps)
    h.user = UserID(name)
    return h
}

/// A launch every `step` from 12:00 on day 0 through `days` days.
private func stream(every step: Microseconds, days: Int64, app: Int32 = 0) -> [(Instant, Int32)] {
    stride(from: 0, to: Microseconds.days(days).value, by: Int(step)).map {
        (day0 + .hours(12) + Microseconds($0), app)
    }
}

/// A launch at 12:10 every day (fixed intervals fetch at 12:00 from the user's first launch at 12:00).
private func noon(days: Int64, app: Int32) -> [(Instant, Int32)] {
    (0..<days).map { (day0 + .days($0) + .hours(12) + .minutes(10), app) }
}

private func run(_ histories: [UserHistory], objective: Objective, constraints: String, minGroupLaunches: Int = 5)
    throws -> TuningResult
{
    var tuner = Tuner(
        simulator: Simulator(evaluation: evaluation(warmUp: 1, minLaunches: 20, refreshes: false)),
        space: try SearchSpace.parse(family: "fixed", grid: nil), objective: objective,
        constraints: try TuningConstraint.parseList(constraints))
    tuner.minGroupLaunches = minGroupLaunches
    return try tuner.run { body in body(histories) }
}

@Suite struct TuningGroupTests {
    /// A chat app used every minute and a news app opened once a day at 12:10, one user, at most
    /// 7 fetches per app per day on average. One interval for both can be 4h at most (6 a day);
    /// chosen together, news needs one fetch a day (fixed(24h) keeps it fresh) and the chat app
    /// gets the rest: fixed(2h), twice as fresh (15m/2h against 15m/4h).
    @Test func appsChosenTogetherShareTheBudget() throws {
        let h = user("u", stream(every: .minutes(1), days: 40, app: 0) + noon(days: 40, app: 1), apps: 2)
        let r = try run(
            [h], objective: Objective(metric: .fresh(.minutes(15)), maximize: true), constraints: "fetches<=7")
        let fold = r.folds[0]
        #expect(fold.chosen == "fixed(4h)")
        let perApp = try #require(fold.perApp)
        let settings = Dictionary(uniqueKeysWithValues: perApp.assignments.map { ($0.app, $0.setting) })
        #expect(settings == ["com.app0": "fixed(2h)", "com.app1": "fixed(24h)"])
        #expect(perApp.feasibleOnTrain)
        #expect(perApp.train.fetchesPerAppDay <= 7)
        // Replayed as one policy on the held-out days: fresher than the overall choice, within budget.
        #expect(perApp.test.fresh15 > fold.chosenTest.fresh15 + 0.05)
        #expect(perApp.test.fetchesPerAppDay <= 7.1)
        let chat = try #require(fold.groups.first { $0.kind == .app && $0.group == "com.app0" })
        #expect(abs(chat.chosenTest.fresh15 - 0.125) < 0.01 && abs(chat.globalTest.fresh15 - 0.0625) < 0.01)
        #expect(abs(chat.gain - 0.0625) < 0.01)
        let news = try #require(fold.groups.first { $0.kind == .app && $0.group == "com.app1" })
        #expect(news.chosen == "fixed(24h)" && news.chosenTest.fresh15 == 1 && news.gain == 0)
    }

    /// Apps with too few training launches keep the overall choice: no per-app recommendation here.
    @Test func appsWithFewLaunchesKeepTheOverallChoice() throws {
        let h = user("u", stream(every: .minutes(1), days: 40, app: 0) + noon(days: 40, app: 1), apps: 2)
        let r = try run(
            [h], objective: Objective(metric: .fresh(.minutes(15)), maximize: true), constraints: "fetches<=7",
            minGroupLaunches: 1_000_000)
        #expect(r.folds[0].perApp == nil)
        #expect(r.folds[0].groups.filter { $0.kind == .app }.isEmpty)
    }

    /// Two users opening the app once a day, two every ten minutes, two every minute; least energy
    /// with fresh@15m ≥ 0.5. The overall choice must serve the frequent users (fixed(30m)); the
    /// light users alone are served by one fetch a day.
    @Test func groupsOfUsersGetTheirOwnSetting() throws {
        let light = (0..<2).map { user("light\($0)", noon(days: 40, app: 0), apps: 1) }
        let moderate = (0..<2).map { user("moderate\($0)", stream(every: .minutes(10), days: 40), apps: 1) }
        let heavy = (0..<2).map { user("heavy\($0)", stream(every: .minutes(1), days: 40), apps: 1) }
        let r = try run(
            light + moderate + heavy, objective: Objective(metric: .energy, maximize: false),
            constraints: "fresh@15m>=0.5")
        let fold = r.folds[0]
        #expect(fold.chosen == "fixed(30m)")
        let groups = fold.groups.filter { $0.kind == .users }
        #expect(groups.count == 3)
        let lightGroup = try #require(groups.first { $0.group.hasPrefix("light users") })
        #expect(lightGroup.chosen == "fixed(24h)")
        #expect(lightGroup.chosenTest.fresh15 == 1)
        #expect(lightGroup.chosenTest.energyJoulesPerDay < lightGroup.globalTest.energyJoulesPerDay / 10)
        #expect(lightGroup.gain > 0)
        let heavyGroup = try #require(groups.first { $0.group.hasPrefix("heavy users") })
        #expect(heavyGroup.chosen == "fixed(30m)" && heavyGroup.gain == 0)
    }

    /// Users are grouped by their launches per day on the training days only.
    @Test func terciles() {
        #expect(Tuner.tercileThresholds([1, 2, 3, 4, 5]) == nil)
        let t = try! #require(Tuner.tercileThresholds([1, 1, 10, 10, 100, 100]))
        #expect(t == (10, 100))
        #expect(Tuner.activityGroup(1, t).hasPrefix("light users (< 10.0"))
        #expect(Tuner.activityGroup(10, t).hasPrefix("moderate users"))
        #expect(Tuner.activityGroup(100, t).hasPrefix("heavy users (≥ 100.0"))
    }
}

@Suite struct PlatformSampleTests {
    /// Up to 1,000 held-out users all replay the platform settings; more, about 1,000 of them.
    @Test func platformSettingsAreReplayedOnAboutAThousandUsers() {
        #expect(Tuner.platformSampleEvery(heldOutUsers: 0) == 1)
        #expect(Tuner.platformSampleEvery(heldOutUsers: 1_000) == 1)
        #expect(Tuner.platformSampleEvery(heldOutUsers: 1_001) == 2)
        #expect(Tuner.platformSampleEvery(heldOutUsers: 10_000) == 10)
        let names = (0..<10_000).map { "u\($0)" }
        let kept = names.filter { Tuner.inRung($0, every: Tuner.platformSampleEvery(heldOutUsers: names.count)) }
        #expect(kept.count > 900 && kept.count < 1_100, "\(kept.count)")
    }
}

@Suite struct SuccessiveHalvingTests {
    @Test func rungsNest() {
        let names = (0..<2000).map { "user\($0)" }
        let quarter = names.filter { Tuner.inRung($0, every: 4) }
        let sixteenth = names.filter { Tuner.inRung($0, every: 16) }
        #expect(sixteenth.allSatisfy { Tuner.inRung($0, every: 4) })
        #expect(quarter.count > 400 && quarter.count < 600)
        #expect(sixteenth.count > 90 && sixteenth.count < 160)
    }

    private func uniformUsers(_ n: Int) -> [UserHistory] {
        (0..<n).map { u in user("user\(u)", stream(every: .minutes(5), days: 12), apps: 1) }
    }

    private func tuner(_ constraint: String) throws -> Tuner {
        var t = Tuner(
            simulator: Simulator(evaluation: evaluation(warmUp: 1, minLaunches: 20, refreshes: false)),
            space: try SearchSpace.parse(
                family: "fixed", grid: "interval=15m,20m,30m,45m,1h,90m,2h,3h,4h,6h,8h,12h,24h"),
            objective: Objective(metric: .fresh(.minutes(15)), maximize: true),
            constraints: try TuningConstraint.parseList(constraint))
        t.method = .halving
        t.minRungUsers = 4
        t.groupUsers = false
        return t
    }

    /// 96 users opening the app every 5 minutes, at most 7 fetches a day: the analytic answer is
    /// fixed(4h) (6 a day); halving finds it at a fraction of the grid's replays.
    @Test func halvingFindsTheAnalyticIntervalForLess() throws {
        let users = uniformUsers(96)
        let halving = try tuner("fetches<=7").run { $0(users) }
        var gridTuner = try tuner("fetches<=7")
        gridTuner.method = .grid
        let grid = try gridTuner.run { $0(users) }
        #expect(grid.folds[0].chosen == "fixed(4h)")
        #expect(halving.folds[0].chosen == "fixed(4h)")
        #expect(halving.folds[0].screened == 13)
        #expect(halving.folds[0].replays < 13)
        #expect(halving.replayCost < 0.5 * grid.replayCost, "halving \(halving.replayCost), grid \(grid.replayCost)")
        #expect(grid.replayCost == 13)
    }

    /// A budget spent after the first rung: the other rung is skipped and the two best so far are
    /// replayed on all users; the fold says it was cut short.
    @Test func aSpentBudgetSkipsTheRungsLeft() throws {
        let users = uniformUsers(96)
        var t = try tuner("fetches<=7")
        t.budgetSpent = { true }
        let r = try t.run { $0(users) }
        #expect(r.folds[0].cutShort == true)
        #expect(r.folds[0].replays == 2 && r.folds[0].tried.count == 2)
        #expect(r.folds[0].chosen == "fixed(4h)")
        let full = try tuner("fetches<=7").run { $0(users) }
        // The quarter rung ran only without the budget.
        #expect(full.folds[0].cutShort == nil && full.replayCost > r.replayCost + 0.5)
    }

    /// Too few users for a rung: every setting is replayed on all of them, as the grid does.
    @Test func fewUsersMakeItAGrid() throws {
        let users = uniformUsers(5)
        let r = try tuner("fetches<=7").run { $0(users) }
        #expect(r.folds[0].replays == 13 && r.replayCost == 13 && r.folds[0].chosen == "fixed(4h)")
    }
}
