/// What a tuning run found: the settings tried ranked by their mean over the folds' training
/// parts, the one chosen and the best fixed interval, and per fold their training scores and both
/// measured on the fold's held-out part, with the constraints checked there.
public struct TuningResult: Sendable, Codable, Hashable {
    public var family: String
    public var method: String
    public var objective: String
    public var constraints: [String]
    public var folds: [TuningFold]
    /// How the data was split and how the setting was chosen, in words (nil: a run stored before
    /// it was said).
    public var split: String? = nil
    /// Every setting tried, ranked by its mean over the folds' training parts (feasible: within the
    /// constraints on every training part; the figures are the means, `scored_launches` their sum).
    /// The choice is its first feasible setting. Nil: a run stored before the choice was made over folds.
    public var ranking: [TriedSetting]? = nil
    /// The setting chosen by ``ranking`` (the same on every fold), and the best fixed interval
    /// chosen the same way (nil: none within the constraints).
    public var chosen: String? = nil
    public var bestFixed: String? = nil
    /// The chosen setting's fresh rate over all the folds' test parts (every fold's test launches
    /// pooled, each user's summed), with a bootstrap interval over the test users.
    public var heldOut: HeldOutInterval? = nil
    /// When no setting of the grid met the constraints on training: how it was widened.
    public var widened: String? = nil
    /// One line each: test parts too small to trust (fewer than 10 users or 500 scored launches),
    /// a held-out gain outside its training interval, a fold's pick that broke a constraint on its
    /// held-out part.
    public var warnings: [String]? = nil
    /// The chosen setting's promise: its fresh rate and gain over the fixed baseline on the
    /// training parts and on the held-out parts (every fold's pooled), with intervals (nil: a run
    /// stored before it was measured).
    public var promise: TuningPromise? = nil
    /// What the settings were ranked by (nil: a run stored before it was said, ranked by the objective).
    public var rankedBy: RankedBy? = nil

    /// What a tuning run ranks its settings by.
    public enum RankedBy: String, Sendable, Codable, Hashable {
        /// The gain over the fixed baseline on the same users and days (`--maximize fresh@τ`).
        case gainVsFixed = "gain_vs_fixed"
        /// The objective's metric (`--minimize` a cost).
        case objective
    }

    public init(
        family: String, method: String, objective: String, constraints: [String], folds: [TuningFold],
        split: String? = nil, ranking: [TriedSetting]? = nil, chosen: String? = nil, bestFixed: String? = nil,
        heldOut: HeldOutInterval? = nil, widened: String? = nil, warnings: [String]? = nil
    ) {
        self.family = family
        self.method = method
        self.objective = objective
        self.constraints = constraints
        self.folds = folds
        self.split = split
        self.ranking = ranking
        self.chosen = chosen
        self.bestFixed = bestFixed
        self.heldOut = heldOut
        self.widened = widened
        self.warnings = warnings
    }

    /// The held-out objective of each fold's own pick over the folds (nil: not measured): an
    /// estimate no test part informed, of what choosing on a training part gives on unseen data.
    public var ownPicksTest: Spread? {
        let values = folds.compactMap { $0.ownPickTest?.objective }
        return values.count == folds.count && !values.isEmpty ? Spread(values) : nil
    }

    /// Per constraint, on how many folds' test parts the folds' own picks met it (empty: not measured).
    public var ownPicksConstraintsHeld: [ConstraintTally] {
        let checked = folds.compactMap(\.ownPickConstraintsOnTest)
        guard checked.count == folds.count, let first = checked.first else { return [] }
        return first.indices.map { i in
            ConstraintTally(
                constraint: first[i].constraint, held: checked.filter { $0.indices.contains(i) && $0[i].held }.count,
                folds: checked.count)
        }
    }

    /// Per constraint, on how many folds' test parts the chosen setting met it (folds measured
    /// before constraints were checked on test count as not checked: none).
    public var constraintsHeld: [ConstraintTally] {
        let checked = folds.compactMap(\.constraintsOnTest)
        guard let first = checked.first else { return [] }
        return first.indices.map { i in
            ConstraintTally(
                constraint: first[i].constraint, held: checked.filter { $0.indices.contains(i) && $0[i].held }.count,
                folds: checked.count)
        }
    }

