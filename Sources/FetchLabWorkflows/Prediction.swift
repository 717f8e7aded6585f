import FetchLabCore
import FetchLabPredict
import FetchLabResults
import FetchLabSimulation

/// `predict` for one user: the blend fitted on a sample of users' histories before the origin,
/// the user's next uses and fetch plans, and what each planned fetch is expected to meet.
public enum Prediction {
    /// A prediction made, and a warning when the user's history ends long before the origin.
    public struct Outcome: Sendable {
        public var report: PredictionReport
        public var warning: String?
    }

    /// Predicts for `user` from `origin` (nil: after their last launch).
    public static func run(
        user: String, at origin: RequestedOrigin?, request: PredictionRequest, batches: HistoryBatches
    ) throws -> Outcome {
        let queries = batches.queries
        let path = queries.database.path
        guard let all = try storing({ try queries.history(of: UserID(user)) }),
            let origin = PredictionOrigin.resolve(origin, in: all)
        else {
            let everyone = try storing { try queries.usersWithLaunches().map(\.name) }
            throw WorkflowError(.noData, "\(path): \(PredictionError.unknown(user, among: everyone))")
        }
        var warning: String? = nil
        if let days = PredictionOrigin.staleDays(all, origin: origin) {
            warning =
                "user \"\(user)\"'s last launch before the origin is \(days) days earlier; predicting from stale history"
        }
        let fitting = try batches.sample(limit: EvenSample.fitUsers, before: origin)
        let (blend, fitted) = request.fitted(on: fitting)
        var report: PredictionReport
        do throws(PredictionError) {
            report = try PredictionReport(history: all, origin: origin, blend: blend, request: fitted)
        } catch {
            throw WorkflowError(.noData, "\(path): \(error)")
        }
        addOutlooks(&report, samples: all.context, origin: origin)
        return Outcome(report: report, warning: warning)
    }

    /// The network and energy each planned fetch is expected to meet, from the same moments of the
    /// user's past days.
    static func addOutlooks(_ report: inout PredictionReport, samples: [ContextSample], origin: Instant) {
        let cost = CostModel()
        let assumed = !samples.contains { $0.time < origin }
        for a in report.apps.indices {
            for f in report.apps[a].fetches.indices {
                report.apps[a].fetches[f].outlook = FetchOutlook.estimate(
                    at: report.apps[a].fetches[f].fetchAt, samples: samples, origin: origin,
                    duration: cost.fetch(of: report.apps[a].app).duration, cost: cost)
                report.apps[a].fetches[f].outlook?.assumed = assumed
            }
        }
    }
}
