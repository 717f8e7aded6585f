import FetchLabCore
import FetchLabResults

/// How a tuner walks a ``SearchSpace``.
public enum SearchMethod: String, Sendable, Hashable, CaseIterable {
    /// Every setting, in one round.
    case grid
    /// `samples` distinct settings drawn with a seeded generator, in one round.
    case random
    /// From the grid's middle, one parameter at a time: a line search (see `Tuner.coordinateDescent(_:label:)`).
    case coordinate
    /// Successive halving over users: all settings on a sixteenth of the users, the best quarter on
    /// a quarter, the best of those on all (see `Tuner.successiveHalving(_:label:users:trainUser:)`).
    case halving
}

/// How the days or users are split into the part a setting is chosen on and the part it is
/// measured on.
public enum TuningSplit: Sendable, Hashable {
    /// Train on the scored days through a cut, test on the days after it. `trainUntil` fixes the
    /// cut (nil: 70 % of the scored span); `folds` ≥ 2 makes expanding-window folds, cut after
    /// each k/(folds+1) of the span, each tested on the days up to the next cut.
    case time(trainUntil: CivilDate?, folds: Int)
    /// By users (those with scored launches): fewer than 2 are refused; below
    /// ``Tuner/leaveOneOutBelow`` each user is the test part of one fold (leave one user out);
    /// otherwise the 70 % whose names hash lowest train and the others test.
    case users
}

/// Tunes one family's parameters on training data and measures the chosen setting, and the best
/// fixed interval chosen the same way, on held-out data. With several folds a setting's training
/// score is its mean over the folds' training parts, and it is feasible when it meets the
/// constraints on every one of them; the best feasible setting is chosen once for all folds and
/// measured on each fold's test part, where the constraints are checked again.
public struct Tuner: Sendable {
    /// Feeds every user to `body`, a batch at a time (the CLI reads them from the database).
    public typealias UserBatches = (_ body: ([UserHistory]) -> Void) throws -> Void

    public var simulator: Simulator
    public var space: SearchSpace
    public var objective: Objective
    public var constraints: [TuningConstraint]
    public var method: SearchMethod = .grid
    /// Settings drawn by the random search.
    public var samples = 10
    public var seed: UInt64 = 1
    public var split: TuningSplit = .time(trainUntil: nil, folds: 1)
    /// Also recommend a setting per app and per group of users (light, moderate, heavy by
    /// launches per day on the training part).
    public var groupUsers = true
    /// Successive halving leaves out a rung that would hold fewer users than this.
    public var minRungUsers = 8
    /// An app gets its own recommendation when it has at least this many scored training launches.
    public var minGroupLaunches = 100
    /// When no setting meets the constraints on training, the grid is widened toward them at most
    /// this many times (see ``SearchSpace/widened(cheaper:)``).
    public var widenings = 3
    /// Called with a line of progress (a round started).
    public var progress: (@Sendable (String) -> Void)? = nil
    /// Called once per user replayed, in every pass over the users (from any thread).
    public var userReplayed: (@Sendable () -> Void)? = nil
    /// Asked before each round of the search but the first: true stops the search there (a time
    /// budget); the best setting found so far is still measured on held-out data. When set, grid
    /// and random searches replay their settings in rounds (`budgetRoundSize`) so they can stop.
    public var budgetSpent: (@Sendable () -> Bool)? = nil

    /// Below this many users with scored launches the user split leaves one user out per fold.
    public static let leaveOneOutBelow = 10
    /// The bootstrap of the held-out interval: resamples and seed (fixed, so a run repeats).
    public static let bootstrapResamples = 1_000
    public static let bootstrapSeed: UInt64 = 1
    /// A test part with fewer users or scored launches than these is warned about.
    public static let fewTestUsers = 10
    public static let fewTestLaunches = 500

    public init(simulator: Simulator, space: SearchSpace, objective: Objective, constraints: [TuningConstraint] = []) {
        self.simulator = simulator
        self.space = space
        self.objective = objective
        self.constraints = constraints
    }

