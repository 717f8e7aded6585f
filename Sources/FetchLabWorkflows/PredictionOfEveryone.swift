import FetchLabCore
import FetchLabPredict
import FetchLabResults
import FetchLabStore

/// `predict` without `--user`: the blend (weights fitted on up to 40 users, its fetch probabilities
/// calibrated on their plans) learns each user's whole log and plans the day after it.
extension Prediction {
    /// What planning for every user came to.
    public struct Summary: Sendable {
        /// The users with launches.
        public var users = 0
        public var launches = 0
        public var apps = 0
        public var fetches = 0
        /// The users the blend was fitted on.
        public var fittedOn = 0
        public var fitSeconds = 0.0
        public var totalSeconds = 0.0
        /// The users the blend could not predict for, and why.
        public var unpredicted: [(user: String, reason: String)] = []

        /// The warning that names the users not predicted for (nil: every user was).
        public var warning: String? {
            guard let first = unpredicted.first else { return nil }
            return "no prediction for \(unpredicted.count) user\(unpredicted.count == 1 ? "" : "s") "
                + "(\(first.user): \(first.reason))"
        }
    }

    /// Plans for every user of `batches`, learning and planning on all cores a batch of users at a
    /// time; `report` gets each user's plan in order. A user the blend cannot predict for is
    /// counted and named (``Summary/unpredicted``), not dropped without a word.
    public static func runAll(
        request: PredictionRequest, batches: HistoryBatches,
        progress: ((_ done: Int, _ total: Int) -> Void)? = nil, report: (PredictionReport) throws -> Void
    ) throws -> Summary {
        let clock = ContinuousClock()
        let started = clock.now
        let queries = batches.queries
        let names = try storing { try queries.usersWithLaunches() }
        guard !names.isEmpty else {
            throw WorkflowError(
                .noData, "\(queries.database.path): no launches to predict from (import some usage logs first)")
        }
        let fitting = try batches.sample(limit: EvenSample.fitUsers)
        let (template, request) = request.fitted(on: fitting)
        var summary = Summary(users: names.count, fittedOn: fitting.count)
        summary.fitSeconds = seconds(clock.now - started)
        let predict: @Sendable (UserHistory) -> Result<PredictionReport, PredictionError>? = { h in
            guard let origin = PredictionOrigin.resolve(nil, in: h) else { return nil }
            do throws(PredictionError) {
                return .success(try PredictionReport(history: h, origin: origin, blend: template, request: request))
            } catch {
                return .failure(error)
            }
        }
        try batches.map(names, progress: progress, work: predict) { h, result in
            switch result {
            case nil: return
            case .failure(let error): summary.unpredicted.append((h.user.name, "\(error)"))
            case .success(let r):
                summary.launches += h.launches.count
                summary.apps += r.apps.count
                summary.fetches += r.apps.reduce(0) { $0 + $1.fetches.count }
                try report(r)
            }
        }
        summary.totalSeconds = seconds(clock.now - started)
        return summary
    }

    private static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }
}
