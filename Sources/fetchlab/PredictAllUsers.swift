import FetchLabCore
import FetchLabPredict
import FetchLabReport
import FetchLabStore
import FetchLabWorkflows
import Foundation

/// `predict` without `--user`: the blend (weights fitted on up to 40 users, its fetch
/// probabilities calibrated on their plans) learns each user's whole log and plans the day after it. Text: a summary; JSON: one report per line.
struct PredictAllUsers {
    var format: OutputFormat
    var request: PredictionRequest

    func run(_ queries: UsageQueries) throws {
        let clock = ContinuousClock()
        let started = clock.now
        let names = try queries.usersWithLaunches()
        guard !names.isEmpty else {
            throw CommandFailure("\(queries.database.path): no launches to predict from (import some usage logs first)")
        }
        let fitting = try HistoryBatches(queries: queries).sample(limit: EvenSample.fitUsers)
        let (template, request) = request.fitted(on: fitting)
        let fitted = clock.now - started
        var (apps, fetches, launches) = (0, 0, 0)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let showProgress = Terminal.stderrIsTerminal && format == .text
        // Learning and planning on all cores, a batch of users at a time. A user the blend cannot
        // predict for is counted and named in a warning, not dropped without a word.
        var unpredicted: [(user: String, reason: String)] = []
        let predict: @Sendable (UserHistory) -> Result<PredictionReport, PredictionError>? = { h in
            guard let origin = PredictionOrigin.resolve(nil, in: h) else { return nil }
            do throws(PredictionError) {
                return .success(try PredictionReport(history: h, origin: origin, blend: template, request: request))
            } catch {
                return .failure(error)
            }
        }
        let bar = ProgressBar(total: names.count, unit: "users", visible: showProgress)
        try HistoryBatches(queries: queries).map(names, progress: { done, _ in bar.update(done: done) }, work: predict)
        {
            h, result in
            guard let result else { return }
            let r: PredictionReport
            switch result {
            case .success(let report): r = report
            case .failure(let error):
                unpredicted.append((h.user.name, "\(error)"))
                return
            }
            launches += h.launches.count
            apps += r.apps.count
            fetches += r.apps.reduce(0) { $0 + $1.fetches.count }
            if format == .json { print(String(decoding: try encoder.encode(r), as: UTF8.self)) }
        }
        bar.finish()
        if let first = unpredicted.first {
            Terminal.warning(
                "no prediction for \(unpredicted.count) user\(unpredicted.count == 1 ? "" : "s") "
                    + "(\(first.user): \(first.reason))")
        }
        if format == .text {
            let seconds = { (d: Duration) in Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }
            print(
                PredictionRenderer.summary(
                    users: names.count, launches: launches, apps: apps, fetches: fetches, fittedOn: fitting.count,
                    fitSeconds: seconds(fitted), totalSeconds: seconds(clock.now - started)))
        }
    }
}