    /// The fixed intervals the baseline is chosen from.
    public static var fixedBaselines: [any FetchPolicy] {
        PolicyRegistry.fixedIntervals.map { FixedIntervalPolicy(interval: $0) }
    }

    /// What rides along with a search's first round: `never` (the launches fresh without any fetch,
    /// which the gain over the fixed baseline is read from) and the fixed intervals.
    public static var searchBaselines: [any FetchPolicy] { [NeverPolicy()] + fixedBaselines }

    /// The canonical name of `never`, looked up in every part's figures.
    static let neverName = NeverPolicy().name

    /// Runs the search and the held-out measurement on every fold.
    public func run(_ users: @escaping UserBatches) throws -> TuningResult {
        try runKeepingHeldOut(users).result
    }

    /// The held-out part of a fold: the simulator that scores it and its users.
    public struct HeldOutPart {
        /// Scores the held-out days only (the time split) or every day (the user split).
        public var simulator: Simulator
        /// Whether a user is held out.
        public var includes: (UserID) -> Bool
        /// The fold's label (its days or users).
        public var label: String
        /// The last fold's chosen setting and best fixed interval (when one met the constraints), as
        /// the values the run scored: what `tune`'s platform check carries to the platforms.
        public var measured: [any FetchPolicy] = []
    }

    /// One fold before it is run: the simulators and users of its training and test parts.
    struct FoldPlan {
        var train: Simulator
        var test: Simulator
        var trainUser: (UserID) -> Bool
        var testUser: (UserID) -> Bool
        /// The last day training may see (the time split), nil: whole histories.
        var trainCut: CivilDate?
        var label: String
    }

    /// The τ of the held-out interval: the objective's when it is a fresh rate, else the
    /// protocol's primary τ.
    var intervalTau: Microseconds { objective.metric.tau ?? simulator.evaluation.primaryTau }

    /// ``run(_:)``, with a held-out part to measure other settings on: the last fold's test days
    /// (time split), the test users (user split) or every user (leave one user out, where each
    /// user is the test part of its own fold).
    public func runKeepingHeldOut(_ users: @escaping UserBatches) throws -> (
        result: TuningResult, heldOut: HeldOutPart
    ) {
        try runKeepingHeldOut(users, search: nil)
    }

    /// What a run sets up before its search: the folds, the held-out part, the split as text and
    /// every fold's training part (replayed together by the search).
    struct Setup {
        var plans: [FoldPlan]
        var heldOut: HeldOutPart
        var splitText: String
        var training: Training
        var label: String
        var population: Population
    }

    func setUp(_ users: @escaping UserBatches) throws -> Setup {
        var evaluation = simulator.evaluation
        for metric in [objective.metric] + constraints.map(\.metric) {
            if let tau = metric.tau, !evaluation.taus.contains(tau) { evaluation.taus.append(tau) }
        }
        if !evaluation.taus.contains(intervalTau) { evaluation.taus.append(intervalTau) }
        var base = simulator
        base.evaluation = evaluation
        base.perUser = false
        let population = try Self.population(counting(users), evaluation: evaluation)
        guard let span = population.span else {
            throw TuningError("no launch is scored (no app with enough launches past the warm-up)")
        }
        let (plans, heldOut, splitText) = try self.plans(population.users, span: span, base: base)
        let training = Training(parts: try plans.map { try trainingPart(users, plan: $0) })
        let label = plans.count == 1 ? plans[0].label : "\(plans.count) folds"
        return Setup(
            plans: plans, heldOut: heldOut, splitText: splitText, training: training, label: label,
            population: population)
    }

    /// The settings a grid or random search replays in its one round (nil: another search).
    var oneRoundSettings: [SearchSpace.Setting]? {
        switch method {
        case .grid:
            return space.settings
        case .random:
            var rng = SplitMix64(seed: seed)
            var all = space.settings
            for i in all.indices.dropLast().reversed() {
                let j = Int(rng.next() % UInt64(i + 2))
                all.swapAt(i + 1, j)
            }
            return Array(all.prefix(max(1, samples)))
        case .coordinate, .halving:
            return nil
        }
    }

