import FetchLabCore

/// Replays policies over users' histories under one ``EvaluationProtocol`` and scores them.
public struct Simulator: Sendable {
    public var evaluation: EvaluationProtocol

    public init(evaluation: EvaluationProtocol = EvaluationProtocol()) { self.evaluation = evaluation }

    /// One policy's sums over one user's evaluated pairs (integers, and fetches/day summed in pair
    /// order, so that the totals do not depend on scheduling).
    struct Totals: Sendable {
        var pairs = 0
        var scored = 0
        var fresh: [Int]
        var fetchesPerDaySum = 0.0

        init(taus: Int) { fresh = [Int](repeating: 0, count: taus) }

        mutating func add(_ o: PairOutcome) {
            pairs += 1
            scored += o.scored
            for k in fresh.indices { fresh[k] += o.fresh[k] }
            fetchesPerDaySum += o.fetchesPerDay
        }

        mutating func add(_ t: Totals) {
            pairs += t.pairs
            scored += t.scored
            for k in fresh.indices { fresh[k] += t.fresh[k] }
            fetchesPerDaySum += t.fetchesPerDaySum
        }
    }

    struct UserResult: Sendable {
        var window: UserWindow?
        var totals: [Totals]
    }

    /// The outcomes of every policy on every evaluated pair of one user (policy-major).
    public func replay(_ history: UserHistory, policies: [any FetchPolicy]) -> [[PairOutcome]] {
        guard let window = evaluation.window(of: history) else { return policies.map { _ in [] } }
        return replay(history, window: window, policies: policies)
    }

    /// ``replay(_:policies:)`` within a window already computed; each pair's context is built once
    /// and shared by the policies.
    func replay(_ history: UserHistory, window: UserWindow, policies: [any FetchPolicy]) -> [[PairOutcome]] {
        var launchesByApp = [[Microseconds]](repeating: [], count: history.apps.count)
        for l in history.launches where Int(l.app) < launchesByApp.count { launchesByApp[Int(l.app)].append(l.time) }
        let pairs = evaluation.evaluatedApps(of: history).map { app in
            PairContext(
                history: history, app: app, launches: launchesByApp[Int(app)], window: window, evaluation: evaluation)
        }
        let taus = evaluation.reportedTaus
        return policies.map { policy in
            pairs.map { pair in
                Replay.run(
                    launches: pair.launches, fetches: policy.fetchTimes(for: pair), window: window, taus: taus,
                    launchRefreshes: evaluation.launchRefreshes)
            }
        }
    }

    /// Compares `policies` (the frontier's and the fixed intervals' reference policies are run too
    /// when missing, but only `policies` are reported, in their order). Users run in parallel; the
    /// result is the same whatever the scheduling.
    public func compare(_ histories: [UserHistory], policies: [any FetchPolicy]) -> ComparisonReport {
        var all = policies
        var names = Set(policies.map(\.name))
        for p in PolicyRegistry.defaults where names.insert(p.name).inserted { all.append(p) }
        let taus = evaluation.reportedTaus
        let evaluated = all
        let results = ParallelMap.map(histories) { history -> UserResult in
            let window = evaluation.window(of: history)
            let outcomes = window.map { replay(history, window: $0, policies: evaluated) } ?? evaluated.map { _ in [] }
            let totals = outcomes.map { pairs in
                var t = Totals(taus: taus.count)
                for o in pairs { t.add(o) }
                return t
            }
            return UserResult(window: window, totals: totals)
        }
        var totals = all.map { _ in Totals(taus: taus.count) }
        var users = 0
        var firstStart: (Microseconds, Int32)? = nil
        var lastEnd: (Microseconds, Int32)? = nil
        for r in results {
            guard let w = r.window, r.totals[0].pairs > 0 else { continue }
            users += 1
            if firstStart == nil || w.start < firstStart!.0 { firstStart = (w.start, w.offset) }
            if lastEnd == nil || w.end > lastEnd!.0 { lastEnd = (w.end, w.offset) }
            for i in all.indices { totals[i].add(r.totals[i]) }
        }
        let primary = taus.firstIndex(of: evaluation.primaryTau)!
        func point(_ t: Totals) -> (x: Double, y: Double) {
            (
                t.pairs > 0 ? t.fetchesPerDaySum / Double(t.pairs) : 0,
                t.scored > 0 ? Double(t.fresh[primary]) / Double(t.scored) : 0
            )
        }
        let byName = Dictionary(uniqueKeysWithValues: zip(all.map(\.name), totals))
        let frontierNames =
            ["never"] + PolicyRegistry.frontierBudgets.map { BudgetOraclePolicy(budget: $0).name } + ["oracle"]
        let frontier = Frontier(frontierNames.compactMap { byName[$0].map(point) })
        let baseNames = ["never"] + PolicyRegistry.fixedIntervals.map { FixedIntervalPolicy(interval: $0).name }
        let bases = baseNames.compactMap { byName[$0].map(point) }

        let scored = totals[0].scored
        let pairs = totals[0].pairs
        let rows = policies.enumerated().map { i, policy -> PolicyResult in
            let t = totals[i]
            let p = point(t)
            var gap: Double? = nil
            if !policy.isClairvoyant, let base = GapClosed.base(fetchesPerDay: p.x, candidates: bases) {
                gap = GapClosed.value(fresh: p.y, fetchesPerDay: p.x, base: base, frontier: frontier)
            }
            let fresh = taus.indices.map { t.scored > 0 ? Double(t.fresh[$0]) / Double(t.scored) : 0 }
            var metrics = PolicyMetrics(scoredLaunches: t.scored, fresh: fresh, fetchesPerAppDay: p.x, gapClosed: gap)
            metrics.freshKeys = taus.map { PolicyMetrics.freshKey(minutes: $0.inMinutes) }
            return PolicyResult(
                name: policy.name, family: policy.family, params: policy.parameters,
                metrics: metrics)
        }
        var settings = ComparisonSettings(
            tauMinutes: evaluation.primaryTau.inMinutes, tausMinutes: taus.map(\.inMinutes),
            launchRefreshes: evaluation.launchRefreshes, warmUpDays: evaluation.warmUpDays,
            minLaunches: evaluation.minLaunches, platform: "none", users: users, pairs: pairs, scoredLaunches: scored)
        if let (s, o) = firstStart, let (e, eo) = lastEnd {
            settings.firstScoredDay = CivilDate(daysSinceEpoch: LocalCalendar.day(s, offset: o)).description
            settings.lastScoredDay = CivilDate(daysSinceEpoch: LocalCalendar.day(e, offset: eo)).description
        }
        return ComparisonReport(settings: settings, policies: rows, frontier: frontier.points.map { [$0.x, $0.y] })
    }
}

extension CivilDate {
    fileprivate init(daysSinceEpoch d: Int) { self.init(daysSince1970: d) }
}
