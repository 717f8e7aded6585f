import FetchLabCore
import FetchLabResults
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Replays policies over users' histories under one ``EvaluationProtocol`` and one platform,
/// cost and context model, and scores them.
public struct Simulator: Sendable {
    public var evaluation: EvaluationProtocol
    public var settings: ReplaySettings
    /// Also report every policy's metrics per user.
    public var perUser = false
    /// Where a comparison keeps what it reads back in passes (the budget figures' per-user
    /// records, a merge's users): in memory unless given another (FetchLabScale's temporary files).
    public var recordStorage: any RecordStorage = MemoryRecordStorage()

    public init(evaluation: EvaluationProtocol = EvaluationProtocol(), settings: ReplaySettings = ReplaySettings()) {
        self.evaluation = evaluation
        self.settings = settings
    }

    /// The outcomes of every policy on every evaluated pair of one user (policy-major).
    public func replay(_ history: UserHistory, policies: [any FetchPolicy]) -> [[PairOutcome]] {
        guard let window = evaluation.window(of: history) else { return policies.map { _ in [] } }
        let user = UserSetup(
            history: history, window: window, evaluation: evaluation, context: settings.context, cost: settings.cost)
        return policies.map { replay(user, policy: $0) }
    }

    /// One policy on every pair of a user: the platform's answers, then the energy of all the
    /// user's fetches together (fetches of different apps share the radio), then the scores.
    func replay(_ user: UserSetup, policy: any FetchPolicy) -> [PairOutcome] {
        if let fixed = policy as? FixedIntervalPolicy,
            FixedReplay.applies(interval: fixed.interval, user: user, settings: settings)
        {
            return FixedReplay.outcomes(
                interval: fixed.interval, user: user, settings: settings, evaluation: evaluation)
        }
        return replayEventByEvent(user, policy: policy)
    }

    /// ``replay(_:policy:)`` without the closed form of fixed intervals.
    func replayEventByEvent(_ user: UserSetup, policy: any FetchPolicy) -> [PairOutcome] {
        if policy is NeverPolicy {
            // Never asks for anything, on any platform (no scheduler, no planned time, no minimum
            // interval): no fetch and no refusal on any pair, only the scores.
            return outcomes(user, runs: [PairRun](repeating: PairRun(), count: user.pairs.count))
        }
        return outcomes(user, runs: PolicyRunner.runAll(policy, user: user, settings: settings))
    }

    /// The scores of one policy's runs on every pair of a user, with the energy of all the user's
    /// fetches together (``RadioEnergy``: what `CostModel.energy(of:)` gives, without its
    /// per-fetch arrays).
    func outcomes(_ user: UserSetup, runs: [PairRun]) -> [PairOutcome] {
        let cost = settings.cost
        let joules = RadioEnergy.joules(runs: runs, user: user, cost: cost, fetchBudget: settings.platform.fetchBudget)
        let taus = evaluation.reportedTaus
        let tau = evaluation.primaryTau
        let window = user.window
        // The fetches by day of every pair with no fetch: one array of zeros, shared.
        let zeroDays = [Int32](repeating: 0, count: window.scoredDayCount)
        var k = 0
        var outs: [PairOutcome] = []
        outs.reserveCapacity(runs.count)
        for (p, run) in runs.enumerated() {
            let launches = user.pairs[p].launches
            var out = Replay.score(
                launches: launches, fetches: run.fetches, content: user.content[p],
                contentCounts: user.contentCounts[p], window: window, taus: taus, primaryTau: tau,
                launchRefreshes: evaluation.launchRefreshes, lowBatteryPercent: cost.lowBatteryPercent,
                zeroDays: zeroDays, skips: run.skips)
            if !run.stated.isEmpty {
                out.stated.reserveCapacity(run.stated.count)
                for (t, p) in run.stated {
                    // Launched within τ after the fetch: the first launch after t, if any, is soon enough.
                    let next = launches.count(upTo: t)
                    out.stated.append((p, next < launches.count && launches[next] - t <= tau))
                }
            }
            let fetch = user.fetchCosts[p]
            let ran = min(fetch.duration, settings.platform.fetchBudget)
            for f in run.fetches {
                defer { k += 1 }
                guard window.isScored(f.time) else { continue }
                if !f.state.charging { out.batteryJoules += joules[k] }
                if f.state.network == .cellular {
                    out.cellularFetches += 1
                    let duration = f.expired ? ran : fetch.duration
                    out.cellularBytes +=
                        Double(fetch.bytes) * (duration.inSeconds / max(fetch.duration.inSeconds, 1e-9))
                }
            }
            outs.append(out)
        }
        return outs
    }

