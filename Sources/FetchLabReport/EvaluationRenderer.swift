import FetchLabCore
import FetchLabResults

/// `evaluate-predictors`' text output: the weights, a table of scores and the blend's reliability.
public enum EvaluationRenderer {
    public static func text(_ r: EvaluationReport) -> String {
        let f = TextFormat.fixed
        let pct = TextFormat.percent
        let pad = TextFormat.pad
        var lines: [String] = []
        lines.append(
            "\(TextFormat.counted(r.users, "user")), \(TextFormat.counted(r.launches, "launch")); scores on "
                + "\(TextFormat.counted(r.heldOutDays, "held-out user-day")) "
                + "(origins every \(r.options.originEveryHours) h, warm-up \(r.options.warmUpDays) d)")
        lines.append("blend weights (fitted on the first half): " + TextFormat.weights(r.blendWeights))
        lines.append("blend next-app weights: " + TextFormat.weights(r.nextAppWeights))
        lines.append("")
        let header = [
            ("predictor", 20, false), ("MAE min", 8, true), ("median", 7, true),
            ("hit±\(TextFormat.fixed(r.options.hitTolerance.inMinutes, 0))", 7, true),
            ("cover", 6, true), ("fetch/d", 8, true), ("Brier", 7, true), ("HR@1", 6, true), ("HR@5", 6, true),
            ("MRR", 6, true),
        ]
        let hasTruth = r.scores.contains { $0.truthPeaks > 0 }
        var head = header.map { pad($0.0, $0.1, $0.2) }.joined(separator: " ")
        if hasTruth { head += "  truth: found  median" }
        lines.append(head)
        for s in r.scores {
            var cells = [
                pad(s.name, 20, false), pad(f(s.meanAbsErrorMinutes, 1), 8, true),
                pad(f(s.medianAbsErrorMinutes, 1), 7, true), pad(pct(s.hitRate), 7, true),
                pad(pct(s.coverage), 6, true), pad(f(s.fetchesPerAppDay, 2), 8, true),
                pad(f(s.brier, 3), 7, true), pad(f(s.hr1, 3), 6, true),
                pad(f(s.hr5, 3), 6, true), pad(f(s.mrr, 3), 6, true),
            ].joined(separator: " ")
            if hasTruth {
                let found = s.truthPeaks > 0 ? Double(s.truthFound) / Double(s.truthPeaks) : nil
                cells += "  " + pad(pct(found), 12, true) + pad(f(s.truthMedianErrorMinutes, 1), 8, true)
            }
            lines.append(cells)
        }
        if let blend = r.scores.first, !blend.reliability.isEmpty {
            lines.append("")
            lines.append(
                "reliability of the \(blend.name)'s P(use within \(Int(r.options.calibrationWindow.inMinutes)) min):")
            for b in blend.reliability {
                lines.append(
                    "  \(f(b.from, 1)) – \(f(b.to, 1))  \(pad(TextFormat.count(b.count), 8, true)) forecasts  "
                        + "predicted \(f(b.meanPredicted, 3))  observed \(f(b.observed, 3))")
            }
        }
        lines += plannedFetchLines(r)
        lines += learnedModelLines(r)
        let tolerance = Int(r.options.hitTolerance.inMinutes)
        lines.append("")
        lines.append(
            "MAE/median: minutes between the forecast's median next use and the actual one (app used within "
                + "\(r.options.horizonGridMinutes / 60) h). hit±\(tolerance): planned uses with a launch within "
                + "\(tolerance) min; cover: launches within \(tolerance) min of a planned use.")
        return lines.joined(separator: "\n")
    }

