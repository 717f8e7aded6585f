import FetchLabCore
import FetchLabIngest
import FetchLabResults
import FetchLabScale
import FetchLabSimulation
import Foundation

extension Tuning {
    /// What a shard's search did: the partial, where it went and what it replayed.
    public struct ShardOutcome: Sendable {
        public var shard: UserShard
        public var path: String
        public var settings: Int
        public var folds: Int
        /// Users replayed per fold (this shard's training users with an evaluated app).
        public var users: [Int]
    }

    /// `tune --shard I/N --partial FILE`: replays the search's settings on the training users of
    /// `shard` only and writes them to `partialPath`, for a tune given every shard's partial
    /// (``run(_:database:users:keepUsers:keepBytes:timeBudget:search:progress:)``).
    public static func searchShard(
        _ tuner: Tuner, database path: String, users selection: UserSelection = .all, keepUsers: Int = 10_000,
        keepBytes: Int = .max, shard: UserShard, partialPath: String, progress: (any WorkProgress)? = nil
    ) throws -> ShardOutcome {
        var tuner = tuner
        let (batches, names) = try Comparison.population(at: path, selection, cost: tuner.simulator.settings.cost)
        let users = Tuner.keeping(limit: keepUsers, bytes: keepBytes, spill: .files()) { skipped, body in
            try batches.forEach(Array(names.dropFirst(skipped)), body)
        }
        // Reading the population, grouping it per fold, then the fold's replays.
        let passes = 1 + 2 * tuner.estimatedFolds
        progress?.begin(total: names.count * passes)
        tuner.userReplayed = { progress?.advance() }
        let partial: TuneSearchPartial
        do {
            partial = try tuner.searchPartial(users, shard: shard)
        } catch let error as TuningError {
            throw WorkflowError(error.isUsageError ? .usage : .failed, "\(path): \(error.message)", cause: error)
        }
        try TunePartialFile.write(partial, to: partialPath)
        progress?.end()
        return ShardOutcome(
            shard: shard, path: partialPath, settings: partial.header.settings.count, folds: partial.folds.count,
            users: partial.folds.map(\.userCount))
    }
}
