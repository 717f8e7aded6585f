import FetchLabCore
import FetchLabPredict
import FetchLabResults
import FetchLabSimulation
import FetchLabStore

/// `describe` without its options or output: the launch statistics of every user (or of the users
/// named), pooled, and of each user when asked, with the signal counts and ceilings.
public enum Description {
    /// The statistics of the users described.
    public struct Outcome: Sendable {
        public var population: UsageDescription
        /// Each user's own statistics, in order (empty unless asked for).
        public var perUser: [(user: String, statistics: UsageDescription)]
        public var signals: SignalCounts?
        /// The per-signal ceilings with no budget, under the protocol's defaults.
        public var ceilings: SignalCeilings
    }

    /// Describes `users` (empty: everyone with launches; a name given twice counts once), tallied
    /// on all cores a batch of users at a time and merged in order.
    public static func run(
        users: [String], perUser: Bool, batches: HistoryBatches,
        progress: ((_ done: Int, _ total: Int) -> Void)? = nil
    ) throws -> Outcome {
        let queries = batches.queries
        let path = queries.database.path
        let everyone = try storing { try queries.usersWithLaunches() }
        let known = Set(everyone.map(\.name))
        if let missing = users.first(where: { !known.contains($0) }) {
            throw WorkflowError(.noData, "\(path): \(PredictionError.unknown(missing, among: everyone.map(\.name)))")
        }
        var seen: Set<String> = []
        let names = users.isEmpty ? everyone : users.filter { seen.insert($0).inserted }.map { UserID($0) }
        guard !names.isEmpty else {
            throw WorkflowError(.noData, "\(path): no launches to describe (import some usage logs first)")
        }
        var total = UsageDescription.Tally()
        var ceilings = SignalCeilingSums()
        var rows: [(user: String, statistics: UsageDescription)] = []
        try batches.map(names, progress: progress) {
            (UsageDescription.Tally($0), SignalCeilingSums($0))
        } consume: { h, sums in
            let (tally, ceiling) = sums
            total.merge(tally)
            ceilings.merge(ceiling)
            if perUser { rows.append((h.user.name, tally.description)) }
        }
        let rules = EvaluationProtocol()
        let signals = try storing { try queries.signalCounts(users: users.isEmpty ? [] : names.map(\.name)) }
        return Outcome(
            population: total.description, perUser: rows, signals: signals,
            ceilings: ceilings.ceilings(tau: rules.primaryTau, launchRefreshes: rules.launchRefreshes))
    }
}
