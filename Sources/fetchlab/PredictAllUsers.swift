import FetchLabCore
import FetchLabPredict
import FetchLabReport
import FetchLabStore
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
        let fitting = try HistoryLoader.histories(queries, limit: EvenSample.fitUsers)
        let (template, request) = request.fitted(on: fitting)
        let fitted = clock.now - started
        var (apps, fetches, launches) = (0, 0, 0)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let showProgress = Terminal.stderrIsTerminal && format == .text
        // Learning and planning on all cores, a batch of users at a time.
        try HistoryLoader.inBatches(queries, names, progress: showProgress) { h -> PredictionReport? in
            guard let origin = PredictionOrigin.resolve(nil, in: h) else { return nil }
            return try? PredictionReport(history: h, origin: origin, blend: template, request: request)
        } consume: { h, r in
            guard let r else { return }
            launches += h.launches.count
            apps += r.apps.count
            fetches += r.apps.reduce(0) { $0 + $1.fetches.count }
            if format == .json { print(String(decoding: try encoder.encode(r), as: UTF8.self)) }
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
