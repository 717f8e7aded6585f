import FetchLabCore
import FetchLabResults
import Testing

@testable import FetchLabSimulation

/// One app of `user`, a close at day 0's midnight (t0, the fixed intervals' anchor) and launches at
/// the given times.
private func user(_ name: String, _ launches: [Instant]) -> UserHistory {
    var h = history(launches.sorted().map { ($0, 0) }, events: [day0])
    h.user = UserID(name)
    return h
}

private func tuner(
    family: String, grid: String?, objective: Objective, constraints: String? = nil, split: TuningSplit
) throws -> Tuner {
    var t = Tuner(
        simulator: Simulator(evaluation: evaluation(warmUp: 1, minLaunches: 5, refreshes: false)),
        space: try SearchSpace.parse(family: family, grid: grid), objective: objective,
        constraints: try constraints.map { try TuningConstraint.parseList($0) } ?? [])
    t.split = split
    return t
}

private let freshness = Objective(metric: .fresh(.minutes(15)), maximize: true)
private let threeFolds = TuningSplit.time(trainUntil: nil, folds: 3)

/// A launch at 00:05 every day of `days`, and one at `hour`:05.
private func daily(_ days: Range<Int64>, at hour: Int64) -> [Instant] {
    days.flatMap { d in [day0 + .days(d) + .minutes(5), day0 + .days(d) + .hours(hour) + .minutes(5)] }
}

@Suite struct TuningFoldTests {
    /// Days 1–40 are scored (the cuts after days 10, 20 and 30). Through day 10 the second launch
    /// of the day is at 12:05, which fixed(12h) keeps fresh and fixed(8h) does not; from day 11 it
    /// is at 16:05, the other way round. On the training parts fixed(12h) keeps 100, 75 and 67 %
    /// fresh, fixed(8h) 50, 75 and 83 % (means 81 against 69 %); on every test part (days after
    /// 10) fixed(8h) keeps 100 %, fixed(12h) 50 %. The choice is the best mean over the test parts:
    /// fixed(8h), for every fold; each fold's own pick, chosen on its training part alone, is
    /// measured there too as the estimate no test part informed.
    @Test func foldsChooseOneSettingByTheirMeanOverTheTestParts() throws {
        let h = user("u", daily(0..<11, at: 12) + daily(11..<41, at: 16))
        let r = try tuner(family: "fixed", grid: "interval=8h,12h", objective: freshness, split: threeFolds)
            .run { $0([h]) }
        #expect(r.folds.count == 3)
        #expect(r.chosen == "fixed(8h)")
        #expect(r.folds.allSatisfy { $0.chosen == "fixed(8h)" })
        #expect(r.folds.map { $0.chosenTest.fresh15 } == [1, 1, 1])
        #expect(r.folds.map { $0.chosenTest.scoredLaunches } == [20, 20, 20])
        // On the training parts fixed(12h) has the better mean; the ranking shown says so.
        func mean(_ name: String) -> Double {
            r.folds.map { f in f.tried.first { $0.name == name }!.train.objective }.reduce(0, +) / 3
        }
        #expect(abs(mean("fixed(12h)") - (1 + 0.75 + 2.0 / 3) / 3) < 0.01)
        #expect(mean("fixed(12h)") > mean("fixed(8h)"))
        let ranking = try #require(r.ranking)
        #expect(ranking.map(\.name) == ["fixed(12h)", "fixed(8h)"])
        // Each fold's own pick: fixed(12h) on the first two folds' training parts (50 % on their
        // test parts), fixed(8h) on the last's.
        #expect(r.folds.map(\.ownPick) == ["fixed(12h)", "fixed(12h)", "fixed(8h)"])
        #expect(r.folds.map { $0.ownPickTest?.fresh15 } == [0.5, 0.5, 1])
        #expect(r.ownPicksTest != nil)
    }

