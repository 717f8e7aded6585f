import FetchLabCore
import FetchLabPredict

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
            ("hit±\(TextFormat.fixed(r.options.hitToleranceMinutes, 0))", 7, true),
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
            lines.append("reliability of the \(blend.name)'s P(use within \(Int(r.options.calibrationMinutes)) min):")
            for b in blend.reliability {
                lines.append(
                    "  \(f(b.from, 1)) – \(f(b.to, 1))  \(pad(TextFormat.count(b.count), 8, true)) forecasts  "
                        + "predicted \(f(b.meanPredicted, 3))  observed \(f(b.observed, 3))")
            }
        }
        let tolerance = Int(r.options.hitToleranceMinutes)
        lines.append("")
        lines.append(
            "MAE/median: minutes between the forecast's median next use and the actual one (app used within "
                + "\(r.options.horizonMinutes / 60) h). hit±\(tolerance): planned uses with a launch within "
                + "\(tolerance) min; cover: launches within \(tolerance) min of a planned use.")
        return lines.joined(separator: "\n")
    }
}
