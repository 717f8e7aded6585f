import FetchLabCore

/// How a tuner walks a ``SearchSpace``.
public enum SearchMethod: String, Sendable, Hashable, CaseIterable {
    /// Every setting, in one round.
    case grid
    /// `samples` distinct settings drawn with a seeded generator, in one round.
    case random
    /// From the grid's middle, one parameter at a time: a line search (see ``Tuner/coordinateDescent(_:label:)``).
    case coordinate
    /// Successive halving over users: all settings on a sixteenth of the users, the best quarter on
    /// a quarter, the best of those on all (see ``Tuner/successiveHalving(_:label:users:trainUser:)``).
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
    /// and random searches replay their settings in rounds (``budgetRoundSize``) so they can stop.
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
    public func runKeepingHeldOut(_ users: @escaping UserBatches) throws -> (result: TuningResult, heldOut: HeldOutPart)
    {
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
        // Every fold's training part, replayed together by the search.
        var training = Training(parts: try plans.map { try trainingPart(users, plan: $0) })
        let label = plans.count == 1 ? plans[0].label : "\(plans.count) folds"
        var cutShort = false
        var tried: [SearchSpace.Setting] = []
        var replayCost: Double? = nil
        var screened: Int? = nil
        // The fixed baselines ride along with the first round (the comparison replays them anyway).
        let baselines = Self.fixedBaselines
        switch method {
        case .grid:
            tried = space.settings
            progress?("\(label): \(tried.count) settings")
            cutShort = try scoreInRounds(&tried, with: &training, alongside: baselines)
        case .random:
            var rng = SplitMix64(seed: seed)
            var all = space.settings
            for i in all.indices.dropLast().reversed() {
                let j = Int(rng.next() % UInt64(i + 2))
                all.swapAt(i + 1, j)
            }
            tried = Array(all.prefix(max(1, samples)))
            progress?("\(label): \(tried.count) random settings")
            cutShort = try scoreInRounds(&tried, with: &training, alongside: baselines)
        case .coordinate:
            tried = try coordinateDescent(&training, label: label, cutShort: &cutShort)
        case .halving:
            let (finalists, cost) = try successiveHalving(
                &training, label: label, users: users, plans: plans, cutShort: &cutShort)
            tried = finalists
            replayCost = cost
            screened = space.count
        }
        // Settings that miss a constraint on a training part rank below every feasible one; when
        // none is feasible the grid is widened toward the constraints, or the run says why not.
        var tuner = self
        var ranking = try tuner.ranking(tried, training)
        var widened: String? = nil
        if !ranking.contains(where: \.feasible) {
            widened = try tuner.widen(&tried, &ranking, &training, label: label)
        }
        guard let chosen = ranking.first(where: \.feasible) else {
            throw TuningError("no setting tried meets \(constraintList) on the training data (\(label))")
        }
        let fixedRows = baselines.map { row(name: $0.name, values: "", metrics: training.metrics($0.name)) }
        let bestFixed = fixedRows.filter(\.feasible).max { rank($0) < rank($1) }
        var folds: [TuningFold] = []
        var tallies: [[String: (fresh: Int, scored: Int)]] = []
        for (i, plan) in plans.enumerated() {
            var (fold, userTally) = try tuner.measure(
                plan, training: &training.parts[i], settings: tried, chosen: chosen.name, bestFixed: bestFixed?.name,
                users: users)
            fold.replayCost = replayCost ?? Double(fold.replays)
            fold.screened = screened ?? tried.count
            fold.cutShort = cutShort ? true : nil
            folds.append(fold)
            tallies.append(userTally)
        }
        var pooled: [String: (fresh: Int, scored: Int)] = [:]
        for tally in tallies {
            for (user, t) in tally {
                let sum = pooled[user] ?? (0, 0)
                pooled[user] = (sum.fresh + t.fresh, sum.scored + t.scored)
            }
        }
        let result = TuningResult(
            family: space.family.rawValue, method: method.rawValue, objective: objective.description,
            constraints: constraints.map(\.description), folds: folds, split: splitText,
            ranking: Self.markedPareto(ranking), chosen: chosen.name, bestFixed: bestFixed?.name,
            heldOut: HeldOutInterval.bootstrap(
                pooled.keys.sorted().map { pooled[$0]! }, tau: intervalTau, resamples: Self.bootstrapResamples,
                seed: Self.bootstrapSeed),
            widened: widened, warnings: Self.warnings(folds))
        return (result, heldOut)
    }