    /// Settings replayed by the search, over all folds (the fixed baselines and the held-out
    /// measurement not included).
    public var replays: Int { folds.reduce(0) { $0 + $1.replays } }
    /// The searches' cost over all folds, in replays of all training users (see ``TuningFold/replayCost``).
    public var replayCost: Double { folds.reduce(0) { $0 + $1.replayCost } }

    /// The held-out objective of the chosen settings over the folds: mean, min, max.
    public var chosenTest: Spread { Spread(folds.map(\.chosenTest.objective)) }
    /// The same for the best fixed intervals (folds without one left out; nil: none).
    public var bestFixedTest: Spread? {
        let values = folds.compactMap { $0.bestFixedTest?.objective }
        return values.isEmpty ? nil : Spread(values)
    }
}

/// Mean, min and max of a score over folds.
public struct Spread: Sendable, Codable, Hashable {
    public var mean: Double
    public var min: Double
    public var max: Double
    public init(_ values: [Double]) {
        mean = values.isEmpty ? 0 : values.reduce(0, +) / Double(values.count)
        min = values.min() ?? 0
        max = values.max() ?? 0
    }
}

/// One train/test split.
public struct TuningFold: Sendable, Codable, Hashable {
    /// The split in words, e.g. `train 2024-03-08 to 2024-03-20, test 2024-03-21 to 2024-03-26`.
    public var label: String
    /// The settings tried, ranked by the objective on train (feasible first).
    public var tried: [TriedSetting]
    public var chosen: String
    /// The best feasible fixed interval on train (nil: none meets the constraints).
    public var bestFixed: String?
    public var chosenTrain: ScoreSummary
    public var bestFixedTrain: ScoreSummary?
    public var chosenTest: ScoreSummary
    public var bestFixedTest: ScoreSummary?
    /// Settings the search replayed on this fold's training data (all training users).
    public var replays: Int
    /// What the search cost in replays of every setting on all training users: `replays`, except
    /// for successive halving, whose replays on a share of the users count for that share.
    public var replayCost: Double = 0
    /// Settings the search looked at (for successive halving: all, most on a share of the users).
    public var screened: Int = 0
    /// Per app (with enough training launches) and per group of users: the best setting on that
    /// part, measured on that part's held-out launches against the overall choice.
    public var groups: [GroupRecommendation] = []
    /// A setting per app, chosen together under the constraints, replayed as one policy (nil:
    /// every app keeps the overall choice, or a metric does not add up per app).
    public var perApp: PerAppRecommendation? = nil
    /// true when a time budget stopped the search before it finished (nil: it finished).
    public var cutShort: Bool? = nil
    /// Users with scored launches in the training part and in the test part (nil: a run stored
    /// before they were counted).
    public var trainUsers: Int? = nil
    public var testUsers: Int? = nil
    /// The test users' names, when there are at most ten.
    public var testUserNames: [String]? = nil
    /// Each constraint checked on the chosen setting's test figures.
    public var constraintsOnTest: [ConstraintCheck]? = nil
    /// The chosen setting's test fresh rate with its bootstrap interval over this fold's test users.
    public var testInterval: HeldOutInterval? = nil
    /// The setting this fold's training part alone ranks first (feasible there), its test figures
    /// and the constraints checked on them: unlike the choice over all folds, it never saw this
    /// fold's test part (nil: a run stored before it was measured).
    public var ownPick: String? = nil
    public var ownPickTest: ScoreSummary? = nil
    public var ownPickConstraintsOnTest: [ConstraintCheck]? = nil
    /// The chosen setting's promise on this fold: training part → test part (nil: a run stored
    /// before it was measured).
    public var promise: TuningPromise? = nil

    enum CodingKeys: String, CodingKey {
        case label, tried, chosen, bestFixed, chosenTrain, bestFixedTrain, chosenTest, bestFixedTest, replays, groups
        case perApp, replayCost, screened, cutShort
        case trainUsers, testUsers, testUserNames, constraintsOnTest, testInterval
        case ownPick, ownPickTest, ownPickConstraintsOnTest, promise
    }

