import FetchLabCore
import FetchLabResults
import Foundation

extension Tuner {
    /// One part's bootstrap units of the chosen setting (its fresh launches and `never`'s, at the
    /// interval's τ), per user and per day of each user, keyed so that the parts of several folds
    /// pool (a user's, or a user-day's, counts summed), and the setting's fetches per app per day there.
    struct PromisePart {
        var byUser: [String: PromiseFigures.Unit] = [:]
        var byDay: [String: PromiseFigures.Unit] = [:]
        var fetchesPerAppDay: Double

        /// The units of `chosen` in `scorer` (which kept tallies, with days, of it and of `never`).
        init(_ scorer: Scorer, chosen: String, tau: Microseconds) {
            fetchesPerAppDay = scorer.metrics(chosen).fetchesPerAppDay
            let k = scorer.simulator.evaluation.reportedTaus.firstIndex(of: tau) ?? 0
            let setting = scorer.tallies[chosen] ?? []
            let never = scorer.tallies[Tuner.neverName] ?? []
            func at(_ fresh: [Int]) -> Int { fresh.indices.contains(k) ? fresh[k] : 0 }
            for (u, n) in zip(setting, never) where u.scored > 0 {
                byUser[u.user, default: .init(scored: 0, fresh: 0, never: 0)].add(
                    .init(scored: u.scored, fresh: at(u.fresh), never: at(n.fresh)))
                for (d, e) in zip(u.days, n.days) where d.scored > 0 {
                    byDay["\(u.user)\u{1F}\(d.day)", default: .init(scored: 0, fresh: 0, never: 0)].add(
                        .init(scored: d.scored, fresh: at(d.fresh), never: at(e.fresh)))
                }
            }
        }

        /// The parts of several folds pooled; the budget is the mean of theirs.
        init(pooling parts: [PromisePart]) {
            fetchesPerAppDay = parts.reduce(0) { $0 + $1.fetchesPerAppDay } / Double(max(1, parts.count))
            for p in parts {
                for (key, unit) in p.byUser { byUser[key, default: .init(scored: 0, fresh: 0, never: 0)].add(unit) }
                for (key, unit) in p.byDay { byDay[key, default: .init(scored: 0, fresh: 0, never: 0)].add(unit) }
            }
        }

        /// The figures with their intervals, over users or over days.
        func figures(overDays: Bool, tau: Microseconds) -> PromiseFigures? {
            let units = overDays ? byDay : byUser
            return PromiseFigures.bootstrap(
                units.keys.sorted().map { units[$0]! }, users: byUser.count, fetchesPerAppDay: fetchesPerAppDay,
                tau: tau, resamples: Tuner.bootstrapResamples, seed: Tuner.bootstrapSeed)
        }
    }

    /// The promise of a training part and a held-out part: over days when either holds fewer
    /// than ``TuningPromise/fewUsers`` users (nil: nothing scored on one of them).
    func promise(training: PromisePart, heldOut: PromisePart) -> TuningPromise? {
        let overDays = min(training.byUser.count, heldOut.byUser.count) < TuningPromise.fewUsers
        guard let train = training.figures(overDays: overDays, tau: intervalTau),
            let test = heldOut.figures(overDays: overDays, tau: intervalTau)
        else { return nil }
        return TuningPromise(
            training: train, heldOut: test, intervalOver: overDays ? .days : .users, tau: intervalTau,
            resamples: Self.bootstrapResamples, seed: Self.bootstrapSeed)
    }

    /// The chosen setting and `never` replayed on a fold's training part, each user's (and each
    /// day's) figures kept: the training side of the fold's promise.
    func promiseTraining(_ plan: FoldPlan, chosen: any FetchPolicy, users: @escaping UserBatches) throws -> PromisePart
    {
        var part = Scorer(simulator: plan.train, users: users, include: plan.trainUser)
        part.cut = plan.trainCut
        part.userReplayed = userReplayed
        part.keepsTallies = true
        part.tallyDays = true
        try part.score([chosen], alongside: [NeverPolicy()])
        return PromisePart(part, chosen: chosen.name, tau: intervalTau)
    }

    /// One line per broken promise: the held-out gain outside the training interval; a fold's own
    /// pick (or the chosen setting, when it differs) that broke a constraint on its held-out part.
    func promiseWarnings(_ folds: [TuningFold], promise: TuningPromise?, chosen: String) -> [String] {
        var out: [String] = []
        if let p = promise, p.heldOutGainWithinTraining == false, let ci = p.training.gainCI {
            out.append(
                "the held-out gain over fixed of \(chosen), \(Self.points(p.heldOut.gainVsFixed)) points, is outside its "
                    + "training interval [\(Self.points(ci[0])), \(Self.points(ci[1]))]: the promise did not hold on "
                    + "held-out data")
        }
        for (i, fold) in folds.enumerated() {
            let whose = folds.count > 1 ? "fold \(i + 1)'s own pick" : "the pick"
            let part = folds.count > 1 ? "its held-out part" : "the held-out part"
            if let pick = fold.ownPick {
                for (c, bound) in zip(fold.ownPickConstraintsOnTest ?? [], constraints) where !c.held {
                    out.append(
                        "\(whose) \(pick) broke \(c.constraint) on \(part) (\(Self.valueText(c.value, bound.metric)))")
                }
            }
            guard fold.ownPick != fold.chosen else { continue }
            for (c, bound) in zip(fold.constraintsOnTest ?? [], constraints) where !c.held {
                out.append(
                    "the chosen setting \(fold.chosen) broke \(c.constraint) on "
                        + "\(folds.count > 1 ? "fold \(i + 1)'s held-out part" : "the held-out part") "
                        + "(\(Self.valueText(c.value, bound.metric)))")
            }
        }
        return out
    }

    /// `+6.1` (points, signed, one decimal).
    static func points(_ x: Double) -> String {
        let rounded = (x * 1_000).rounded() / 10
        return (rounded >= 0 ? "+" : "") + String(format: "%.1f", rounded == 0 ? 0 : rounded)
    }

    /// A constraint's value as its metric reads: `2.6 fetches/app/day`, `31.0 J/day`, `38.2 %`.
    static func valueText(_ value: Double?, _ metric: TuningMetric) -> String {
        value.map(metric.text) ?? "not measured"
    }
}

extension PromiseFigures.Unit {
    mutating func add(_ other: Self) {
        scored += other.scored
        fresh += other.fresh
        never += other.never
    }
}