    /// The constraints as the user wrote them, for messages (`fetches<=2/app/day,battery<=1%/day`).
    var constraintList: String { constraints.map(\.description).joined(separator: ",") }

    /// The folds of the split, the held-out part other settings are measured on, and the split in words.
    func plans(_ names: [String], span: ClosedRange<CivilDate>, base: Simulator) throws -> (
        [FoldPlan], HeldOutPart, String
    ) {
        let evaluation = base.evaluation
        switch split {
        case .users:
            guard names.count >= 2 else {
                throw TuningError(
                    "--split users needs at least 2 users with scored launches (one to test on, one to train on); "
                        + "the data has \(names.count): use the time split (--split time)")
            }
            if names.count < Self.leaveOneOutBelow {
                let plans = names.enumerated().map { i, name in
                    FoldPlan(
                        train: base, test: base, trainUser: { $0.name != name }, testUser: { $0.name == name },
                        trainCut: nil,
                        label:
                            "users: train the \(names.count - 1) others, test \(name) (fold \(i + 1) of \(names.count))"
                    )
                }
                let text =
                    "leave one user out: \(names.count) users (fewer than \(Self.leaveOneOutBelow)), each the test part of "
                    + "one fold and a training user of the others; the setting is chosen by its mean over the folds' "
                    + "training parts, so each user's test figures come from a choice the other users' folds made with "
                    + "that user among their training users"
                return (
                    plans,
                    HeldOutPart(
                        simulator: base, includes: { _ in true }, label: "every user (each the test part of its fold)"),
                    text
                )
            }
            let training = Self.trainingUsers(names)
            let tested = names.count - training.count
            let plan = FoldPlan(
                train: base, test: base, trainUser: { training.contains($0.name) },
                testUser: { !training.contains($0.name) }, trainCut: nil,
                label: "users: train \(training.count), test \(tested) (by a hash of the name)")
            return (
                [plan],
                HeldOutPart(
                    simulator: base, includes: { !training.contains($0.name) },
                    label: "users: test \(tested) of \(names.count) (by a hash of the name)"),
                "by users: the 70 % of the \(names.count) users whose names hash lowest train, the other \(tested) test"
            )
        case .time(let trainUntil, let k):
            let first = span.lowerBound.daysSince1970
            let last = span.upperBound.daysSince1970
            var cuts: [Int]
            if let trainUntil {
                cuts = [trainUntil.daysSince1970]
            } else {
                let days = last - first + 1
                cuts =
                    k <= 1
                    ? [first + Int((0.7 * Double(days)).rounded(.down)) - 1]
                    : (1...k).map { first + days * $0 / (k + 1) - 1 }
            }
            var plans: [FoldPlan] = []
            var heldOut: HeldOutPart? = nil
            for (i, cut) in cuts.enumerated() {
                guard cut >= first, cut < last else {
                    throw TuningError(
                        "the training cut \(CivilDate(daysSince1970: cut)) leaves no training or no test days "
                            + "(scored days \(span.lowerBound) to \(span.upperBound))")
                }
                var train = base
                train.evaluation.scoredThrough = CivilDate(daysSince1970: cut)
                if let through = evaluation.scoredThrough, through.daysSince1970 < cut {
                    train.evaluation.scoredThrough = through
                }
                var test = base
                test.evaluation.scoredFrom = CivilDate(daysSince1970: cut + 1)
                if i + 1 < cuts.count { test.evaluation.scoredThrough = CivilDate(daysSince1970: cuts[i + 1]) }
                let testDays =
                    "test \(CivilDate(daysSince1970: cut + 1)) to \(test.evaluation.scoredThrough ?? span.upperBound)"
                let label =
                    "train \(train.evaluation.scoredFrom.map { "\($0)" } ?? span.lowerBound.description) to "
                    + "\(CivilDate(daysSince1970: cut)), \(testDays)"
                heldOut = HeldOutPart(simulator: test, includes: { _ in true }, label: testDays)
                plans.append(
                    FoldPlan(
                        train: train, test: test, trainUser: { _ in true }, testUser: { _ in true },
                        trainCut: train.evaluation.scoredThrough, label: label))
            }
            guard let heldOut else { throw TuningError("no fold to measure on") }
            let text =
                plans.count == 1
                ? "by time: train on the scored days through the cut, test on the days after it"
                : "by time: \(plans.count) expanding-window folds; the setting is chosen by its mean over the folds' "
                    + "training parts (within the constraints on every one); a fold's test days are training days of "
                    + "the later folds, so only the last fold's test days are unseen by the choice"
            return (plans, heldOut, text)
        }
    }