    /// Launches at 00:05 and 12:05 daily, from day 31 also at 16:05 (only the last fold's test
    /// days). Least fetches with fresh@15m ≥ 0.45: fixed(24h) keeps half fresh on every training
    /// part but misses on fold 3's test part (33 %), so the choice over the test parts is the
    /// cheapest interval of the grid within the bound on all three, fixed(8h) (100 % on fold 3:
    /// fetches at 0:00, 8:00 and 16:00); each fold's own
    /// pick, fixed(24h), is checked on its test part too, and the miss is counted.
    @Test func constraintsAreCheckedOnEveryTestPartAndCounted() throws {
        let extra = (31..<41).map { day0 + .days(Int64($0)) + .hours(16) + .minutes(5) }
        let h = user("u", daily(0..<41, at: 12) + extra)
        let r = try tuner(
            family: "fixed", grid: nil, objective: Objective(metric: .fetches, maximize: false),
            constraints: "fresh@15m>=0.45", split: threeFolds
        ).run { $0([h]) }
        #expect(r.chosen == "fixed(8h)")
        #expect(r.folds.map { $0.constraintsOnTest?.first?.held } == [true, true, true])
        #expect(r.constraintsHeld == [ConstraintTally(constraint: "fresh@15m>=0.45", held: 3, folds: 3)])
        #expect(r.folds.map(\.ownPick) == ["fixed(24h)", "fixed(24h)", "fixed(24h)"])
        let own = r.folds.map { $0.ownPickConstraintsOnTest?.first }
        #expect(own.map { $0?.held } == [true, true, false])
        #expect(abs((own[2]?.value ?? 0) - 1.0 / 3) < 0.01)
    }

