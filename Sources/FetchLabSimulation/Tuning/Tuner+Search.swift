import FetchLabCore

extension Tuner {
    /// Coordinate descent with a line search: from the grid's middle, for one parameter at a time,
    /// the two neighbouring values are replayed; when one ranks higher the search walks on in its
    /// direction, one value a round, while each step ranks higher still. Passes over the
    /// parameters repeat until one changes nothing. A setting is replayed at most once (the
    /// scorer's cache), so a second pass mostly re-reads what the first replayed.
    /// - Returns: the settings tried, in the order they were first replayed.
    func coordinateDescent(_ scorer: inout Training, label: String, cutShort: inout Bool) throws
        -> [SearchSpace.Setting]
    {
        var current = space.middle
        var tried = [current]
        try scorer.score([try space.policy(current)], alongside: Self.searchBaselines)
        func replay(_ settings: [SearchSpace.Setting], _ what: String) throws {
            if budgetSpent?() == true { throw BudgetSpent() }
            progress?("\(label): \(what): \(settings.count) settings")
            try scorer.score(try settings.map { try space.policy($0) })
            for s in settings where !tried.contains(s) { tried.append(s) }
        }
        func ranked(_ s: SearchSpace.Setting) throws -> Rank {
            let name = try space.name(s)
            return rank(scorer.metrics(name), name: name, never: scorer.nevers)
        }
        var improved = true
        var passes = 0
        // Stopped by the time budget before a round: what was tried so far stands.
        func search() throws {
            while improved && passes < 100 {
                improved = false
                passes += 1
                for a in space.axes.indices where space.axes[a].values.count > 1 {
                    let axis = space.axes[a]
                    func moved(_ s: SearchSpace.Setting, to v: Int) -> SearchSpace.Setting? {
                        guard axis.values.indices.contains(v) else { return nil }
                        var out = s
                        out[a] = v
                        return out
                    }
                    let neighbours = [current[a] - 1, current[a] + 1].compactMap { moved(current, to: $0) }
                    try replay(neighbours, "pass \(passes), \(axis.name) around \(axis.values[current[a]])")
                    var best = current
                    for s in neighbours where try ranked(s) > ranked(best) { best = s }
                    guard best != current else { continue }
                    let step = best[a] - current[a]
                    current = best
                    improved = true
                    while let next = moved(current, to: current[a] + step) {
                        try replay([next], "pass \(passes), \(axis.name) on to \(axis.values[next[a]])")
                        guard try ranked(next) > ranked(current) else { break }
                        current = next
                    }
                }
            }
        }
        do { try search() } catch is BudgetSpent { cutShort = true }
        return tried
    }
}

/// Thrown inside a search when ``Tuner/budgetSpent`` says stop.
private struct BudgetSpent: Error {}

extension Tuner {
    /// The platform settings are replayed on at most this many held-out users: a sample of 1 in
    /// ``platformSampleEvery(heldOutUsers:)`` by ``inRung(_:every:)`` on a larger population
    /// (their figures are estimates of the whole's; the sample keeps their cost flat).
    public static let platformSampleUsers = 1_000

    /// 1 in how many held-out users the platform settings are replayed on (1: all).
    public static func platformSampleEvery(heldOutUsers: Int) -> Int {
        max(1, (heldOutUsers + platformSampleUsers - 1) / platformSampleUsers)
    }

    /// The users a rung of successive halving keeps: 1 in `every` by a stable hash of the name
    /// (rungs nest: a user kept 1 in 16 is kept 1 in 4).
    public static func inRung(_ user: String, every: Int) -> Bool {
        var h: UInt64 = 0x84222325_cbf29ce4
        for b in user.utf8 {
            h ^= UInt64(b)
            h = h &* 0x100_0000_01b3
        }
        // SplitMix64's finaliser: FNV-1a alone leaves similar names (user1, user2…) in few buckets.
        h = (h ^ (h >> 30)) &* 0xbf58_476d_1ce4_e5b9
        h = (h ^ (h >> 27)) &* 0x94d0_49bb_1331_11eb
        h ^= h >> 31
        return h % UInt64(every) == 0
    }

    /// Successive halving over users: every setting is replayed on 1 user in 16, the best quarter
    /// of them (feasible first, then the objective; over folds, their means) on 1 user in 4, and
    /// the best quarter of those (at least two) on every training user; a rung whose users would be
    /// fewer than ``minRungUsers`` is left out. The cost is counted in replays of all training users
    /// (a setting on a quarter of them costs a quarter) of one fold. When ``budgetSpent`` says stop
    /// after a rung, the rungs left are skipped and only the two best so far are replayed on all
    /// training users (`cutShort`).
    /// - Returns: the settings replayed on all training users, and the cost.
    func successiveHalving(
        _ scorer: inout Training, label: String, users: @escaping UserBatches, plans: [FoldPlan],
        cutShort: inout Bool
    ) throws -> (finalists: [SearchSpace.Setting], cost: Double) {
        // The users who train in some fold (all of them but in a one-fold user split).
        var names: [String] = []
        try users { batch in
            for h in batch where plans.contains(where: { $0.trainUser(h.user) }) { names.append(h.user.name) }
        }
        let total = max(1, names.count)
        var candidates = space.settings
        var cost = 0.0
        var screenedOnce = false
        for every in [16, 4] {
            let kept = names.filter { Self.inRung($0, every: every) }.count
            guard kept >= minRungUsers, candidates.count > 2 else { continue }
            if screenedOnce, let budgetSpent, budgetSpent() {
                candidates = Array(candidates.prefix(2))
                cutShort = true
                break
            }
            screenedOnce = true
            var rung = Training(
                parts: scorer.parts.map { part in
                    var rung = Scorer(
                        simulator: part.simulator, users: users,
                        include: { part.include($0) && Self.inRung($0.name, every: every) })
                    rung.cut = part.cut
                    rung.userReplayed = part.userReplayed
                    return rung
                })
            progress?("\(label): \(candidates.count) settings on 1 user in \(every) (\(kept) users)")
            try rung.score(try candidates.map { try space.policy($0) }, alongside: [NeverPolicy()])
            cost += Double(candidates.count) * Double(kept) / Double(total)
            let ranked = try candidates.map { s -> (Rank, SearchSpace.Setting) in
                let name = try space.name(s)
                return (rank(rung.metrics(name), name: name, never: rung.nevers), s)
            }.sorted { $0.0 > $1.0 }
            candidates = ranked.prefix(max(2, (candidates.count + 3) / 4)).map(\.1)
        }
        progress?("\(label): \(candidates.count) settings on all \(names.count) training users")
        try scorer.score(try candidates.map { try space.policy($0) }, alongside: Self.searchBaselines)
        cost += Double(candidates.count)
        return (candidates, cost)
    }
}
