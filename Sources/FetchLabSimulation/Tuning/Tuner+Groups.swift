import FetchLabCore
import FetchLabResults
import Foundation

extension Tuner {
    /// The local midnight after `cut` on the user's clock (nil: no cut, or no launch).
    static func end(of h: UserHistory, at cut: CivilDate?) -> Instant? {
        guard let cut, let offset = h.launches.first?.offset else { return nil }
        return LocalCalendar.midnight(of: cut.daysSince1970 + 1, offset: offset)
    }

    /// A user's history cut at the local midnight after `cut` (nil: whole).
    static func cut(_ h: UserHistory, at cut: CivilDate?) -> UserHistory {
        end(of: h, at: cut).map { h.before($0) } ?? h
    }

    /// Launches per day of each included user (from the first to the last launch, at least a day),
    /// on the history cut at `cut`.
    static func activity(_ users: UserBatches, include: @escaping (UserID) -> Bool, cut: CivilDate?) throws
        -> [String: Double]
    {
        var out: [String: Double] = [:]
        try users { batch in
            for h in batch where include(h.user) {
                // The launches `cut(_:at:)` keeps, without copying the history.
                var launches = h.launches[...]
                if let end = end(of: h, at: cut) { launches = launches.prefix { $0.time < end } }
                guard let first = launches.first?.time, let last = launches.last?.time else { continue }
                out[h.user.name] = Double(launches.count) / max(1, (last - first).inDays)
            }
        }
        return out
    }

    /// The launches per day at the first and second tercile (nil: fewer than 6 users, or no spread).
    static func tercileThresholds(_ values: [Double]) -> (Double, Double)? {
        guard values.count >= 6 else { return nil }
        let sorted = values.sorted()
        let low = sorted[sorted.count / 3]
        let high = sorted[2 * sorted.count / 3]
        guard low < high else { return nil }
        return (low, high)
    }

    /// The group of a user with `perDay` launches a day.
    static func activityGroup(_ perDay: Double, _ t: (Double, Double)) -> String {
        let a = String(format: "%.1f", t.0)
        let b = String(format: "%.1f", t.1)
        if perDay < t.0 { return "light users (< \(a) launches/day)" }
        if perDay < t.1 { return "moderate users (\(a) to \(b) launches/day)" }
        return "heavy users (≥ \(b) launches/day)"
    }

    /// A group of users' pick on the training data.
    struct GroupPick {
        var group: String
        var name: String
        var train: PolicyMetrics
    }

    /// For every group of users, the best of the settings tried (`names`) on that group (its own
    /// figures against the constraints; feasible first, then the objective, earlier names first on ties).
    func groupPicks(_ scorer: Scorer, names: [String]) -> [GroupPick] {
        guard let first = names.first, let sample = scorer.cache[first] else { return [] }
        let groups = (sample.perGroup ?? []).filter { $0.metrics.scoredLaunches > 0 }.map(\.name)
        return groups.compactMap { group in
            var best: (Rank, String, PolicyMetrics)? = nil
            for name in names {
                guard let m = scorer.group(.users, group, of: name) else { continue }
                let r = rank(m, name: name, never: scorer.group(.users, group, of: Tuner.neverName))
                if best == nil || r > best!.0 { best = (r, name, m) }
            }
            return best.map { GroupPick(group: group, name: $0.1, train: $0.2) }
        }
    }
}

extension Tuner {
    /// One app's share of a metric in the whole: fresh rates weighted by scored launches; a metric
    /// of the table as it aggregates (`Metric.Aggregation`): per user per day by the app's pairs
    /// over the users, a mean over pairs (fetches per app per day) by its pairs over all pairs.
    static func contribution(
        _ metric: TuningMetric, _ m: PolicyMetrics, pairs: Double, users: Double, allPairs: Double, allScored: Double
    ) -> Double {
        switch metric {
        case .fresh: (metric.value(in: m) ?? 0) * Double(m.scoredLaunches) / max(allScored, 1)
        case .metric(let x):
            switch x.aggregation {
            case .perUserDay: (m[x] ?? 0) * pairs / max(users, 1)
            case .sum: m[x] ?? 0
            case .meanOverPairs, .ratio, .quantile, .overall: (m[x] ?? 0) * pairs / max(allPairs, 1)
            }
        }
    }

