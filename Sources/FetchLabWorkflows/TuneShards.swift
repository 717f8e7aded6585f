import FetchLabCore
import FetchLabIngest
import FetchLabResults
import FetchLabScale
import FetchLabSimulation
import Foundation

/// A shard's part of a tune's search on disk (`tune --shard I/N --partial FILE`): gzip'd JSON
/// lines, the search's header, then each fold's training partial as a comparison's partial file
/// holds it (its header, its apps' and its users' lines).
public enum TunePartialFile {
    /// Writes `partial` to `path` (through a temporary file, so a reader never sees half of one).
    public static func write(_ partial: TuneSearchPartial, to path: String) throws {
        let gzip = GzipMemberWriter()
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            func line(_ data: Data) {
                data.withUnsafeBytes { gzip.write($0) }
                gzip.write("\n")
            }
            line(try encoder.encode(partial.header))
            for fold in partial.folds { try fold.jsonLines(line) }
        } catch {
            throw WorkflowError(.io, "\(path): cannot encode the partial: \(error)")
        }
        try PartialFile.replace(path, with: Data(gzip.finish()))
    }

    /// Reads the tune partial at `path`; a file that is not one (or of another format, cut short
    /// or with lines added) is a one-line error naming it.
    public static func read(_ path: String) throws -> TuneSearchPartial {
        let lines = try PartialFile.Lines(path)
        let remedy = "make it again with tune --shard I/N --partial FILE"
        guard let first = try lines.next() else {
            throw WorkflowError(.usage, "\(path): not a tune's partial (empty; \(remedy))")
        }
        struct Format: Decodable { var format: String? }
        let header: TuneSearchPartial.Header
        do {
            header = try JSONDecoder().decode(TuneSearchPartial.Header.self, from: first)
        } catch {
            let format = (try? JSONDecoder().decode(Format.self, from: first))?.format
            if format == ComparisonPartial.currentFormat {
                throw WorkflowError(
                    .usage,
                    "\(path): a comparison's partial (compare --partial), not a tune's: merge it with fetchlab merge")
            }
            guard let format, format != TuneSearchPartial.currentFormat else {
                throw WorkflowError(.usage, "\(path): not a tune's partial (\(PartialFile.reason(error)); \(remedy))")
            }
            throw formatError(path, format)
        }
        guard header.format == TuneSearchPartial.currentFormat else { throw formatError(path, header.format) }
        var folds: [ComparisonPartial] = []
        var given = 1
        for _ in header.folds {
            guard let line = try lines.next() else {
                throw WorkflowError(
                    .usage, "\(path): cut short: \(folds.count) of the \(header.folds.count) folds its header gives")
            }
            let partial = try PartialFile.read(header: line, from: lines, path: path, remedy: remedy)
            given += 1 + partial.linesGiven
            folds.append(partial)
        }
        try lines.expectEnd(after: given - 1)
        return TuneSearchPartial(header: header, folds: folds)
    }

    static func formatError(_ path: String, _ format: String?) -> WorkflowError {
        WorkflowError(
            .usage,
            "\(path): partial format '\(format ?? "none")'; this fetchlab reads '\(TuneSearchPartial.currentFormat)' "
                + "(make the partials with the same fetchlab)")
    }
}

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