    public init(
        label: String, tried: [TriedSetting], chosen: String, bestFixed: String?, chosenTrain: ScoreSummary,
        bestFixedTrain: ScoreSummary?, chosenTest: ScoreSummary, bestFixedTest: ScoreSummary?, replays: Int,
        replayCost: Double? = nil, screened: Int? = nil, groups: [GroupRecommendation] = [],
        perApp: PerAppRecommendation? = nil, cutShort: Bool? = nil
    ) {
        self.label = label
        self.tried = tried
        self.chosen = chosen
        self.bestFixed = bestFixed
        self.chosenTrain = chosenTrain
        self.bestFixedTrain = bestFixedTrain
        self.chosenTest = chosenTest
        self.bestFixedTest = bestFixedTest
        self.replays = replays
        self.replayCost = replayCost ?? Double(replays)
        self.screened = screened ?? tried.count
        self.groups = groups
        self.perApp = perApp
        self.cutShort = cutShort
    }

    /// Runs stored before the per-app and per-group recommendations decode with none.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        label = try c.decode(String.self, forKey: .label)
        tried = try c.decode([TriedSetting].self, forKey: .tried)
        chosen = try c.decode(String.self, forKey: .chosen)
        bestFixed = try c.decodeIfPresent(String.self, forKey: .bestFixed)
        chosenTrain = try c.decode(ScoreSummary.self, forKey: .chosenTrain)
        bestFixedTrain = try c.decodeIfPresent(ScoreSummary.self, forKey: .bestFixedTrain)
        chosenTest = try c.decode(ScoreSummary.self, forKey: .chosenTest)
        bestFixedTest = try c.decodeIfPresent(ScoreSummary.self, forKey: .bestFixedTest)
        replays = try c.decode(Int.self, forKey: .replays)
        replayCost = try c.decodeIfPresent(Double.self, forKey: .replayCost) ?? Double(replays)
        screened = try c.decodeIfPresent(Int.self, forKey: .screened) ?? tried.count
        groups = try c.decodeIfPresent([GroupRecommendation].self, forKey: .groups) ?? []
        perApp = try c.decodeIfPresent(PerAppRecommendation.self, forKey: .perApp)
        cutShort = try c.decodeIfPresent(Bool.self, forKey: .cutShort)
        trainUsers = try c.decodeIfPresent(Int.self, forKey: .trainUsers)
        testUsers = try c.decodeIfPresent(Int.self, forKey: .testUsers)
        testUserNames = try c.decodeIfPresent([String].self, forKey: .testUserNames)
        constraintsOnTest = try c.decodeIfPresent([ConstraintCheck].self, forKey: .constraintsOnTest)
        testInterval = try c.decodeIfPresent(HeldOutInterval.self, forKey: .testInterval)
        ownPick = try c.decodeIfPresent(String.self, forKey: .ownPick)
        ownPickTest = try c.decodeIfPresent(ScoreSummary.self, forKey: .ownPickTest)
        ownPickConstraintsOnTest = try c.decodeIfPresent([ConstraintCheck].self, forKey: .ownPickConstraintsOnTest)
        promise = try c.decodeIfPresent(TuningPromise.self, forKey: .promise)
    }
}

/// One setting's training scores.
public struct TriedSetting: Sendable, Codable, Hashable {
    public var name: String
    /// `lead=10m threshold=0.3`.
    public var values: String
    public var train: ScoreSummary
    public var feasible: Bool
    /// On the Pareto front of fresh@15m, energy and cellular among the settings tried.
    public var pareto: Bool
    /// How far the training scores miss the constraints, summed relative to each bound (0: feasible).
    public var violation: Double = 0

    enum CodingKeys: String, CodingKey { case name, values, train, feasible, pareto, violation }

    public init(
        name: String, values: String, train: ScoreSummary, feasible: Bool, pareto: Bool, violation: Double = 0
    ) {
        self.name = name
        self.values = values
        self.train = train
        self.feasible = feasible
        self.pareto = pareto
        self.violation = violation
    }

    /// Runs stored before `violation` existed decode with 0.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        values = try c.decode(String.self, forKey: .values)
        train = try c.decode(ScoreSummary.self, forKey: .train)
        feasible = try c.decode(Bool.self, forKey: .feasible)
        pareto = try c.decode(Bool.self, forKey: .pareto)
        violation = try c.decodeIfPresent(Double.self, forKey: .violation) ?? 0
    }
}