    /// Chooses a setting per app among `names` (the settings tried) so that the whole ranks best:
    /// each app's figures are added up into the whole's (``contribution(_:_:pairs:users:allPairs:allScored:)``),
    /// and a Lagrangian sweep trades the objective against the constraints (each app takes the
    /// setting maximising its objective share minus λ times its constraint shares, for λ from 0 up
    /// over a log scale); the best combination found, feasible first, is kept. The overall choice
    /// for every app is always a candidate. Nil when no app can differ.
    func allocate(
        _ scorer: Scorer, names: [String], global: String, constraints: [TuningConstraint]
    ) -> PerAppRecommendation? {
        guard let base = scorer.cache[global] else { return nil }
        let metrics = Shares.metrics(objective, constraints)
        let apps = base.perApp
        let users = Double(scorer.usersReplayed)
        let allPairs = Double(apps.reduce(0) { $0 + ($1.pairs ?? 0) })
        let allScored = Double(apps.reduce(0) { $0 + $1.metrics.scoredLaunches })
        // Per app, per option: the shares of every metric.
        struct Option {
            var name: String
            var shares: Shares
        }
        var options: [[Option]] = []
        var free = false
        for app in apps {
            let candidates = app.metrics.scoredLaunches >= minGroupLaunches ? names : [global]
            if candidates.count > 1 { free = true }
            options.append(
                candidates.compactMap { name in
                    guard let m = scorer.group(.app, app.name, of: name) else { return nil }
                    let shares = metrics.map {
                        Self.contribution(
                            $0, m, pairs: Double(app.pairs ?? 0), users: users, allPairs: allPairs, allScored: allScored
                        )
                    }
                    return Option(name: name, shares: Shares(values: shares, constraints: constraints.count))
                })
        }
        guard free else { return nil }
        func whole(_ picks: [Int]) -> Shares {
            var sum = Shares(values: [Double](repeating: 0, count: metrics.count), constraints: constraints.count)
            for (a, p) in picks.enumerated() { sum.add(options[a][p].shares) }
            return sum
        }
        func ranked(_ sum: Shares) -> (Bool, Double) {
            let feasible = constraints.enumerated().allSatisfy { $0.element.holds(sum.constraint($0.offset)) }
            let violation = constraints.enumerated().reduce(0) { $0 + $1.element.violation(sum.constraint($1.offset)) }
            return (feasible, feasible ? objective.score(sum.objective) : -violation)
        }
        func better(_ a: (Bool, Double), _ b: (Bool, Double)) -> Bool {
            a.0 != b.0 ? a.0 : a.1 > b.1 + 1e-12
        }
        var bestPicks = options.map { o in o.firstIndex { $0.name == global } ?? 0 }
        var best = ranked(whole(bestPicks))
        let lambdas = [0.0] + (-32...32).map { pow10(Double($0) / 8) }
        for lambda in lambdas {
            let picks = options.map { app -> Int in
                var pick = 0
                var value = -Double.infinity
                for (i, o) in app.enumerated() {
                    var v = objective.score(o.shares.objective)
                    for (j, c) in constraints.enumerated() {
                        let share = o.shares.constraint(j) / max(abs(c.bound), 1e-9)
                        v -= lambda * (c.atMost ? share : -share)
                    }
                    if v > value + 1e-15 {
                        value = v
                        pick = i
                    }
                }
                return pick
            }
            let r = ranked(whole(picks))
            if better(r, best) {
                best = r
                bestPicks = picks
            }
        }
        // Collinear trade-offs (fixed intervals: freshness and fetches both ∝ 1/T) leave the
        // sweep only the ends, so a greedy climb also runs: from each app's cheapest setting, the
        // upgrade with the most objective per unit of constraint share that keeps the whole feasible.
        func penalty(_ o: Option) -> Double {
            constraints.enumerated().reduce(0) { sum, c in
                let share = o.shares.constraint(c.offset) / max(abs(c.element.bound), 1e-9)
                return sum + (c.element.atMost ? share : -share)
            }
        }
        var climb = options.map { app in
            app.indices.min {
                penalty(app[$0]) != penalty(app[$1])
                    ? penalty(app[$0]) < penalty(app[$1])
                    : objective.score(app[$0].shares.objective) > objective.score(app[$1].shares.objective)
            } ?? 0
        }
        while true {
            var step: (app: Int, option: Int, ratio: Double, gain: Double)? = nil
            for (a, app) in options.enumerated() {
                let current = app[climb[a]]
                for (i, o) in app.enumerated() {
                    let gain = objective.score(o.shares.objective) - objective.score(current.shares.objective)
                    guard gain > 1e-15 else { continue }
                    var trial = climb
                    trial[a] = i
                    guard ranked(whole(trial)).0 || constraints.isEmpty else { continue }
                    let cost = penalty(o) - penalty(current)
                    let ratio = cost <= 0 ? Double.infinity : gain / cost
                    if step == nil || ratio > step!.ratio || (ratio == step!.ratio && gain > step!.gain) {
                        step = (a, i, ratio, gain)
                    }
                }
            }
            guard let step else { break }
            climb[step.app] = step.option
        }
        if better(ranked(whole(climb)), best) {
            best = ranked(whole(climb))
            bestPicks = climb
        }
        let sum = whole(bestPicks)
        let estimate = ScoreSummary(
            objective: sum.objective, fresh15: sum.fresh15, figures: sum.figures, scoredLaunches: Int(allScored))
        let assignments = zip(apps, bestPicks).enumerated().map { a, pair in
            PerAppRecommendation.Assignment(app: pair.0.name, setting: options[a][pair.1].name)
        }
        guard assignments.contains(where: { $0.setting != global }) else { return nil }
        return PerAppRecommendation(
            assignments: assignments, policy: "", trainEstimate: estimate, train: estimate, feasibleOnTrain: best.0,
            test: estimate)
    }
}

/// An app's (or the whole's) shares of the metrics the allocation weighs, in the order of
/// ``metrics(_:_:)``: the objective, each constraint, fresh@15m, then every tunable metric (the
/// figures of a ``ScoreSummary``). Added up over the apps' picks as one vector.
private struct Shares {
    var values: [Double]
    /// How many constraints there are.
    let constraints: Int

    init(values: [Double], constraints: Int) {
        self.values = values
        self.constraints = constraints
    }

    /// The metrics, in the order of ``values``.
    static func metrics(_ objective: Objective, _ constraints: [TuningConstraint]) -> [TuningMetric] {
        [objective.metric] + constraints.map(\.metric) + [.fresh(.minutes(15))] + Metric.tunable.map { .metric($0) }
    }

    var objective: Double { values[0] }
    /// Constraint `j`'s metric.
    func constraint(_ j: Int) -> Double { values[1 + j] }
    var fresh15: Double { values[1 + constraints] }
    /// One per entry of `Metric.tunable`.
    var figures: [Double] { Array(values[(2 + constraints)...]) }

    mutating func add(_ other: Shares) {
        for i in values.indices { values[i] += other.values[i] }
    }
}

/// 10^x.
private func pow10(_ x: Double) -> Double { exp(x * log(10)) }
