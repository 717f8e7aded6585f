import FetchLabCore
import FetchLabPredict
import FetchLabStore

/// Reads users' histories from a database a batch at a time, on all cores (a read-only database
/// serves concurrent readers), so that memory holds one batch whatever the population: the one
/// loader of every command that goes over users.
public struct HistoryBatches: Sendable {
    public let queries: UsageQueries
    /// Users read at once.
    public var batchSize = 64

    public init(queries: UsageQueries) { self.queries = queries }

    /// The database at `path`, opened read-only.
    public init(path: String) throws(WorkflowError) {
        do {
            queries = UsageQueries(database: try FetchLabDatabase(path: path, readOnly: true))
        } catch {
            throw WorkflowError(error)
        }
    }

    /// Hands `names`' histories to `body` a batch at a time, in order; users without launches are
    /// left out. `progress` is told the users read so far after each batch.
    public func forEach(
        _ names: [UserID], progress: ((_ done: Int, _ total: Int) -> Void)? = nil,
        _ body: ([UserHistory]) throws -> Void
    ) throws {
        var i = 0
        while i < names.count {
            let batch = Array(names[i..<min(names.count, i + batchSize)])
            let queries = self.queries
            let loaded = ParallelMap.map(batch) { name in
                Result { () throws(StoreError) -> UserHistory? in try queries.history(of: name, before: nil) }
            }
            var histories: [UserHistory] = []
            for result in loaded {
                do {
                    if let h = try result.get(), !h.launches.isEmpty { histories.append(h) }
                } catch {
                    throw WorkflowError(error)
                }
            }
            try body(histories)
            i += batch.count
            progress?(i, names.count)
        }
    }

    /// `work` on every history of `names` (on all cores), then `consume` of each history and its
    /// result in order, a batch at a time.
    public func map<R: Sendable>(
        _ names: [UserID], progress: ((_ done: Int, _ total: Int) -> Void)? = nil,
        work: @escaping @Sendable (UserHistory) -> R, consume: (UserHistory, R) throws -> Void
    ) throws {
        try forEach(names, progress: progress) { histories in
            for (h, r) in zip(histories, ParallelMap.map(histories, work)) { try consume(h, r) }
        }
    }

    /// The histories of up to `limit` users evenly spread over the sorted list (0 = all), only
    /// what happened before `before` when given; users without launches (then) are left out.
    public func sample(limit: Int, before: Instant? = nil) throws -> [UserHistory] {
        try storing {
            var out: [UserHistory] = []
            for name in EvenSample.pick(try queries.usersWithLaunches(), limit: limit) {
                if let h = try queries.history(of: name, before: before), !h.launches.isEmpty { out.append(h) }
            }
            return out
        }
    }
}
