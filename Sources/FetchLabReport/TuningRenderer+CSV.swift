import FetchLabResults

extension TuningRenderer {
    /// The columns of `tune --format csv`, in order.
    public static let csvColumns =
        ["fold", "rank", "name", "values"] + summaryColumns + ["feasible", "pareto", "chosen", "best_fixed"]
        + summaryColumns.map { "test_" + $0 }

    /// A summary's columns: objective, fresh_15m, each of `Metric.tunable` (its key), scored_launches.
    static let summaryColumns = ["objective", "fresh_15m"] + Metric.tunable.map(\.key) + ["scored_launches"]

    /// `tune --format csv`: a header line, then per fold one row per setting tried in rank order
    /// (training figures, `true`/`false` flags), the held-out `test_` columns filled on the chosen
    /// row and the best fixed interval's row; the best fixed interval gets a row of its own, with
    /// no rank, when it was not among the settings tried. Numbers keep every digit; fields are
    /// quoted as RFC 4180 says (lines end with LF).
    public static func csv(_ r: TuningResult) -> String {
        var lines = [csvColumns.joined(separator: ",")]
        func row(
            fold: Int, rank: Int?, name: String, values: String, train: ScoreSummary, feasible: Bool, pareto: Bool?,
            in f: TuningFold
        ) -> String {
            let test = name == f.chosen ? f.chosenTest : name == f.bestFixed ? f.bestFixedTest : nil
            var cells = ["\(fold)", rank.map { "\($0)" } ?? "", name, values]
            cells += summary(train)
            cells += ["\(feasible)", pareto.map { "\($0)" } ?? "", "\(name == f.chosen)", "\(name == f.bestFixed)"]
            cells += test.map(summary) ?? Array(repeating: "", count: summaryColumns.count)
            return cells.map(CompareRenderer.csvField).joined(separator: ",")
        }
        for (i, f) in r.folds.enumerated() {
            for (k, t) in f.tried.enumerated() {
                lines.append(
                    row(
                        fold: i + 1, rank: k + 1, name: t.name, values: t.values, train: t.train, feasible: t.feasible,
                        pareto: t.pareto, in: f))
            }
            if let name = f.bestFixed, let train = f.bestFixedTrain, !f.tried.contains(where: { $0.name == name }) {
                lines.append(
                    row(
                        fold: i + 1, rank: nil, name: name, values: "", train: train, feasible: true, pareto: nil, in: f
                    ))
            }
        }
        return lines.joined(separator: "\n")
    }

    /// ``summaryColumns`` of `s`.
    static func summary(_ s: ScoreSummary) -> [String] {
        ([s.objective, s.fresh15] + s.figures).map { CompareRenderer.number($0) } + ["\(s.scoredLaunches)"]
    }
}
