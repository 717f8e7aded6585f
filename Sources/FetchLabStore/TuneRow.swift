import FetchLabCore
import FetchLabResults
import Foundation
import GRDB

/// A tuning result as the rows of the tuning tables, everything encoded before the write
/// transaction starts.
struct TuneRow {
    typealias Values = [(any DatabaseValueConvertible)?]

    var run: Values
    /// Per setting: fold, rank, name, parameters, params_json, ``TuneSchema/settingColumns``,
    /// feasible, pareto, chosen.
    var settings: [Values]

    init(_ result: TuningResult, platform: [PlatformOutcome], fetchlabVersion: String?, createdAt: Date) throws {
        let last = result.folds.last
        run =
            [
                ISO8601.utc(createdAt), fetchlabVersion, result.family, result.method, result.objective,
                result.constraints.isEmpty ? nil : result.constraints.joined(separator: ","),
                result.folds.map(\.label).joined(separator: "; "), result.folds.count, last?.chosen ?? "",
                last?.bestFixed,
            ] + Self.means(result.folds.map(\.chosenTest)) + Self.means(result.folds.compactMap(\.bestFixedTest))
            + [
                result.folds.reduce(0) { $0 + $1.chosenTest.scoredLaunches }, result.replays,
                try RunRow.json(result), try RunRow.json(platform),
            ]
        settings = []
        for (f, fold) in result.folds.enumerated() {
            for (r, t) in fold.tried.enumerated() {
                let head: Values = [f + 1, r + 1, t.name, t.values, try RunRow.json(Self.parameters(t.values))]
                settings.append(head + Self.values(t.train) + [t.feasible, t.pareto, t.name == fold.chosen])
            }
        }
    }

    /// `lead=10m threshold=0.3` as `["lead": "10m", "threshold": "0.3"]`.
    static func parameters(_ values: String) -> [String: String] {
        var out: [String: String] = [:]
        for pair in values.split(separator: " ") {
            let kv = pair.split(separator: "=", maxSplits: 1)
            if kv.count == 2 { out[String(kv[0])] = String(kv[1]) }
        }
        return out
    }

    /// The training figures of ``TuneSchema/settingColumns``.
    static func values(_ s: ScoreSummary) -> Values {
        [s.objective, s.fresh15] + s.figures.map { $0 } + [s.scoredLaunches]
    }

    /// The means of ``TuneSchema/heldOutColumns`` over `summaries` (nulls when there is none).
    static func means(_ summaries: [ScoreSummary]) -> Values {
        guard !summaries.isEmpty else { return TuneSchema.heldOutColumns.map { _ in nil } }
        func mean(_ value: (ScoreSummary) -> Double) -> Double {
            summaries.reduce(0) { $0 + value($1) } / Double(summaries.count)
        }
        return [mean(\.objective), mean(\.fresh15)] + Metric.tunable.indices.map { i in mean { $0.figures[i] } }
    }

    static let runColumns =
        [
            "created_at", "fetchlab_version", "family", "method", "objective", "constraints", "split", "folds",
            "chosen", "best_fixed",
        ] + TuneSchema.heldOut("test_") + TuneSchema.heldOut("best_fixed_test_") + [
            "test_scored_launches", "replays", "result_json", "platform_json",
        ]

    static let settingColumns =
        ["run_id", "fold", "rank", "name", "parameters", "params_json"] + TuneSchema.settingColumns.map(\.name) + [
            "feasible", "pareto", "chosen",
        ]

    /// Inserts the run and its settings (inside the caller's transaction); returns the run's id.
    func insert(_ db: Database) throws -> Int64 {
        try db.execute(sql: RunRow.insertSQL("tune_run", Self.runColumns), arguments: StatementArguments(run))
        let id = db.lastInsertedRowID
        let statement = try db.makeStatement(sql: RunRow.insertSQL("tune_setting", Self.settingColumns))
        for values in settings {
            try statement.execute(arguments: StatementArguments([id] + values))
        }
        return id
    }
}