    /// Compares `policies` over `histories` (see ``ComparisonRun``).
    public func compare(
        _ histories: [UserHistory], policies: [any FetchPolicy], progress: (@Sendable () -> Void)? = nil
    ) -> ComparisonReport {
        var run = comparison(policies: policies)
        run.add(histories, progress: progress)
        return run.report()
    }

    /// A comparison fed users batch by batch, so that memory holds one batch, not the database.
    /// - Parameters:
    ///   - policies: the policies to replay, in the order the report lists them.
    ///   - budgetFigures: also compute the budget figures (the clairvoyant bound, the
    ///   fixed-interval baseline, each policy's gain and share, the bootstrap intervals); a tuner
    ///   that only reads the policies' metrics leaves them out.
    public func comparison(policies: [any FetchPolicy], budgetFigures: Bool = true) -> ComparisonRun {
        ComparisonRun(simulator: self, policies: policies, budgetFigures: budgetFigures)
    }
}

/// A comparison in progress: `add(_:progress:)` batches of users (replayed in parallel, summed in
/// the order given, so the result does not depend on scheduling), then ``report()``. With the
/// budget figures on, each user also adds the clairvoyant bound's pairs and its sums for the
/// bootstrap (over users, or over its days when the run has fewer than `BudgetSettings.fewUsers`).
public struct ComparisonRun: Sendable {
    let simulator: Simulator
    let requested: Int
    let all: [any FetchPolicy]
    let taus: [Microseconds]
    let primary: Int
    var totals: [MetricSums]
    var perApp: [String: [MetricSums]] = [:]
    var appOrder: [String] = []
    /// Each user's metrics per policy (`--per-user`), made as the user is summed: a user's sums
    /// hold two histograms of a few thousand counters per policy, its metrics a few numbers, so
    /// memory grows by kilobytes, not megabytes, per user.
    var perUser: [(String, [PolicyMetrics])] = []
    /// Where each user's metrics go instead of `perUser` when kept apart (``keepPerUser(in:)``).
    public private(set) var perUserRows: (any PerUserRows)? = nil
    /// Also keep each user's ``UserTally`` (``userTallies``), in the order the users were added.
    public var tallyUsers = false
    public private(set) var userTallies: [UserTally] = []
    /// With ``tallyUsers``: also each user's scored local days (``UserTally/days``).
    public var tallyDays = false
    /// Also keep what each user adds that depends on the users' order, for ``partial(shard:source:)``.
    public var keepsUsers = false
    var keptUsers: [ComparisonPartial.User] = []
    /// The users of the partials absorbed, until a merge adds them in order.
    var mergingUsers: [ComparisonPartial.MergingUser] = []
    /// Those users' records, on disk (``ComparisonPartial/MergingUser``).
    var mergingRecords: StoredRecords
    /// The apps in ``appOrder``, for finding them fast.
    var listedApps = Set<String>()
    /// The group of each user (by name), when the comparison also sums users by group; users
    /// not named here are in no group.
    public var userGroups: [String: String]? = nil
    var perGroup: [String: [MetricSums]] = [:]
    var groupOrder: [String] = []
    /// Users with a scored launch, counted when ``tallyUsers`` is on (merged runs too).
    public internal(set) var scoredUsers = 0
    var users = 0
    var usersWithoutContext = 0
    var pairsWithContent = 0
    var firstStart: (Instant, Int32)? = nil
    var lastEnd: (Instant, Int32)? = nil
    /// The budget figures' per-user sums (nil: not asked for).
    var budget: BudgetAnalysis?
    /// The budgets of the budget curve, and the one the headline is read at.
    public var budgets: [Double] = BudgetSettings.standardBudgets
    public var headlineBudget: Double = BudgetSettings.defaultHeadline
    /// Bootstrap resamples over users and their seed (set before users are added: each user's
    /// draws are summed as it is added).
    public var resamples = 1_000 { didSet { budget?.resamples = resamples } }
    public var seed: UInt64 = 1 { didSet { budget?.seed = seed } }
    /// CPU seconds each policy took (summed over threads), and the launches of the evaluated
    /// pairs replayed: for `compare --timings` and the benchmark, not part of the report.
    public internal(set) var cpuSeconds: [Double] = []
    public internal(set) var launchesReplayed = 0
    /// Each user replayed: scored launches per scored day (to pick a representative user).
    public internal(set) var activity: [(user: String, launchesPerDay: Double)] = []