    /// ``runKeepingHeldOut(_:)``, its search's round taken from shards' partials when `search` is
    /// given (see ``searchPartial(_:shard:)``): every later step replays `users` as usual.
    public func runKeepingHeldOut(_ users: @escaping UserBatches, search: [TuneSearchPartial]?) throws -> (
        result: TuningResult, heldOut: HeldOutPart
    ) {
        let setup = try setUp(users)
        let (plans, splitText, label) = (setup.plans, setup.splitText, setup.label)
        var heldOut = setup.heldOut
        var training = setup.training
        var cutShort = false
        var tried: [SearchSpace.Setting] = []
        var replayCost: Double? = nil
        var screened: Int? = nil
        // The fixed baselines ride along with the first round (the comparison replays them anyway).
        let baselines = Self.fixedBaselines
        if let search {
            tried = try oneRoundSettings ?? { throw Self.notOneRound(method) }()
            progress?("\(label): \(tried.count) settings from \(search.count) shards' partials")
            try merge(search, into: &training, setup: setup, settings: tried)
        } else {
            switch method {
            case .grid, .random:
                tried = oneRoundSettings!
                progress?("\(label): \(tried.count) \(method == .random ? "random " : "")settings")
                cutShort = try scoreInRounds(&tried, with: &training, alongside: Self.searchBaselines)
            case .coordinate:
                tried = try coordinateDescent(&training, label: label, cutShort: &cutShort)
            case .halving:
                let (finalists, cost) = try successiveHalving(
                    &training, label: label, users: users, plans: plans, cutShort: &cutShort)
                tried = finalists
                replayCost = cost
                screened = space.count
            }
        }
        // Settings that miss a constraint on a training part rank below every feasible one; when
        // none is feasible the grid is widened toward the constraints, or the run says why not.
        var tuner = self
        var ranking = try tuner.ranking(tried, training)
        var widened: String? = nil
        if !ranking.contains(where: \.feasible) {
            widened = try tuner.widen(&tried, &ranking, &training, label: label)
        }
        guard let trainingChoice = ranking.first(where: \.feasible) else {
            throw TuningError("no setting tried meets \(constraintList) on the training data (\(label))")
        }
        // With several folds the choice is cross-validated: every setting tried is replayed on each
        // fold's test part and the best mean over them wins, among the settings within the
        // constraints on every test part. Each fold's own pick (its training part's best) measured
        // on its test part stays the estimate no test part informed.
        var chosen = trainingChoice
        var choiceWarnings: [String] = []
        if plans.count > 1 {
            var validation = Training(
                parts: plans.map { plan in
                    var part = Scorer(simulator: plan.test, users: users, include: plan.testUser)
                    part.userReplayed = userReplayed
                    return part
                })
            try validation.score(try tried.map { try space.policy($0) }, alongside: [NeverPolicy()])
            let byTest = try tuner.ranking(tried, validation)
            if let best = byTest.first(where: \.feasible) {
                chosen = ranking.first { $0.name == best.name } ?? trainingChoice
            } else {
                choiceWarnings.append(
                    "no setting tried met \(constraintList) on every fold's test part: the choice is the best mean "
                        + "over the training parts, \(trainingChoice.name)")
            }
        }
        let fixedRows = baselines.map {
            row(name: $0.name, values: "", metrics: training.metrics($0.name), never: training.nevers)
        }
        let bestFixed = fixedRows.filter(\.feasible).max { rank($0) < rank($1) }
        var policies: [String: any FetchPolicy] = [:]
        for setting in tried {
            // The space the settings index into: widened, when the grid was.
            let policy = try tuner.space.policy(setting)
            policies[policy.name] = policy
        }
        for baseline in baselines { policies[baseline.name] = baseline }
        var folds: [TuningFold] = []
        var tallies: [[String: (fresh: Int, scored: Int)]] = []
        var promiseParts: [(training: PromisePart, heldOut: PromisePart)] = []
        for (i, plan) in plans.enumerated() {
            var (fold, userTally, parts) = try tuner.measure(
                plan, training: &training.parts[i], settings: tried, policies: policies, chosen: chosen.name,
                bestFixed: bestFixed?.name, users: users)
            fold.replayCost = replayCost ?? Double(fold.replays)
            fold.screened = screened ?? tried.count
            fold.cutShort = cutShort ? true : nil
            folds.append(fold)
            tallies.append(userTally)
            promiseParts.append(parts)
        }
        // The promise over all folds: their training parts pooled, and their test parts.
        let promise =
            folds.count == 1
            ? folds[0].promise
            : tuner.promise(
                training: PromisePart(pooling: promiseParts.map(\.training)),
                heldOut: PromisePart(pooling: promiseParts.map(\.heldOut)))
        var pooled: [String: (fresh: Int, scored: Int)] = [:]
        for tally in tallies {
            for (user, t) in tally {
                let sum = pooled[user] ?? (0, 0)
                pooled[user] = (sum.fresh + t.fresh, sum.scored + t.scored)
            }
        }
        var result = TuningResult(
            family: space.family.rawValue, method: method.rawValue, objective: objective.description,
            constraints: constraints.map(\.description), folds: folds, split: splitText,
            ranking: Self.markedPareto(ranking), chosen: chosen.name, bestFixed: bestFixed?.name,
            heldOut: HeldOutInterval.bootstrap(
                pooled.keys.sorted().map { pooled[$0]! }, tau: intervalTau, resamples: Self.bootstrapResamples,
                seed: Self.bootstrapSeed),
            widened: widened,
            warnings: choiceWarnings + Self.warnings(folds)
                + tuner.promiseWarnings(folds, promise: promise, chosen: chosen.name))
        result.promise = promise
        result.rankedBy = ranksByGain ? .gainVsFixed : .objective
        if let last = folds.last {
            heldOut.measured = ([last.chosen] + (last.bestFixed.map { [$0] } ?? [])).compactMap { policies[$0] }
        }
        return (result, heldOut)
    }