    /// The learned family's model: its own question's Brier score against the base rate's, its
    /// ranking of the next launch that needs a fetch, and its reliability bins.
    static func learnedModelLines(_ r: EvaluationReport) -> [String] {
        guard let m = r.learnedModel, m.questions > 0 else { return [] }
        let f = TextFormat.fixed
        let tau = TextFormat.decimal(m.tau.inMinutes)
        var lines = [
            "",
            "learned model (learned(B)'s, asked at every moment a policy may act), on held-out time:",
            "  P(launch of the app within \(tau) min): \(TextFormat.counted(m.questions, "question")), "
                + "Brier \(f(m.brier, 3)) (stating the base rate: \(f(m.baseRateBrier, 3)))",
            "  the next launch that needs a fetch, ranked at the launch of another app before it: "
                + "\(TextFormat.counted(m.rankedLaunches, "launch")), HR@1 \(f(m.hr1, 3)), HR@5 \(f(m.hr5, 3)), "
                + "MRR \(f(m.mrr, 3))",
            "  reliability:",
        ]
        for b in m.reliability.bins where b.count > 0 {
            lines.append(
                "    \(f(b.lower, 1)) – \(f(b.upper, 1))  \(TextFormat.pad(TextFormat.count(b.count), 9, right: true)) "
                    + "questions  stated \(f(b.meanStated, 3))  observed \(f(b.observed, 3))"
                    + (b.tooSmall ? "" : b.beyondChance ? "  beyond chance" : "  within chance (±\(f(b.chanceGap, 3)))")
            )
        }
        return lines
    }

    /// The planned fetches' calibration: a row per predictor that planned any, then the bins of
    /// the blend's and of the best-covering other predictor's calibrated p.
    static func plannedFetchLines(_ r: EvaluationReport) -> [String] {
        let f = TextFormat.fixed
        let planners = r.scores.filter { ($0.plannedFetches?.calibrated.count ?? 0) > 0 }
        guard let first = planners.first?.plannedFetches else { return [] }
        let gap = { (t: ReliabilityTable) in f(t.maxGap, 3) }
        var lines = [
            "",
            "planned fetches' p = P(launch within \(TextFormat.decimal(r.options.planner.freshness.inMinutes)) min "
                + "after the fetch), calibrated on the first half, held-out (max |gap| over bins of "
                + "≥ \(first.calibrated.minimumCount)):",
            [
                TextFormat.pad("predictor", 20), TextFormat.pad("fetches", 8, right: true),
                TextFormat.pad("score", 7, right: true),
                TextFormat.pad("p", 7, right: true), TextFormat.pad("observed", 9, right: true),
                TextFormat.pad("gap raw", 8, right: true),
                TextFormat.pad("gap p", 7, right: true),
            ].joined(separator: " "),
        ]
        func mean(_ t: ReliabilityTable, _ value: (ReliabilityTable.Bin) -> Double?) -> Double? {
            t.count > 0 ? t.bins.reduce(0) { $0 + (value($1) ?? 0) * Double($1.count) } / Double(t.count) : nil
        }
        for s in planners {
            guard let c = s.plannedFetches else { continue }
            lines.append(
                [
                    TextFormat.pad(s.name, 20), TextFormat.pad(TextFormat.count(c.calibrated.count), 8, right: true),
                    TextFormat.pad(f(mean(c.raw, \.meanStated), 3), 7, right: true),
                    TextFormat.pad(f(mean(c.calibrated, \.meanStated), 3), 7, right: true),
                    TextFormat.pad(f(mean(c.calibrated, \.observed), 3), 9, right: true),
                    TextFormat.pad(gap(c.raw), 8, right: true),
                    TextFormat.pad(gap(c.calibrated), 7, right: true),
                ].joined(separator: " "))
        }
        let best = planners.dropFirst().max { ($0.coverage ?? 0) < ($1.coverage ?? 0) }
        for s in [planners.first, best].compactMap({ $0 }) {
            guard let table = s.plannedFetches?.calibrated else { continue }
            lines.append("calibrated p of the \(s.name)'s fetches:")
            for b in table.bins where b.count > 0 {
                let judged = b.tooSmall ? "(too few to judge)" : "gap \(f(b.gap, 3))"
                lines.append(
                    "  \(f(b.lower, 1)) – \(f(b.upper, 1))  \(TextFormat.pad(TextFormat.count(b.count), 8, right: true)) fetches  "
                        + "stated \(f(b.meanStated, 3))  observed \(f(b.observed, 3))  \(judged)")
            }
        }
        return lines
    }
}
