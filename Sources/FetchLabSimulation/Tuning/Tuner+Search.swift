extension Tuner {
    /// Coordinate descent with a line search: from the grid's middle, for one parameter at a time,
    /// the two neighbouring values are replayed; when one ranks higher the search walks on in its
    /// direction, one value a round, while each step ranks higher still. Passes over the
    /// parameters repeat until one changes nothing. A setting is replayed at most once (the
    /// scorer's cache), so a second pass mostly re-reads what the first replayed.
    /// - Returns: the settings tried, in the order they were first replayed.
    func coordinateDescent(_ scorer: inout Scorer, label: String, cutShort: inout Bool) throws -> [SearchSpace.Setting]
    {
        var current = space.middle
        var tried = [current]
        try scorer.score([try space.policy(current)], alongside: Self.fixedBaselines)
        func replay(_ settings: [SearchSpace.Setting], _ what: String) throws {
            if budgetSpent?() == true { throw BudgetSpent() }
            progress?("\(label): \(what): \(settings.count) settings")
            try scorer.score(try settings.map { try space.policy($0) })
            for s in settings where !tried.contains(s) { tried.append(s) }
        }
        func ranked(_ s: SearchSpace.Setting) throws -> Rank {
            let name = try space.name(s)
            return rank(scorer.metrics(name), name: name)
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
