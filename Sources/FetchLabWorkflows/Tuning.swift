import FetchLabCore
import FetchLabResults
import FetchLabScale
import FetchLabSimulation
import Synchronization

/// `tune` without its options or output: a tuner run over a database's users (each decoded once
/// and replayed from memory by later passes, up to `keepUsers` of them, the others from a compact
/// temporary file: see `Tuner.keeping(limit:bytes:spill:after:)`), then the platform check
/// of what it chose on the same held-out users.
public enum Tuning {
    public struct Outcome: Sendable {
        public var result: TuningResult
        /// The chosen setting and the best fixed interval replayed as iOS and Android settings.
        public var platform: [PlatformOutcome]
    }

    /// - Parameters:
    ///   - tuner: the family's search space, objective, constraints and split.
    ///   - path: the database.
    ///   - selection: which users (all by default).
    ///   - keepUsers: users kept in memory between passes; the others go to a temporary file.
    ///   - keepBytes: at most this many bytes of histories kept (whatever `keepUsers` allows).
    ///   - timeBudget: no search round starts after this much time (nil: none).
    ///   - search: the files of every shard's part of the search (`tune --shard I/N --partial
    ///     FILE`, see ``searchShard(_:database:users:keepUsers:keepBytes:shard:partialPath:progress:)``),
    ///     merged instead of replaying the search's settings here (empty: the search is replayed).
    ///   - progress: user replays done, the total raised as the search turns out longer.
    public static func run(
        _ tuner: Tuner, database path: String, users selection: UserSelection = .all, keepUsers: Int = 10_000,
        keepBytes: Int = .max, timeBudget: Microseconds? = nil, search: [String] = [],
        progress: (any WorkProgress)? = nil
    ) throws -> Outcome {
        let partials = try search.map(TunePartialFile.read)
        var tuner = tuner
        if let timeBudget {
            let deadline = ContinuousClock.now + .microseconds(timeBudget.value)
            tuner.budgetSpent = { ContinuousClock.now >= deadline }
        }
        let (batches, names) = try Comparison.population(at: path, selection, cost: tuner.simulator.settings.cost)
        // Decoded once, replayed by every later pass from memory (up to keepUsers users and
        // keepBytes bytes) or from a temporary file.
        let users = Tuner.keeping(limit: keepUsers, bytes: keepBytes, spill: .files()) { skipped, body in
            try batches.forEach(Array(names.dropFirst(skipped)), body)
        }
        progress?.begin(total: names.count * (tuner.estimatedPasses + 2))
        tuner.userReplayed = { progress?.advance() }
        // A search longer than estimated (coordinate) raises the total as its rounds start.
        let rounds = Mutex(0)
        let count = names.count
        tuner.progress = { _ in
            let started = rounds.withLock {
                $0 += 1
                return $0
            }
            progress?.begin(total: count * (started + 4))
        }
        let result: TuningResult
        let heldOut: Tuner.HeldOutPart
        do {
            (result, heldOut) = try tuner.runKeepingHeldOut(users, search: search.isEmpty ? nil : partials)
        } catch let error as TuningError {
            throw WorkflowError(error.isUsageError ? .usage : .failed, "\(path): \(error.message)", cause: error)
        }
        let heldOutUsers = names.filter { heldOut.includes($0) }.count
        let platform = try PlatformCheck.run(
            on: heldOut, heldOutUsers: heldOutUsers, progress: progress, batches: users)
        progress?.end()
        return Outcome(result: result, platform: platform)
    }
}
