import FetchLabCore
import FetchLabResults

extension Tuner {
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
    /// on a fold's test part; the fold's own training figures come from `scorer`. `policies` holds
    /// every setting tried and every baseline by name: each pick is one of them, replayed as the
    /// value that was scored, never parsed again from its name.
    /// - Returns: the fold, the chosen setting's fresh and scored launches per test user, and the
    /// units of its promise on the training and the test part.
    func measure(
        _ plan: FoldPlan, training scorer: inout Scorer, settings tried: [SearchSpace.Setting],
        policies: [String: any FetchPolicy], chosen: String, bestFixed: String?, users: @escaping UserBatches
    ) throws -> (TuningFold, [String: (fresh: Int, scored: Int)], (training: PromisePart, heldOut: PromisePart)) {
        func policy(_ name: String) throws(TuningError) -> any FetchPolicy {
            guard let policy = policies[name] else { throw TuningError("\(name) is not a setting this run tried") }
            return policy
        }
        let trainCut = plan.trainCut
        var rows: [TriedSetting] = try tried.map { s in
            let name = try space.name(s)
            return row(name: name, values: space.describe(s), metrics: scorer.metrics(name), never: scorer.never)
        }
        rows.sort { rank($0) > rank($1) }
        Self.markPareto(&rows)
        let chosenRow = row(name: chosen, values: "", metrics: scorer.metrics(chosen), never: scorer.never)
        // Per app and per group of users: the best tried setting on that part of the training data.
        let picks = groupPicks(scorer, names: rows.map(\.name))
        // Held out: the chosen setting, the best fixed interval and every group's pick, in one comparison.
        var held = Scorer(simulator: plan.test, users: users, include: plan.testUser)
        held.userReplayed = userReplayed
        held.keepsTallies = true
        held.tallyDays = true
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
        let chosenPolicy = try policy(chosen)
        // `never` on the same launches: the gain over the fixed baseline is read from it.
        var others: [any FetchPolicy] = [NeverPolicy()] + (try bestFixed.map { try [policy($0)] } ?? [])
        // This fold's own pick: what its training part alone would choose.
        let ownPick = rows.first(where: \.feasible)?.name
        if let ownPick, ownPick != chosen { others.append(try policy(ownPick)) }
        for pick in picks where pick.name != chosen { others.append(try policy(pick.name)) }
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
            for a in recommendation.assignments { parts[a.app] = try policy(a.setting) }
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
                bestFixedTest: bestFixed.flatMap { held.group(kind, group, of: $0) }.map { summary($0) },
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
            throw TuningError(
                "\(plan.label): the test part has no scored launch to measure on (fewer --folds or an earlier "
                    + "--train-until leaves it some)")
        }
        // The chosen setting's fresh and scored launches per test user, at the interval's τ.
        let tau = held.simulator.evaluation.reportedTaus.firstIndex(of: intervalTau) ?? 0
        var tally: [String: (fresh: Int, scored: Int)] = [:]
        for t in held.tallies[chosen] ?? [] where t.scored > 0 {
            tally[t.user] = (t.fresh.indices.contains(tau) ? t.fresh[tau] : 0, t.scored)
        }
        var fold = TuningFold(
            label: plan.label, tried: rows, chosen: chosen, bestFixed: bestFixed, chosenTrain: chosenRow.train,
            bestFixedTrain: bestFixed.map { summary(scorer.metrics($0), never: scorer.never) },
            chosenTest: summary(test, never: held.never),
            bestFixedTest: bestFixed.map { summary(held.metrics($0), never: held.never) }, replays: scorer.replays,
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
            fold.ownPickTest = summary(held.metrics(ownPick), never: held.never)
            fold.ownPickConstraintsOnTest = checks(held.metrics(ownPick))
        }
        fold.testInterval = HeldOutInterval.bootstrap(
            tally.keys.sorted().map { tally[$0]! }, tau: intervalTau, resamples: Self.bootstrapResamples,
            seed: Self.bootstrapSeed)
        let promiseParts = (
            training: try promiseTraining(plan, chosen: chosenPolicy, users: users),
            heldOut: PromisePart(held, chosen: chosen, tau: intervalTau)
        )
        fold.promise = promise(training: promiseParts.training, heldOut: promiseParts.heldOut)
        return (fold, tally, promiseParts)
    }
}