    /// The constraints as the user wrote them, for messages (`fetches<=2/app/day,battery<=1%/day`).
    var constraintList: String { constraints.map(\.description).joined(separator: ",") }

    /// A fold's training part, with its users grouped by activity.
    func trainingPart(_ users: @escaping UserBatches, plan: FoldPlan) throws -> Scorer {
        var scorer = Scorer(simulator: plan.train, users: users, include: plan.trainUser)
        scorer.cut = plan.trainCut
        scorer.userReplayed = userReplayed
        if groupUsers {
            let activity = try Self.activity(users, include: plan.trainUser, cut: plan.trainCut)
            if let thresholds = Self.tercileThresholds(Array(activity.values)) {
                scorer.groupThresholds = thresholds
                scorer.userGroups = activity.mapValues { Self.activityGroup($0, thresholds) }
            }
        }
        return scorer
    }

    /// The settings tried as rows ranked by their mean over the training parts.
    func ranking(_ tried: [SearchSpace.Setting], _ training: Training) throws -> [TriedSetting] {
        var rows = try tried.map { s in
            let name = try space.name(s)
            return row(name: name, values: space.describe(s), metrics: training.metrics(name), never: training.nevers)
        }
        rows.sort { rank($0) > rank($1) }
        return rows
    }

    /// `rows` with the Pareto front marked.
    static func markedPareto(_ rows: [TriedSetting]) -> [TriedSetting] {
        var out = rows
        markPareto(&out)
        return out
    }

    /// A replay's figures; with `never`'s on the same users and days, its gain over the fixed baseline.
    func summary(_ m: PolicyMetrics, never: PolicyMetrics? = nil) -> ScoreSummary {
        var s = ScoreSummary(
            objective: objective.metric.value(in: m) ?? 0, fresh15: TuningMetric.fresh(.minutes(15)).value(in: m) ?? 0,
            figures: Metric.tunable.map { m[$0] ?? 0 }, scoredLaunches: m.scoredLaunches)
        s.gainVsFixed = never.flatMap { gain(m, never: $0) }
        return s
    }