/// The figures a tuning report shows of one replay: the objective, fresh@15m, each tunable metric
/// of ``Metric/table`` (JSON keys: their ``Metric/Tuning/summaryKey``) and the scored launches.
public struct ScoreSummary: Sendable, Codable, Hashable {
    /// The objective's metric.
    public var objective: Double
    public var fresh15: Double
    /// One value per entry of ``Metric/tunable``.
    public var figures: [Double]
    public var scoredLaunches: Int
    /// fresh@τ (the objective's τ, else the protocol's) minus the fixed baseline at this replay's
    /// own fetches per app per day on the same users and days (``FixedBaselineLine``); what
    /// `--maximize fresh@τ` ranks by (nil: not measured, or a run stored before it was).
    public var gainVsFixed: Double? = nil

    public init(objective: Double, fresh15: Double, figures: [Double], scoredLaunches: Int) {
        self.objective = objective
        self.fresh15 = fresh15
        self.figures = figures
        self.scoredLaunches = scoredLaunches
    }

    public init(
        objective: Double, fresh15: Double, energyJoulesPerDay: Double, batteryPercentPerDay: Double,
        cellularMBPerDay: Double, fetchesPerAppDay: Double, scoredLaunches: Int
    ) {
        self.init(
            objective: objective, fresh15: fresh15, figures: Metric.tunable.map { _ in 0 },
            scoredLaunches: scoredLaunches)
        self.energyJoulesPerDay = energyJoulesPerDay
        self.batteryPercentPerDay = batteryPercentPerDay
        self.cellularMBPerDay = cellularMBPerDay
        self.fetchesPerAppDay = fetchesPerAppDay
    }

    /// The value of a tunable metric (nil: not a tunable metric).
    public subscript(metric: Metric) -> Double? {
        get { Metric.tunable.firstIndex(of: metric).map { figures[$0] } }
        set {
            if let i = Metric.tunable.firstIndex(of: metric), let newValue { figures[i] = newValue }
        }
    }

    public var energyJoulesPerDay: Double {
        get { self[Metric.ID.energy.metric] ?? 0 }
        set { self[Metric.ID.energy.metric] = newValue }
    }
    public var batteryPercentPerDay: Double {
        get { self[Metric.ID.battery.metric] ?? 0 }
        set { self[Metric.ID.battery.metric] = newValue }
    }
    public var cellularMBPerDay: Double {
        get { self[Metric.ID.cellular.metric] ?? 0 }
        set { self[Metric.ID.cellular.metric] = newValue }
    }
    public var fetchesPerAppDay: Double {
        get { self[Metric.ID.fetchesPerAppDay.metric] ?? 0 }
        set { self[Metric.ID.fetchesPerAppDay.metric] = newValue }
    }

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ s: String) { stringValue = s }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(objective, forKey: Key("objective"))
        try c.encode(fresh15, forKey: Key("fresh_15m"))
        for (metric, value) in zip(Metric.tunable, figures) {
            try c.encode(value, forKey: Key(metric.tuning?.summaryKey ?? metric.key))
        }
        try c.encode(scoredLaunches, forKey: Key("scoredLaunches"))
        try c.encodeIfPresent(gainVsFixed, forKey: Key("gainVsFixed"))
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        objective = try c.decode(Double.self, forKey: Key("objective"))
        fresh15 = try c.decode(Double.self, forKey: Key("fresh_15m"))
        figures = try Metric.tunable.map { try c.decode(Double.self, forKey: Key($0.tuning?.summaryKey ?? $0.key)) }
        scoredLaunches = try c.decode(Int.self, forKey: Key("scoredLaunches"))
        gainVsFixed = try c.decodeIfPresent(Double.self, forKey: Key("gainVsFixed"))
    }

    /// The mean of every figure over `summaries` (one per fold), the scored launches summed.
    public static func mean(_ summaries: [ScoreSummary]) -> ScoreSummary {
        let n = Double(max(1, summaries.count))
        func mean(_ value: (ScoreSummary) -> Double) -> Double { summaries.reduce(0) { $0 + value($1) } / n }
        var out = ScoreSummary(
            objective: mean(\.objective), fresh15: mean(\.fresh15),
            figures: Metric.tunable.indices.map { i in mean { $0.figures[i] } },
            scoredLaunches: summaries.reduce(0) { $0 + $1.scoredLaunches })
        let gains = summaries.compactMap(\.gainVsFixed)
        if !summaries.isEmpty, gains.count == summaries.count { out.gainVsFixed = gains.reduce(0, +) / n }
        return out
    }
}