    /// The users who train under the user split: the 70 % (rounded) whose names hash lowest by
    /// FNV-1a (ties by name), so that at least 3 of 10 or more users test.
    public static func trainingUsers(_ names: [String]) -> Set<String> {
        func hash(_ name: String) -> UInt64 {
            var h: UInt64 = 0xcbf2_9ce4_8422_2325
            for b in name.utf8 {
                h ^= UInt64(b)
                h = h &* 0x100_0000_01b3
            }
            return h
        }
        let sorted = names.sorted { (hash($0), $0) < (hash($1), $1) }
        return Set(sorted.prefix(Int((0.7 * Double(names.count)).rounded())))
    }

    /// The first and last scored local day over all users, and the users with a scored launch (by name).
    struct Population {
        var span: ClosedRange<CivilDate>?
        var users: [String]
    }

    static func population(_ users: UserBatches, evaluation: EvaluationProtocol) throws -> Population {
        var first: Int? = nil
        var last: Int? = nil
        var names: [String] = []
        try users { batch in
            for h in batch {
                let apps = Set(evaluation.evaluatedApps(of: h))
                guard let w = evaluation.window(of: h), !apps.isEmpty else { continue }
                let a = LocalCalendar.day(w.start, offset: w.offset)
                let b = LocalCalendar.day(w.end, offset: w.offset)
                first = min(first ?? a, a)
                last = max(last ?? b, b)
                if h.launches.contains(where: { apps.contains($0.app) && w.isScored($0.time) }) {
                    names.append(h.user.name)
                }
            }
        }
        guard let first, let last else { return Population(span: nil, users: []) }
        return Population(
            span: CivilDate(daysSince1970: first)...CivilDate(daysSince1970: last), users: names.sorted())
    }

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
            return row(name: name, values: space.describe(s), metrics: training.metrics(name))
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