    /// fresh@τ (the interval's τ) minus the fixed baseline at the replay's own fetches per app per
    /// day, `never` giving the launches fresh without any fetch on the same users and days (nil:
    /// the replay did not report that τ).
    func gain(_ m: PolicyMetrics, never: PolicyMetrics) -> Double? {
        let metric = TuningMetric.fresh(intervalTau)
        guard let fresh = metric.value(in: m), let free = metric.value(in: never) else { return nil }
        return fresh
            - FixedBaselineLine.fresh(never: free, budget: m.fetchesPerAppDay, tau: intervalTau)
    }

    func row(name: String, values: String, metrics m: PolicyMetrics, never: PolicyMetrics? = nil) -> TriedSetting {
        row(name: name, values: values, metrics: [m], never: never.map { [$0] })
    }

    /// A setting's row over the training parts: the mean of its figures; feasible when it meets
    /// every constraint on every part; its violation the mean of the parts' (summed relative to
    /// each bound).
    func row(name: String, values: String, metrics parts: [PolicyMetrics], never: [PolicyMetrics]?) -> TriedSetting {
        let violations = parts.map { m in constraints.reduce(0) { $0 + $1.violation($1.metric.value(in: m)) } }
        let violation = violations.reduce(0, +) / Double(max(1, violations.count))
        let summaries = parts.indices.map { i in
            summary(parts[i], never: never.flatMap { $0.indices.contains(i) ? $0[i] : nil })
        }
        var row = TriedSetting(
            name: name, values: values, train: ScoreSummary.mean(summaries),
            feasible: violations.allSatisfy { $0 == 0 }, pareto: false)
        row.violation = violation
        return row
    }

    /// Feasible first; feasible settings by the objective, the others by how little they miss
    /// the constraints (so a search walks towards feasibility); then the name (earlier names win ties).
    struct Rank: Comparable {
        var feasible: Bool
        var score: Double
        var name: String
        static func < (a: Rank, b: Rank) -> Bool {
            if a.feasible != b.feasible { return !a.feasible }
            if a.score != b.score { return a.score < b.score }
            return a.name > b.name
        }
    }

    func rank(_ r: TriedSetting) -> Rank {
        Rank(
            feasible: r.feasible, score: r.feasible ? objective.score(choiceValue(r.train)) : -r.violation, name: r.name
        )
    }

    /// What the choice maximises or minimises: with `--maximize fresh@τ`, the gain over the fixed
    /// baseline on the same users and days (the level where no gain was measured); a cost as it is.
    func choiceValue(_ s: ScoreSummary) -> Double {
        ranksByGain ? s.gainVsFixed ?? s.objective : s.objective
    }

    /// `--maximize fresh@τ`: the settings rank by their gain over the fixed baseline.
    var ranksByGain: Bool { objective.maximize && objective.metric.tau != nil }

    func rank(_ m: PolicyMetrics, name: String, never: PolicyMetrics?) -> Rank {
        rank(row(name: name, values: "", metrics: m, never: never))
    }

    func rank(_ parts: [PolicyMetrics], name: String, never: [PolicyMetrics]?) -> Rank {
        rank(row(name: name, values: "", metrics: parts, never: never))
    }

    /// Marks the settings no other setting beats at once on fresh@15m and the tunable metrics the
    /// table puts on the front (`Metric.Tuning.pareto`: energy and cellular).
    static func markPareto(_ rows: inout [TriedSetting]) {
        let front = Metric.tunable.indices.filter { Metric.tunable[$0].tuning?.pareto == true }
        let higher = front.map { Metric.tunable[$0].direction == .higherIsBetter }
        for i in rows.indices {
            let a = rows[i].train
            rows[i].pareto = !rows.contains { r in
                let b = r.train
                var noWorse = b.fresh15 >= a.fresh15
                var better = b.fresh15 > a.fresh15
                for (k, f) in front.enumerated() {
                    let (x, y) = higher[k] ? (b.figures[f], a.figures[f]) : (a.figures[f], b.figures[f])
                    noWorse = noWorse && x >= y
                    better = better || x > y
                }
                return noWorse && better
            }
        }
    }
}
