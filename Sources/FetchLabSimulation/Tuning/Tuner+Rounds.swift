import FetchLabCore

extension Tuner {
    /// Settings per round when a grid or random search may be stopped by ``budgetSpent``: a row
    /// of the grid (every value of the last parameter, the others fixed), at least 2.
    var budgetRoundSize: Int { max(2, space.axes.last?.values.count ?? 1) }

    /// Scores `settings` (the baselines with the first round): in one round, or, with a budget,
    /// in rounds of ``budgetRoundSize`` until ``budgetSpent`` says stop; `settings` keeps those
    /// replayed. Returns whether the search was cut short. The scores do not depend on the rounds
    /// (each policy's metrics are its own), only which settings are tried.
    func scoreInRounds(
        _ settings: inout [SearchSpace.Setting], with scorer: inout Training, alongside baselines: [any FetchPolicy]
    ) throws -> Bool {
        guard let budgetSpent else {
            try scorer.score(try settings.map { try space.policy($0) }, alongside: baselines)
            return false
        }
        var start = 0
        while start < settings.count {
            if start > 0, budgetSpent() {
                settings.removeSubrange(start...)
                return true
            }
            let round = settings[start..<min(settings.count, start + budgetRoundSize)]
            try scorer.score(try round.map { try space.policy($0) }, alongside: start == 0 ? baselines : [])
            start += round.count
        }
        return false
    }
}

extension Tuner {
    /// The passes over all the users a run makes, estimated before it starts (for a progress
    /// bar): the population, each fold's search rounds and held-out measurement (a user split's
    /// folds counted as one: leave one user out replays each user once per fold, as many passes'
    /// worth as there are users).
    /// Exact for grid and random searches run to the end; a coordinate search is counted as one
    /// pass over the axes and a confirming one (it may take more or stop earlier), successive
    /// halving as its three rungs.
    public var estimatedPasses: Int {
        let rounds: Int
        switch method {
        case .grid, .random:
            let settings = method == .grid ? space.count : min(max(1, samples), space.count)
            rounds = budgetSpent == nil ? 1 : (settings + budgetRoundSize - 1) / budgetRoundSize
        case .coordinate:
            rounds = 1 + 2 * space.axes.count
        case .halving:
            rounds = 3
        }
        return 1 + estimatedFolds * (rounds + 1)
    }

    /// The folds a run makes, as ``estimatedPasses`` counts them: a user split's as one (leave
    /// one user out replays each user once per fold, one pass's worth in all).
    public var estimatedFolds: Int {
        switch split {
        case .users: return 1
        case .time(let trainUntil, let folds): return trainUntil == nil ? max(1, folds) : 1
        }
    }
}

extension Tuner {
    /// `users` with ``userReplayed`` called once per user fed (a pass that replays nothing).
    func counting(_ users: @escaping UserBatches) -> UserBatches {
        guard let userReplayed else { return users }
        return { body in
            try users { batch in
                body(batch)
                for _ in batch { userReplayed() }
            }
        }
    }
}