    /// Widens the grid toward the constraints until a setting meets them on every training part
    /// (at most ``widenings`` times): the direction is the one the closest setting's missed bounds
    /// pull (every metric grows with the fetches: `≤` wants fewer, `≥` more). Returns the
    /// widening in words; throws one line naming the family, the constraint and the closest
    /// setting's value when it cannot be widened or stays infeasible.
    mutating func widen(
        _ tried: inout [SearchSpace.Setting], _ ranking: inout [TriedSetting], _ training: inout Training,
        label: String
    ) throws -> String {
        func closest() throws -> String {
            guard let row = ranking.first else { return "nothing was tried" }
            let missed = constraints.filter { c in
                training.metrics(row.name).contains { !c.holds(c.metric.value(in: $0)) }
            }
            let values = missed.map { c -> String in
                let values = training.metrics(row.name).compactMap { c.metric.value(in: $0) }
                let worst = c.atMost ? values.max() : values.min()
                let folds = training.parts.count > 1 ? " on its worst training part" : ""
                return "\(c.metric) \(worst.map { Self.format($0, c.metric) } ?? "not measured")\(folds)"
            }
            return "the closest, \(row.name), has \(values.joined(separator: " and "))"
        }
        guard let first = ranking.first else { throw TuningError("\(space.family.rawValue): no setting was tried") }
        let missed = constraints.filter { c in
            training.metrics(first.name).contains { !c.holds(c.metric.value(in: $0)) }
        }
        let directions = Set(missed.map(\.atMost))
        let family = space.family.rawValue
        guard directions.count == 1, let cheaper = directions.first else {
            throw TuningError(
                "\(family): no setting meets \(constraintList) on the training part and the bounds pull the grid "
                    + "both ways, so it cannot be widened; \(try closest())")
        }
        let toward = missed.map(\.description).joined(separator: ",")
        var added: [String: [String]] = [:]
        var order: [String] = []
        for _ in 0..<widenings {
            guard let (wider, new) = space.widened(cheaper: cheaper) else { break }
            // Settings that use a new value on some parameter, and parse as a policy.
            let fresh = wider.settings.filter { s in new.contains { s[$0.axis] == wider.axes[$0.axis].values.count - 1 }
            }
            .filter { (try? wider.policy($0)) != nil }
            space = wider
            for (axis, value) in new {
                let name = wider.axes[axis].name
                if added[name] == nil { order.append(name) }
                added[name, default: []].append(value)
            }
            progress?("\(label): widening toward \(toward): \(fresh.count) settings")
            try training.score(try fresh.map { try space.policy($0) })
            tried += fresh
            ranking = try self.ranking(tried, training)
            if ranking.contains(where: \.feasible) { break }
        }
        let words = order.map { "\($0) to \(added[$0]!.joined(separator: ", "))" }.joined(separator: "; ")
        guard ranking.contains(where: \.feasible) else {
            throw TuningError(
                "\(family): no setting meets \(toward) on the training part"
                    + (words.isEmpty ? " and its grid cannot be widened toward it" : ", even with \(words) added")
                    + "; \(try closest())")
        }
        return "no setting of the grid met \(toward) on the training part, so the grid was widened: \(words) added"
    }

    /// A metric's value as messages write it: `5.61/app/day`, `0.32` (fresh).
    static func format(_ value: Double, _ metric: TuningMetric) -> String {
        String(format: "%.2f", value) + metric.unit
    }

    /// One line per kind of doubt: test parts with fewer than ``fewTestUsers`` users or
    /// ``fewTestLaunches`` scored launches (none: no warning).
    static func warnings(_ folds: [TuningFold]) -> [String] {
        let small = folds.enumerated().filter {
            ($0.element.testUsers ?? 0) < fewTestUsers || $0.element.chosenTest.scoredLaunches < fewTestLaunches
        }
        guard !small.isEmpty else { return [] }
        func users(_ n: Int) -> String { n == 1 ? "1 user" : "\(n) users" }
        let parts = small.map { i, f in
            (folds.count > 1 ? "fold \(i + 1): " : "")
                + "\(users(f.testUsers ?? 0)), \(f.chosenTest.scoredLaunches) scored launches"
        }
        return [
            "few to measure on (fewer than \(fewTestUsers) users or \(fewTestLaunches) scored launches in a test part; "
                + parts.joined(separator: "; ") + "): the held-out figures may not hold for other users"
        ]
    }

