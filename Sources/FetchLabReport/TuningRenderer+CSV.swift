import FetchLabResults

extension TuningRenderer {
    /// The columns of `tune --format csv`, in order.
    public static let csvColumns = [
        "fold", "rank", "name", "values", "objective", "fresh_15m", "energy_j_per_day", "battery_pct_per_day",
        "cellular_mb_per_day", "fetches_per_app_day", "scored_launches", "feasible", "pareto", "chosen",
        "best_fixed", "test_objective", "test_fresh_15m", "test_energy_j_per_day", "test_battery_pct_per_day",
        "test_cellular_mb_per_day", "test_fetches_per_app_day", "test_scored_launches",
    ]

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
            cells += test.map(summary) ?? Array(repeating: "", count: 7)
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

    /// objective, fresh_15m, energy, battery, cellular, fetches/app/day, scored launches.
    static func summary(_ s: ScoreSummary) -> [String] {
        [
            s.objective, s.fresh15, s.energyJoulesPerDay, s.batteryPercentPerDay, s.cellularMBPerDay,
            s.fetchesPerAppDay,
        ].map { CompareRenderer.number($0) } + ["\(s.scoredLaunches)"]
    }
}