    /// The user whose scored launches per day are the median of the users replayed (the lower
    /// middle one; ties by name), or nil when no user was scored.
    public var representativeUser: String? {
        let sorted = activity.sorted {
            $0.launchesPerDay != $1.launchesPerDay ? $0.launchesPerDay < $1.launchesPerDay : $0.user < $1.user
        }
        return sorted.isEmpty ? nil : sorted[(sorted.count - 1) / 2].user
    }

    /// Where the run keeps its records (the simulator's): its `check()` throws a failure to read
    /// them back, after ``report()``.
    public var recordStorage: any RecordStorage { simulator.recordStorage }

    /// Every policy replayed, for ``cpuSeconds``.
    public var policies: [any FetchPolicy] { all }

    /// ``cpuSeconds`` by family, with the launches replayed (`compare --timings`).
    public var timings: ReplayTimings {
        ReplayTimings(families: all.map(\.family), cpuSeconds: cpuSeconds, launches: launchesReplayed)
    }

    init(simulator: Simulator, policies: [any FetchPolicy], budgetFigures: Bool = true) {
        self.simulator = simulator
        requested = policies.count
        all = policies
        taus = simulator.evaluation.reportedTaus
        primary = taus.firstIndex(of: simulator.evaluation.primaryTau)!
        totals = all.map { _ in MetricSums(taus: simulator.evaluation.reportedTaus.count) }
        cpuSeconds = all.map { _ in 0 }
        mergingRecords = StoredRecords(in: simulator.recordStorage)
        if budgetFigures {
            budget = BudgetAnalysis(policies: policies, storage: simulator.recordStorage)
            // The run's resamples and seed, kept in step from here by their observers.
            budget?.resamples = resamples
            budget?.seed = seed
            budget?.tau = simulator.evaluation.primaryTau
            budget?.launchRefreshes = simulator.evaluation.launchRefreshes
        }
    }

    /// Puts each user's metrics (`--per-user`) in `rows` as the user is summed (FetchLabScale's
    /// `PerUserSpool` writes them to temporary files), instead of holding them in the report: its
    /// policies then carry `PolicyResult.spooledPerUser` and the rows are read from
    /// ``perUserRows``. Call before adding users; `rows` holds one row per requested policy.
    public mutating func keepPerUser(in rows: any PerUserRows) {
        precondition(users == 0, "keep the per-user rows apart before adding users")
        precondition(rows.policies == requested, "one row per requested policy")
        perUserRows = rows
    }

    /// The number of policies the report shows (each gets a per-user row).
    public var requestedPolicies: Int { requested }

    struct UserResult: Sendable {
        var user: String
        var window: UserWindow
        var withoutContext: Bool
        var pairsWithContent: Int
        /// Per policy, per evaluated pair (in the order of `apps`).
        var outcomes: [[PairOutcome]]
        var apps: [String]
        var seconds: [Double]
        var launches: Int
        var budget: UserBudgetSums?
        /// The user's scored days (``tallyDays``), else empty.
        var days: [DayTally] = []
    }