    /// Measures the chosen setting, the best fixed interval and the per-app and per-group picks
    /// on a fold's test part; the fold's own training figures come from `scorer`.
    /// - Returns: the fold, and the chosen setting's fresh and scored launches per test user.
    func measure(
        _ plan: FoldPlan, training scorer: inout Scorer, settings tried: [SearchSpace.Setting], chosen: String,
        bestFixed: String?, users: @escaping UserBatches
    ) throws -> (TuningFold, [String: (fresh: Int, scored: Int)]) {
        let trainCut = plan.trainCut
        var rows: [TriedSetting] = try tried.map { s in
            let name = try space.name(s)
            return row(name: name, values: space.describe(s), metrics: scorer.metrics(name))
        }
        rows.sort { rank($0) > rank($1) }
        Self.markPareto(&rows)
        let chosenRow = row(name: chosen, values: "", metrics: scorer.metrics(chosen))
        // Per app and per group of users: the best tried setting on that part of the training data.
        let picks = groupPicks(scorer, names: rows.map(\.name))
        // Held out: the chosen setting, the best fixed interval and every group's pick, in one comparison.
        var held = Scorer(simulator: plan.test, users: users, include: plan.testUser)
        held.userReplayed = userReplayed
        held.keepsTallies = true
        if let thresholds = scorer.groupThresholds {
            // The time split keeps each user's group from the training days; held-out users are
            // grouped by the training users' thresholds.
            held.userGroups =
                trainCut != nil
                ? scorer.userGroups
                : try Self.activity(users, include: plan.testUser, cut: nil).mapValues {
                    Self.activityGroup($0, thresholds)
                }
        }
        let chosenPolicy = try PolicyRegistry.parse(chosen)[0]
        var others = try bestFixed.map { try PolicyRegistry.parse($0) } ?? []
        // This fold's own pick: what its training part alone would choose.
        let ownPick = rows.first(where: \.feasible)?.name
        if let ownPick, ownPick != chosen { others += try PolicyRegistry.parse(ownPick) }
        for pick in picks where pick.name != chosen { others += try PolicyRegistry.parse(pick.name) }
        // Per app: the settings chosen together on train, replayed as one policy.
        // The sum of the apps' figures misses how their fetches share the radio once combined, so
        // the combination is replayed on train and, while it misses a cost bound, chosen again
        // under that bound scaled by how far the sum fell short (at most four times).
        var perApp: PerAppRecommendation? = nil
        var perAppPolicy: PerAppPolicy? = nil
        var bounds = constraints
        for _ in 0..<4 {
            guard var recommendation = allocate(scorer, names: rows.map(\.name), global: chosen, constraints: bounds)
            else { break }
            var parts: [String: any FetchPolicy] = [:]
            for a in recommendation.assignments { parts[a.app] = try PolicyRegistry.parse(a.setting)[0] }
            let policy = PerAppPolicy(assignments: parts, fallback: chosenPolicy)
            try scorer.score([], alongside: [policy])
            let replayed = scorer.metrics(policy.name)
            recommendation.policy = policy.name
            recommendation.train = summary(replayed)
            recommendation.feasibleOnTrain = constraints.allSatisfy { $0.holds($0.metric.value(in: replayed)) }
            perApp = recommendation
            perAppPolicy = policy
            if recommendation.feasibleOnTrain { break }
            for (i, c) in bounds.enumerated() {
                guard let actual = c.metric.value(in: replayed),
                    let estimated = c.metric.value(in: recommendation.trainEstimate),
                    !constraints[i].holds(actual), actual != 0
                else { continue }
                bounds[i].bound = c.bound * estimated / actual
            }
        }
        if let perAppPolicy { others.append(perAppPolicy) }
        try held.score([chosenPolicy], alongside: others)
        if let policy = perAppPolicy { perApp?.test = summary(held.metrics(policy.name)) }
        /// A part's row: `policy`'s figures on the part's held-out launches against the overall choice's.
        func recommendation(
            _ kind: GroupRecommendation.Kind, _ group: String, chosen name: String, policy: String, train: PolicyMetrics
        ) -> GroupRecommendation? {
            guard let mine = held.group(kind, group, of: policy), let global = held.group(kind, group, of: chosen)
            else { return nil }
            let test = summary(mine)
            let globalTest = summary(global)
            return GroupRecommendation(
                kind: kind, group: group, chosen: name, chosenTrain: summary(train), chosenTest: test,
                globalTest: globalTest,
                bestFixedTest: bestFixed.flatMap { held.group(kind, group, of: $0) }.map(summary),
                gain: objective.score(test.objective) - objective.score(globalTest.objective))
        }
        let appRows = (perApp?.assignments ?? []).compactMap { a -> GroupRecommendation? in
            guard let policy = perAppPolicy, let train = scorer.group(.app, a.app, of: a.setting) else { return nil }
            return recommendation(.app, a.app, chosen: a.setting, policy: policy.name, train: train)
        }
        let groups =
            appRows
            + picks.compactMap { recommendation(.users, $0.group, chosen: $0.name, policy: $0.name, train: $0.train) }
        let test = held.metrics(chosen)
        guard test.scoredLaunches > 0 else {
            throw TuningError("\(plan.label): the test part has no scored launch to measure on")
        }
        // The chosen setting's fresh and scored launches per test user, at the interval's τ.
        let tau = held.simulator.evaluation.reportedTaus.firstIndex(of: intervalTau) ?? 0
        var tally: [String: (fresh: Int, scored: Int)] = [:]
        for t in held.tallies[chosen] ?? [] where t.scored > 0 {
            tally[t.user] = (t.fresh.indices.contains(tau) ? t.fresh[tau] : 0, t.scored)
        }
        var fold = TuningFold(
            label: plan.label, tried: rows, chosen: chosen, bestFixed: bestFixed, chosenTrain: chosenRow.train,
            bestFixedTrain: bestFixed.map { summary(scorer.metrics($0)) }, chosenTest: summary(test),
            bestFixedTest: bestFixed.map { summary(held.metrics($0)) }, replays: scorer.replays,
            groups: groups, perApp: perApp)
        fold.trainUsers = scorer.scoredUsers
        fold.testUsers = tally.count
        fold.testUserNames = tally.count <= 10 ? tally.keys.sorted() : nil
        func checks(_ m: PolicyMetrics) -> [ConstraintCheck] {
            constraints.map { c in
                let value = c.metric.value(in: m)
                return ConstraintCheck(constraint: c.description, value: value, held: c.holds(value))
            }
        }
        fold.constraintsOnTest = checks(test)
        if let ownPick {
            fold.ownPick = ownPick
            fold.ownPickTest = summary(held.metrics(ownPick))
            fold.ownPickConstraintsOnTest = checks(held.metrics(ownPick))
        }
        fold.testInterval = HeldOutInterval.bootstrap(
            tally.keys.sorted().map { tally[$0]! }, tau: intervalTau, resamples: Self.bootstrapResamples,
            seed: Self.bootstrapSeed)
        return (fold, tally)
    }

