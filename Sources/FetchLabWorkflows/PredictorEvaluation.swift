import FetchLabCore
import FetchLabPredict
import FetchLabResults
import FetchLabSimulation
import FetchLabSynth
import Foundation

/// `evaluate-predictors` without its options or output: the rolling-origin evaluation of every
/// predictor on a sample of users, and the learned family's model on held-out time.
public enum PredictorEvaluation {
    /// Evaluates up to `users` users of `batches` (0: all), evenly spread, scoring the recovered
    /// habit times against `truth` when given. `willEvaluate` is told how many users are about to
    /// be evaluated (the long part), once the histories are loaded and long enough.
    public static func run(
        _ options: EvaluationOptions, users: Int, truth: TruthPeaks?, batches: HistoryBatches,
        willEvaluate: (Int) -> Void = { _ in }
    ) throws -> EvaluationReport {
        let path = batches.queries.database.path
        let histories = try batches.sample(limit: users)
        guard !histories.isEmpty else {
            throw WorkflowError(.noData, "\(path): no launches to evaluate (import some usage logs first)")
        }
        let evaluator = Evaluator(options: options)
        if let shortfall = evaluator.shortfall(histories) {
            let hint = shortfall.suggestedWarmUpDays.map { "; a shorter --warm-up (at most \($0)) would help" }
            throw WorkflowError(.noData, "\(path): \(shortfall)" + (hint ?? "; import a longer log"))
        }
        willEvaluate(histories.count)
        var report = evaluator.evaluate(histories, truth: truth?.function(for: histories))
        report.learnedModel = LearnedModelEvaluation.evaluate(histories, heldOutStart: evaluator.heldOutStart)
        guard !report.scoredNothing else { throw WorkflowError(.noData, "\(path): no origins or launches were scored") }
        return report
    }
}

extension PredictorEvaluation {
    /// The routine times of a generator's truth file (`fetchlab generate`'s truth.json), to score
    /// the recovered habit times against. A ``WorkflowError`` when it cannot be read or is not one.
    public static func truth(at path: String) throws -> TruthPeaks {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw WorkflowError(.failed, "--truth: cannot read \(path)")
        }
        let file: TruthFile
        do { file = try JSONDecoder().decode(TruthFile.self, from: data) } catch {
            throw WorkflowError(.failed, "--truth: \(path) is not a fetchlab generate truth file")
        }
        guard let start = file.startDay else { throw WorkflowError(.failed, "--truth: bad start date in \(path)") }
        return TruthPeaks(
            startDay: start,
            users: file.users.map { u in (u.name, { day, weekend in u.routinePeaks(onDay: day, weekend: weekend) }) })
    }
}