    /// Replays a batch of users on all cores; `progress` is called once per user done (from any thread).
    /// `prepare` (on the same cores) turns each history into the one replayed, e.g. cut at a day.
    public mutating func add(
        _ histories: [UserHistory], progress: (@Sendable () -> Void)? = nil,
        prepare: (@Sendable (UserHistory) -> UserHistory)? = nil
    ) {
        let simulator = self.simulator
        let policies = all
        let count = taus.count
        let primary = self.primary
        let budgetFigures = budget != nil
        let tallyDays = tallyUsers && self.tallyDays
        // The largest users first (by events), so the batch does not end on one core waiting for
        // a large user started last; the results are summed in the order given all the same.
        let order = histories.indices.sorted {
            let (a, b) = (histories[$0], histories[$1])
            return (a.launches.count + a.events.count, $1) > (b.launches.count + b.events.count, $0)
        }
        let byCost = ParallelMap.map(order) { i -> UserResult? in
            let history = prepare.map { $0(histories[i]) } ?? histories[i]
            defer { progress?() }
            let e = simulator.evaluation
            guard let window = e.window(of: history) else { return nil }
            let user = UserSetup(
                history: history, window: window, evaluation: e, context: simulator.settings.context,
                cost: simulator.settings.cost)
            guard !user.pairs.isEmpty else { return nil }
            var seconds = [Double](repeating: 0, count: policies.count)
            let outcomes = simulator.replay(user, policies: policies, seconds: &seconds)
            let sums =
                budgetFigures
                ? UserBudgetSums(
                    user: user, outcomes: outcomes, primary: primary, tau: e.primaryTau,
                    launchRefreshes: e.launchRefreshes) : nil
            var result = UserResult(
                user: history.user.name, window: window,
                // Samples apart in time from the launches are read by no replay: assumed context.
                withoutContext: user.timeline.isEmpty || !PlatformInputs.contextOverlapsLaunches(history),
                pairsWithContent: user.content.filter { !$0.isEmpty }.count, outcomes: outcomes,
                apps: user.pairs.map { history.apps[Int($0.app)].name }, seconds: seconds,
                launches: user.pairs.reduce(0) { $0 + $1.launches.count }, budget: sums)
            if tallyDays {
                result.days = DayTally.days(
                    launches: user.pairs.map(\.launches), outcomes: outcomes, window: window, taus: e.reportedTaus)
            }
            return result
        }
        var results = [UserResult?](repeating: nil, count: histories.count)
        for (k, i) in order.enumerated() { results[i] = byCost[k] }
        // Summed in the order given, one user at a time.
        for case let r? in results {
            let w = r.window
            for app in r.apps where perApp[app] == nil { perApp[app] = all.map { _ in MetricSums(taus: count) } }
            var userTotals = all.map { _ in MetricSums(taus: count) }
            for (i, pairs) in r.outcomes.enumerated() {
                for (p, o) in pairs.enumerated() {
                    userTotals[i].add(o)
                    perApp[r.apps[p]]![i].add(o)
                    perApp[r.apps[p]]![i].costUnits += 1
                }
                userTotals[i].costUnits = 1
                totals[i].add(userTotals[i])
            }
            let scored = r.outcomes.first?.reduce(0) { $0 + $1.scored } ?? 0
            // What depends on the users' order, added as a merge of partials adds it.
            let group = userGroups?[r.user]
            var ordered = ComparisonPartial.User(
                name: r.user, apps: r.apps, start: w.start, end: w.end, offset: w.offset,
                withoutContext: r.withoutContext, pairsWithContent: r.pairsWithContent,
                launchesPerDay: w.scoredDays > 0 ? Double(scored) / w.scoredDays : 0,
                budget: r.budget, sums: simulator.perUser ? userTotals : nil)
            ordered.group = group
            if let sums = r.budget { budget?.addBootstrap(user: r.user, sums) }
            if tallyUsers {
                let tally = UserTally(
                    user: r.user, scored: userTotals.first?.scored ?? 0, fresh: userTotals.map(\.fresh), days: r.days)
                ordered.scored = tally.scored
                userTallies.append(tally)
            }
            if let group {
                if perGroup[group] == nil { perGroup[group] = all.map { _ in MetricSums(taus: count) } }
                for i in all.indices { perGroup[group]![i].add(userTotals[i]) }
            }
            addOrdered(ordered)
            if keepsUsers { keepUser(ordered) }
            for i in all.indices { cpuSeconds[i] += r.seconds[i] }
            launchesReplayed += r.launches
        }
    }

    /// Keeps a user for ``partial(shard:source:)``: with its days and its per-policy sums while
    /// the run has fewer than `BudgetSettings.fewUsers` users (a partial with more is never
    /// resampled by day, whatever it is merged with, and the partial's bootstrap sums hold what
    /// it adds to the bootstrap over users), without them from then on.
    mutating func keepUser(_ u: ComparisonPartial.User) {
        var u = u
        if keptUsers.count >= BudgetSettings.fewUsers { u.budget = u.budget?.withoutRecordFigures }
        keptUsers.append(u)
        if keptUsers.count == BudgetSettings.fewUsers {
            for i in keptUsers.indices { keptUsers[i].budget = keptUsers[i].budget?.withoutRecordFigures }
        }
    }