    func summary(_ m: PolicyMetrics) -> ScoreSummary {
        ScoreSummary(
            objective: objective.metric.value(in: m) ?? 0, fresh15: TuningMetric.fresh(.minutes(15)).value(in: m) ?? 0,
            energyJoulesPerDay: m.energyJoulesPerDay, batteryPercentPerDay: m.batteryPercentPerDay,
            cellularMBPerDay: m.cellularMBPerDay, fetchesPerAppDay: m.fetchesPerAppDay, scoredLaunches: m.scoredLaunches
        )
    }

    func row(name: String, values: String, metrics m: PolicyMetrics) -> TriedSetting {
        row(name: name, values: values, metrics: [m])
    }

    /// A setting's row over the training parts: the mean of its figures; feasible when it meets
    /// every constraint on every part; its violation the mean of the parts' (summed relative to
    /// each bound).
    func row(name: String, values: String, metrics parts: [PolicyMetrics]) -> TriedSetting {
        let violations = parts.map { m in constraints.reduce(0) { $0 + $1.violation($1.metric.value(in: m)) } }
        let violation = violations.reduce(0, +) / Double(max(1, violations.count))
        var row = TriedSetting(
            name: name, values: values, train: ScoreSummary.mean(parts.map(summary)),
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
            feasible: r.feasible, score: r.feasible ? objective.score(r.train.objective) : -r.violation, name: r.name)
    }

    func rank(_ m: PolicyMetrics, name: String) -> Rank {
        rank(row(name: name, values: "", metrics: m))
    }

    func rank(_ parts: [PolicyMetrics], name: String) -> Rank {
        rank(row(name: name, values: "", metrics: parts))
    }

    /// Marks the settings no other setting beats on fresh@15m, energy and cellular at once.
    static func markPareto(_ rows: inout [TriedSetting]) {
        for i in rows.indices {
            let a = rows[i].train
            rows[i].pareto = !rows.contains { r in
                let b = r.train
                let noWorse =
                    b.fresh15 >= a.fresh15 && b.energyJoulesPerDay <= a.energyJoulesPerDay
                    && b.cellularMBPerDay <= a.cellularMBPerDay
                let better =
                    b.fresh15 > a.fresh15 || b.energyJoulesPerDay < a.energyJoulesPerDay
                    || b.cellularMBPerDay < a.cellularMBPerDay
                return noWorse && better
            }
        }
    }
}

/// The training parts of every fold, replayed together: each setting on every part.
struct Training {
    var parts: [Scorer]