    @Test func aUserSplitOfOneUserIsRefusedInOneLine() throws {
        let t = try tuner(family: "fixed", grid: nil, objective: freshness, split: .users)
        #expect {
            _ = try t.run { $0([user("solo", daily(0..<20, at: 12))]) }
        } throws: { error in
            let message = "\(error)"
            return error is TuningError && message.contains("at least 2 users") && message.contains("has 1")
                && !message.contains("\n")
        }
    }

    /// Three users: each is the test part of one fold and trains the other two; nothing is
    /// measured on no launches; one test user per fold is said, and warned about.
    @Test func aUserSplitOfThreeUsersLeavesEachOneOut() throws {
        let users = ["ann", "bob", "cyd"].enumerated().map { i, name in
            user(name, daily(0..<20, at: Int64(9 + 3 * i)))
        }
        let r = try tuner(
            family: "fixed", grid: "interval=1h,2h,4h", objective: freshness, constraints: "fetches<=12", split: .users
        ).run { $0(users) }
        #expect(r.folds.count == 3)
        #expect(r.folds.map(\.testUserNames) == [["ann"], ["bob"], ["cyd"]])
        #expect(r.folds.allSatisfy { $0.testUsers == 1 && $0.trainUsers == 2 && $0.chosenTest.scoredLaunches > 0 })
        #expect(r.folds.allSatisfy { $0.testInterval?.users == 1 && $0.testInterval?.low == nil })
        #expect(Set(r.folds.map(\.chosen)) == [r.chosen])
        #expect(r.split?.contains("leave one user out") == true)
        // Pooled over the folds: every user once, so an interval over three users.
        let pooled = try #require(r.heldOut)
        #expect(pooled.users == 3 && pooled.scoredLaunches == r.folds.reduce(0) { $0 + $1.chosenTest.scoredLaunches })
        #expect(pooled.low != nil && pooled.low! <= pooled.fresh && pooled.fresh <= pooled.high!)
        #expect(r.warnings?.count == 1 && r.warnings?[0].contains("fold 1: 1 user") == true)
    }

    /// From ten users on, one split: 70 % train, at least 3 test.
    @Test func tenUsersOrMoreSplitOnceWithSeveralTestUsers() {
        for n in [10, 11, 25] {
            let names = (0..<n).map { "user\($0)" }
            let training = Tuner.trainingUsers(names)
            #expect(training.count == Int((0.7 * Double(n)).rounded()))
            #expect(n - training.count >= 3)
            #expect(Tuner.trainingUsers(names.reversed()) == training)
        }
    }

    /// A launch every minute: fixed(T) makes 24h/T fetches a day. No interval of 15m, 30m, 1h
    /// meets fetches ≤ 5; the grid is widened to 2h, 4h, 8h and fixed(8h) (3 a day) is chosen.
    @Test func anInfeasibleGridIsWidenedTowardTheConstraint() throws {
        let launches = (0..<Int64(8 * 24 * 60)).map { day0 + .minutes($0) }
        let r = try tuner(
            family: "fixed", grid: "interval=15m,30m,1h", objective: freshness, constraints: "fetches<=5",
            split: .time(trainUntil: nil, folds: 1)
        ).run { $0([user("u", launches)]) }
        #expect(r.chosen == "fixed(8h)")
        #expect(r.widened?.contains("interval to 2h, 4h, 8h added") == true, "\(r.widened ?? "nil")")
        #expect(r.folds[0].tried.contains { $0.name == "fixed(4h)" })
        #expect(r.folds[0].constraintsOnTest?.first?.held == true)
    }

    /// Still infeasible after the widenings, or not widenable: one line naming the family, the
    /// constraint and the closest setting's value.
    @Test func aGridThatStaysInfeasibleIsRefusedInOneLine() throws {
        let launches = (0..<Int64(8 * 24 * 60)).map { day0 + .minutes($0) }
        let fixed = try tuner(
            family: "fixed", grid: "interval=15m", objective: freshness, constraints: "fetches<=1",
            split: .time(trainUntil: nil, folds: 1))
        #expect {
            _ = try fixed.run { $0([user("u", launches)]) }
        } throws: { error in
            let m = "\(error)"
            return m.hasPrefix("fixed: no setting meets fetches<=1/app/day")
                && m.contains("interval to 30m, 1h, 2h added")
                && m.contains("the closest, fixed(2h), has fetches 12.00/app/day") && !m.contains("\n")
        }
        let budgeted = try tuner(
            family: "budgeted", grid: "k=1", objective: freshness, constraints: "fetches<=0.01",
            split: .time(trainUntil: nil, folds: 1))
        #expect {
            _ = try budgeted.run { $0([user("u", launches)]) }
        } throws: { error in
            let m = "\(error)"
            return m.hasPrefix(
                "budgeted: no setting meets fetches<=0.01/app/day on the training part and its grid "
                    + "cannot be widened toward it; the closest, budgeted(1), has fetches ") && !m.contains("\n")
        }
    }

    /// Each family widens along the parameters that move its fetches, in the direction asked.
    @Test func widenedGridsMoveTheCostParameters() throws {
        func added(_ family: String, _ grid: String? = nil, cheaper: Bool = true) throws -> [String] {
            let space = try SearchSpace.parse(family: family, grid: grid)
            return space.widened(cheaper: cheaper).map { w in w.added.map { "\(space.axes[$0.axis].name)=\($0.value)" }
            }
                ?? []
        }
        #expect(try added("workmanager") == ["period=4h"])
        #expect(try added("fixed") == ["interval=48h"])
        #expect(try added("fixed", cheaper: false) == ["interval=450s"])
        #expect(try added("predictive") == ["threshold=0.78"])
        #expect(try added("predictive", cheaper: false) == ["threshold=0.1"])
        #expect(try added("budgeted") == [])
        #expect(try added("budgeted", "k=4,8") == ["k=2"])
        #expect(try added("ios-adaptive") == ["min=8h"])
        #expect(try added("workmanager", "period=15m", cheaper: false) == [])
    }

    /// The interval is seeded (the same draws every time), holds the pooled rate, and is absent
    /// with one user.
    @Test func theHeldOutIntervalIsASeededBootstrapOverUsers() throws {
        let users = [(fresh: 10, scored: 40), (30, 50), (5, 60), (20, 30), (0, 0)]
        let a = try #require(HeldOutInterval.bootstrap(users, tau: .minutes(15)))
        #expect(a == HeldOutInterval.bootstrap(users, tau: .minutes(15)))
        #expect(a.users == 4 && a.scoredLaunches == 180 && abs(a.fresh - 65.0 / 180) < 1e-12)
        let low = try #require(a.low)
        let high = try #require(a.high)
        #expect(low < a.fresh && a.fresh < high && low >= 5.0 / 60 && high <= 20.0 / 30)
        #expect(a.resamples == 1_000 && a.seed == 1)
        #expect(HeldOutInterval.bootstrap(users, tau: .minutes(15), seed: 2) != a)
        let one = try #require(HeldOutInterval.bootstrap([(3, 10)], tau: .minutes(15)))
        #expect(one.low == nil && one.high == nil && one.fresh == 0.3)
        #expect(HeldOutInterval.bootstrap([(0, 0)], tau: .minutes(15)) == nil)
    }
}
