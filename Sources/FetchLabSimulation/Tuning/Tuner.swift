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
    /// Train on the users whose name hashes into the first 70 %, test on the others.
    case users
}

/// Tunes one family's parameters on training data and measures the chosen setting, and the best
/// fixed interval chosen the same way, on held-out data.
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
    /// Called with a line of progress (a round started).
    public var progress: (@Sendable (String) -> Void)? = nil
    /// Called once per user replayed, in every pass over the users (from any thread).
    public var userReplayed: (@Sendable () -> Void)? = nil
    /// Asked before each round of the search but the first: true stops the search there (a time
    /// budget); the best setting found so far is still measured on held-out data. When set, grid
    /// and random searches replay their settings in rounds (``budgetRoundSize``) so they can stop.
    public var budgetSpent: (@Sendable () -> Bool)? = nil

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

    /// ``run(_:)``, with the last fold's held-out part (for measuring other settings on it).
    public func runKeepingHeldOut(_ users: @escaping UserBatches) throws -> (result: TuningResult, heldOut: HeldOutPart)
    {
        var evaluation = simulator.evaluation
        for metric in [objective.metric] + constraints.map(\.metric) {
            if let tau = metric.tau, !evaluation.taus.contains(tau) { evaluation.taus.append(tau) }
        }
        var base = simulator
        base.evaluation = evaluation
        base.perUser = false
        var folds: [TuningFold] = []
        var heldOut: HeldOutPart? = nil
        switch split {
        case .users:
            heldOut = HeldOutPart(
                simulator: base, includes: { !Self.isTrainingUser($0) }, label: "users: test 30 % (by name hash)")
            folds.append(
                try fold(
                    users, train: base, test: base, trainUser: { Self.isTrainingUser($0) },
                    testUser: { !Self.isTrainingUser($0) }, label: "users: train 70 %, test 30 % (by name hash)"))
        case .time(let trainUntil, let k):
            guard let span = try Self.scoredSpan(counting(users), evaluation: evaluation) else {
                throw TuningError("no launch is scored (no app with enough launches past the warm-up)")
            }
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
                let label =
                    "train \(train.evaluation.scoredFrom.map { "\($0)" } ?? span.lowerBound.description) to "
                    + "\(CivilDate(daysSince1970: cut)), test \(CivilDate(daysSince1970: cut + 1)) to "
                    + "\(test.evaluation.scoredThrough ?? span.upperBound)"
                heldOut = HeldOutPart(
                    simulator: test, includes: { _ in true },
                    label:
                        "test \(CivilDate(daysSince1970: cut + 1)) to \(test.evaluation.scoredThrough ?? span.upperBound)"
                )
                folds.append(
                    try fold(
                        users, train: train, test: test, trainUser: { _ in true }, testUser: { _ in true },
                        label: label,
                        trainCut: train.evaluation.scoredThrough))
            }
        }
        let result = TuningResult(
            family: space.family.rawValue, method: method.rawValue, objective: objective.description,
            constraints: constraints.map(\.description), folds: folds)
        guard let heldOut else { throw TuningError("no fold to measure on") }
        return (result, heldOut)
    }

    /// Whether a user trains under the user split: a stable hash of the name (FNV-1a) in the first 70 %.
    public static func isTrainingUser(_ user: UserID) -> Bool {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in user.name.utf8 {
            h ^= UInt64(b)
            h = h &* 0x100_0000_01b3
        }
        return h % 100 < 70
    }

    /// The first and last scored local day over all users (nil: nothing is scored).
    static func scoredSpan(_ users: UserBatches, evaluation: EvaluationProtocol) throws -> ClosedRange<CivilDate>? {
        var first: Int? = nil
        var last: Int? = nil
        try users { batch in
            for h in batch {
                guard let w = evaluation.window(of: h), !evaluation.evaluatedApps(of: h).isEmpty else { continue }
                let a = LocalCalendar.day(w.start, offset: w.offset)
                let b = LocalCalendar.day(w.end, offset: w.offset)
                first = min(first ?? a, a)
                last = max(last ?? b, b)
            }
        }
        guard let first, let last else { return nil }
        return CivilDate(daysSince1970: first)...CivilDate(daysSince1970: last)
    }

    /// Searches on the training part, then measures on the test part.
    func fold(
        _ users: @escaping UserBatches, train: Simulator, test: Simulator, trainUser: @escaping (UserID) -> Bool,
        testUser: @escaping (UserID) -> Bool, label: String, trainCut: CivilDate? = nil
    ) throws -> TuningFold {
        var scorer = Scorer(simulator: train, users: users, include: trainUser)
        scorer.cut = trainCut
        scorer.userReplayed = userReplayed
        var cutShort = false
        if groupUsers {
            let activity = try Self.activity(users, include: trainUser, cut: trainCut)
            if let thresholds = Self.tercileThresholds(Array(activity.values)) {
                scorer.groupThresholds = thresholds
                scorer.userGroups = activity.mapValues { Self.activityGroup($0, thresholds) }
            }
        }
        // The fixed baselines ride along with the first round (the comparison replays them anyway).
        let baselines = Self.fixedBaselines
        var tried: [SearchSpace.Setting] = []
        var replayCost: Double? = nil
        var screened: Int? = nil
        switch method {
        case .grid:
            tried = space.settings
            progress?("\(label): \(tried.count) settings")
            cutShort = try scoreInRounds(&tried, with: &scorer, alongside: baselines)
        case .random:
            var rng = SplitMix64(seed: seed)
            var all = space.settings
            for i in all.indices.dropLast().reversed() {
                let j = Int(rng.next() % UInt64(i + 2))
                all.swapAt(i + 1, j)
            }
            tried = Array(all.prefix(max(1, samples)))
            progress?("\(label): \(tried.count) random settings")
            cutShort = try scoreInRounds(&tried, with: &scorer, alongside: baselines)
        case .coordinate:
            tried = try coordinateDescent(&scorer, label: label, cutShort: &cutShort)
        case .halving:
            let (finalists, cost) = try successiveHalving(
                &scorer, label: label, users: users, trainUser: trainUser, cutShort: &cutShort)
            tried = finalists
            replayCost = cost
            screened = space.count
        }
        var rows: [TriedSetting] = try tried.map { s in
            let name = try space.name(s)
            return row(name: name, values: space.describe(s), metrics: scorer.metrics(name))
        }
        rows.sort { rank($0) > rank($1) }
        Self.markPareto(&rows)
        guard let chosen = rows.first(where: { $0.feasible }) else {
            throw TuningError(
                "no setting tried meets \(constraints.map(\.description).joined(separator: ",")) on the training data (\(label))"
            )
        }
        let fixedRows = Self.fixedBaselines.map { row(name: $0.name, values: "", metrics: scorer.metrics($0.name)) }
        let bestFixed = fixedRows.filter { $0.feasible }.max { rank($0) < rank($1) }
        // Per app and per group of users: the best tried setting on that part of the training data.
        let picks = groupPicks(scorer, names: rows.map(\.name))
        // Held out: the chosen setting, the best fixed interval and every group's pick, in one comparison.
        var held = Scorer(simulator: test, users: users, include: testUser)
        held.userReplayed = userReplayed
        if let thresholds = scorer.groupThresholds {
            // The time split keeps each user's group from the training days; held-out users are
            // grouped by the training users' thresholds.
            held.userGroups =
                trainCut != nil
                ? scorer.userGroups
                : try Self.activity(users, include: testUser, cut: nil).mapValues { Self.activityGroup($0, thresholds) }
        }
        let chosenPolicy = try PolicyRegistry.parse(chosen.name)[0]
        var others = try bestFixed.map { try PolicyRegistry.parse($0.name) } ?? []
        for pick in picks where pick.name != chosen.name { others += try PolicyRegistry.parse(pick.name) }
        // Per app: the settings chosen together on train, replayed as one policy.
        // The sum of the apps' figures misses how their fetches share the radio once combined, so
        // the combination is replayed on train and, while it misses a cost bound, chosen again
        // under that bound scaled by how far the sum fell short (at most four times).
        var perApp: PerAppRecommendation? = nil
        var perAppPolicy: PerAppPolicy? = nil
        var bounds = constraints
        for _ in 0..<4 {
            guard
                var recommendation = allocate(scorer, names: rows.map(\.name), global: chosen.name, constraints: bounds)
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
            guard let mine = held.group(kind, group, of: policy), let global = held.group(kind, group, of: chosen.name)
            else { return nil }
            let test = summary(mine)
            let globalTest = summary(global)
            return GroupRecommendation(
                kind: kind, group: group, chosen: name, chosenTrain: summary(train), chosenTest: test,
                globalTest: globalTest,
                bestFixedTest: bestFixed.flatMap { held.group(kind, group, of: $0.name) }.map(summary),
                gain: objective.score(test.objective) - objective.score(globalTest.objective))
        }
        let appRows = (perApp?.assignments ?? []).compactMap { a -> GroupRecommendation? in
            guard let policy = perAppPolicy, let train = scorer.group(.app, a.app, of: a.setting) else { return nil }
            return recommendation(.app, a.app, chosen: a.setting, policy: policy.name, train: train)
        }
        let groups =
            appRows
            + picks.compactMap { recommendation(.users, $0.group, chosen: $0.name, policy: $0.name, train: $0.train) }
        return TuningFold(
            label: label, tried: rows, chosen: chosen.name, bestFixed: bestFixed?.name,
            chosenTrain: chosen.train, bestFixedTrain: bestFixed?.train,
            chosenTest: summary(held.metrics(chosen.name)),
            bestFixedTest: bestFixed.map { summary(held.metrics($0.name)) },
            replays: scorer.replays, replayCost: replayCost ?? Double(scorer.replays),
            screened: screened ?? tried.count,
            groups: groups, perApp: perApp, cutShort: cutShort ? true : nil)
    }

    func summary(_ m: PolicyMetrics) -> ScoreSummary {
        ScoreSummary(
            objective: objective.metric.value(in: m) ?? 0, fresh15: TuningMetric.fresh(.minutes(15)).value(in: m) ?? 0,
            energyJoulesPerDay: m.energyJoulesPerDay, batteryPercentPerDay: m.batteryPercentPerDay,
            cellularMBPerDay: m.cellularMBPerDay, fetchesPerAppDay: m.fetchesPerAppDay, scoredLaunches: m.scoredLaunches
        )
    }

    func row(name: String, values: String, metrics m: PolicyMetrics) -> TriedSetting {
        let violation = constraints.reduce(0) { $0 + $1.violation($1.metric.value(in: m)) }
        var row = TriedSetting(name: name, values: values, train: summary(m), feasible: violation == 0, pareto: false)
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