    /// Replays the policies not yet replayed on every part (see ``Scorer/score(_:alongside:)``).
    mutating func score(_ policies: [any FetchPolicy], alongside others: [any FetchPolicy] = []) throws {
        for i in parts.indices { try parts[i].score(policies, alongside: others) }
    }

    /// A policy's metrics on each part.
    func metrics(_ name: String) -> [PolicyMetrics] { parts.map { $0.metrics(name) } }
}

/// Replays policies over the users of one split, each canonical name at most once.
struct Scorer {
    let simulator: Simulator
    let users: Tuner.UserBatches
    let include: (UserID) -> Bool
    /// The last local day the training part may see: each history is cut at the following local
    /// midnight before it is replayed, so no later event (nor its count of launches, which picks
    /// the evaluated apps) reaches selection.
    var cut: CivilDate? = nil
    /// The group of each user, by name (empty: no groups of users).
    var userGroups: [String: String] = [:]
    /// The launches per day that part light, moderate and heavy users (nil: users not grouped).
    var groupThresholds: (Double, Double)? = nil
    var cache: [String: PolicyResult] = [:]
    /// Users replayed (the last comparison's).
    var usersReplayed = 0
    /// Settings replayed (cache misses of counted rounds).
    var replays = 0
    /// Also replay the reference policies (never, the fixed intervals, the oracles): no tuning
    /// metric needs them.
    var references = false
    var userReplayed: (@Sendable () -> Void)? = nil
    /// Users with a scored launch (the last comparison's).
    var scoredUsers = 0
    /// Keep each policy's ``UserTally`` figures (its fresh launches per τ) per user in ``tallies``.
    var keepsTallies = false
    var tallies: [String: [(user: String, scored: Int, fresh: [Int])]] = [:]

    init(simulator: Simulator, users: @escaping Tuner.UserBatches, include: @escaping (UserID) -> Bool) {
        self.simulator = simulator
        self.users = users
        self.include = include
    }

    /// Replays the policies not yet in the cache, and the uncounted `others` (baselines) with them,
    /// all in one comparison (users loaded once); ``replays`` counts the first ones.
    mutating func score(_ policies: [any FetchPolicy], alongside others: [any FetchPolicy] = []) throws {
        var missing: [any FetchPolicy] = []
        var names = Set<String>()
        for p in policies where cache[p.name] == nil && names.insert(p.name).inserted { missing.append(p) }
        let counted = missing.count
        for p in others where cache[p.name] == nil && names.insert(p.name).inserted { missing.append(p) }
        guard !missing.isEmpty else { return }
        var run = simulator.comparison(policies: missing, references: references)
        run.tallyUsers = true
        if !userGroups.isEmpty { run.userGroups = userGroups }
        let include = self.include
        let cut = self.cut
        let userReplayed = self.userReplayed
        try users { batch in
            let kept = batch.filter { include($0.user) }
            for _ in kept.count..<batch.count { userReplayed?() }
            let prepare: (@Sendable (UserHistory) -> UserHistory)? =
                cut.map { day in { @Sendable history in Tuner.cut(history, at: day) } }
            run.add(kept, progress: userReplayed, prepare: prepare)
        }
        let report = run.report()
        for (p, result) in zip(missing, report.policies) { cache[p.name] = result }
        usersReplayed = report.settings.users
        scoredUsers = run.userTallies.filter { $0.scored > 0 }.count
        if keepsTallies {
            for (i, p) in missing.enumerated() {
                tallies[p.name] = run.userTallies.map { ($0.user, $0.scored, $0.fresh[i]) }
            }
        }
        replays += counted
    }

    func metrics(_ name: String) -> PolicyMetrics { cache[name]!.metrics }

    /// A policy's metrics over one app or one group of users (nil: not in this part).
    func group(_ kind: GroupRecommendation.Kind, _ group: String, of name: String) -> PolicyMetrics? {
        guard let result = cache[name] else { return nil }
        let groups = kind == .app ? result.perApp : result.perGroup ?? []
        return groups.first { $0.name == group }?.metrics
    }
}

/// A small seeded generator (SplitMix64): the same seed draws the same settings.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}