    public func report() -> ComparisonReport {
        let e = simulator.evaluation
        let battery = simulator.settings.cost.batteryJoules
        func metrics(_ sums: [MetricSums]) -> [PolicyMetrics] {
            sums.map { $0.metrics(taus: taus, primary: primary, batteryJoules: battery) }
        }
        var overall = metrics(totals)
        let budgets = Array(Set(self.budgets + [headlineBudget])).sorted()
        let analysis = budget
        let figures = analysis?.result(budgets: budgets)
        if let figures {
            for i in overall.indices {
                overall[i].freshInterval = figures.freshIntervals[i]
                overall[i].gainVsFixed = figures.gains[i]
                overall[i].gainInterval = figures.gainIntervals[i]
                overall[i].shareOfPossible = figures.shares[i]
            }
        }
        let apps = appOrder.map { ($0, metrics(perApp[$0]!)) }
        let usersMetrics = perUser
        let groupMetrics = groupOrder.map { ($0, metrics(perGroup[$0]!)) }
        let spooled = simulator.perUser && perUserRows != nil
        let rows = (0..<requested).map { i in
            var row = PolicyResult(
                name: all[i].name, family: all[i].family, params: all[i].parameters, metrics: overall[i],
                perApp: apps.map { GroupResult(name: $0.0, metrics: $0.1[i], pairs: perApp[$0.0]![i].pairs) },
                perUser: simulator.perUser && !spooled
                    ? usersMetrics.map { GroupResult(name: $0.0, metrics: $0.1[i]) } : nil,
                perGroup: userGroups == nil ? nil : groupMetrics.map { GroupResult(name: $0.0, metrics: $0.1[i]) },
                role: all[i].role)
            if spooled { row.spooledPerUser = i }
            row.signals = all[i].signals.sorted()
            return row
        }
        var settings = ComparisonSettings(
            tau: e.primaryTau, taus: taus, launchRefreshes: e.launchRefreshes,
            warmUpDays: e.warmUpDays, minLaunches: e.minLaunches, platform: simulator.settings.platform.kind,
            users: users, pairs: totals[0].pairs, scoredLaunches: totals[0].scored)
        settings.platformRules = simulator.settings.platform
        settings.cost = simulator.settings.cost
        settings.contextDefaults = simulator.settings.context
        settings.usersWithoutContext = usersWithoutContext
        settings.pairsWithContentUpdates = pairsWithContent
        if let (s, o) = firstStart, let (end, eo) = lastEnd {
            settings.firstScoredDay = CivilDate(daysSince1970: LocalCalendar.day(s, offset: o)).description
            settings.lastScoredDay = CivilDate(daysSince1970: LocalCalendar.day(end, offset: eo)).description
        }
        var report = ComparisonReport(settings: settings, policies: rows)
        if let figures {
            let over = analysis?.intervalOver ?? .users
            var warnings: [String] = []
            if users < BudgetSettings.fewUsers || settings.scoredLaunches < BudgetSettings.fewLaunches {
                warnings.append(
                    "these figures rest on \(Quantity.grouped(users)) user\(users == 1 ? "" : "s") and "
                        + "\(Quantity.grouped(settings.scoredLaunches)) scored "
                        + "launches (fewer than \(BudgetSettings.fewUsers) users or \(BudgetSettings.fewLaunches) "
                        + "launches): read the intervals, not the points"
                        + (over == .days
                            ? "; the intervals are " + BudgetSettings.intervalScope(over: over, users: users) : ""))
            }
            report.budget = BudgetSettings(
                budgets: budgets, headlineBudget: headlineBudget, resamples: analysis?.effectiveResamples ?? 0,
                seed: seed, boundSaturation: figures.saturation, warnings: warnings)
            report.budget?.intervalOver = over
            report.budgetCurve = figures.curve
            report.fixedCurve = figures.fixedCurve
            report.boundCurve = figures.boundCurve
            report.ceilings = figures.ceilings
            report.headline = report.headlineSettings()
        }
        return report
    }
}

/// The calling thread's CPU time, seconds.
enum ThreadClock {
    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
