import FetchLabCore
import FetchLabIngest
import FetchLabResults
import FetchLabSimulation
import FetchLabStore
import Foundation

/// A comparison's partial on disk: its JSON, gzip'd (`compare --partial FILE`).
public enum PartialFile {
    /// Writes `partial` to `path` (replacing it, through a temporary file in the same directory,
    /// so a reader never sees half a partial).
    public static func write(_ partial: ComparisonPartial, to path: String) throws {
        let json: Data
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]  // the same run gives the same bytes
            json = try encoder.encode(partial)
        } catch {
            throw WorkflowError(.io, "\(path): cannot encode the partial: \(error)")
        }
        let gzip = GzipMemberWriter()
        json.withUnsafeBytes { gzip.write($0) }
        let bytes = Data(gzip.finish())
        let temporary = path + ".part-\(getpid())"
        do {
            try bytes.write(to: URL(fileURLWithPath: temporary))
            if FileManager.default.fileExists(atPath: path) {
                _ = try FileManager.default.replaceItemAt(
                    URL(fileURLWithPath: path), withItemAt: URL(fileURLWithPath: temporary))
            } else {
                try FileManager.default.moveItem(atPath: temporary, toPath: path)
            }
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw WorkflowError(.io, "\(path): cannot write the partial: \(Self.reason(error))")
        }
    }

    /// Reads the partial at `path`; a file that is not one (or of another format, or altered) is
    /// a one-line error naming it.
    public static func read(_ path: String) throws -> ComparisonPartial {
        let json: Data
        switch Result(catching: { () throws(IngestError) -> Data in try bytes(of: path) }) {
        case .success(let data): json = data
        case .failure(let error): throw WorkflowError(.usage, error.description)
        }
        // Parsed once; only a file that does not decode is parsed again, for its format alone, so
        // that another version's partial says so rather than failing on a field.
        struct Header: Decodable { var format: String? }
        let partial: ComparisonPartial
        do {
            partial = try JSONDecoder().decode(ComparisonPartial.self, from: json)
        } catch {
            guard let header = try? JSONDecoder().decode(Header.self, from: json) else {
                throw WorkflowError(
                    .usage, "\(path): not a FetchLab partial (not its JSON; make one with compare --partial)")
            }
            guard header.format == ComparisonPartial.currentFormat else { throw formatError(path, header.format) }
            throw WorkflowError(.usage, "\(path): not a FetchLab partial: \(Self.reason(error))")
        }
        guard partial.format == ComparisonPartial.currentFormat else { throw formatError(path, partial.format) }
        guard partial.fingerprint == partial.configuration.fingerprint else {
            throw WorkflowError(
                .usage,
                "\(path): its settings do not match its fingerprint \(partial.fingerprint) (the file was altered)")
        }
        return partial
    }

    static func formatError(_ path: String, _ format: String?) -> WorkflowError {
        WorkflowError(
            .usage,
            "\(path): partial format '\(format ?? "none")'; this fetchlab reads '\(ComparisonPartial.currentFormat)' "
                + "(make the partials with the same fetchlab)")
    }

    /// The file's bytes, decompressed.
    static func bytes(of path: String) throws(IngestError) -> Data {
        let reader = try DecompressingReader(path: path)
        reader.maxRatio = nil
        var json = Data()
        while let chunk = try reader.nextChunk() { json.append(contentsOf: chunk) }
        return json
    }

    static func reason(_ error: any Error) -> String {
        if let e = error as? DecodingError {
            switch e {
            case .dataCorrupted(let c), .keyNotFound(_, let c), .typeMismatch(_, let c), .valueNotFound(_, let c):
                let at = c.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
                return (at.isEmpty ? "" : "at \(at): ") + c.debugDescription
            @unknown default: break
            }
        }
        return (error as NSError).localizedDescription
    }
}

/// What `merge` combines: partials, and the database that holds the timeline's user (nil: no
/// timeline) and keeps the run.
public struct MergeRequest: Sendable {
    public var partials: [String]
    public var database: String?
    public var traceUser: String? = nil
    public var traceDay: CivilDate? = nil
    public var spoolDirectory = NSTemporaryDirectory()

    public init(partials: [String], database: String?) {
        self.partials = partials
        self.database = database
    }
}

/// Combines the partials of a sharded comparison into the comparison one run over all their users
/// gives: the same report, to the last digit.
public enum Merge {
    public static func run(_ request: MergeRequest) throws -> ComparisonOutcome {
        let (run, partials) = try combined(request.partials, spoolDirectory: request.spoolDirectory)
        let c = partials[0].configuration
        var report = run.report()
        var warnings: [String] = []
        let shards = partials.compactMap { $0.shard.flatMap(UserShard.init) }
        if shards.count == partials.count, let n = shards.first?.count, shards.allSatisfy({ $0.count == n }) {
            let missing = Set(1...n).subtracting(shards.map(\.index)).sorted()
            if !missing.isEmpty {
                warnings.append(
                    "shard\(missing.count == 1 ? "" : "s") \(missing.map { "\($0)/\(n)" }.joined(separator: ", ")) "
                        + "not given: the merged run covers \(n - missing.count) of \(n) shards")
            }
        }
        var inputs = PlatformInputs()
        for p in partials { inputs.add(p.platformInputs) }
        if let path = request.database {
            let queries = try HistoryBatches(path: path).queries
            var simulator = Simulator(evaluation: c.evaluation, settings: c.settings)
            simulator.perUser = c.perUser
            warnings += try Comparison.addTimeline(
                to: &report, run: run, simulator: simulator, traceUser: request.traceUser, traceDay: request.traceDay,
                path: path
            ) { name in try storing { try queries.history(of: UserID(name), before: nil) } }
        } else if request.traceUser != nil || request.traceDay != nil {
            throw WorkflowError(.usage, "--trace-user and --trace-day need --db (the database that holds the user)")
        }
        return ComparisonOutcome(
            report: report, inputs: inputs, perUser: run.perUserSpool, run: run, warnings: warnings)
    }

    /// The run the partials at `paths` make together (per-user rows, when kept, spooled in
    /// `spoolDirectory`): the representative user, the metrics and the report follow from it.
    public static func combine(_ paths: [String], spoolDirectory: String = NSTemporaryDirectory()) throws
        -> ComparisonRun
    {
        try combined(paths, spoolDirectory: spoolDirectory).run
    }

    static func combined(_ paths: [String], spoolDirectory: String) throws -> (
        run: ComparisonRun, partials: [ComparisonPartial]
    ) {
        guard !paths.isEmpty else { throw WorkflowError(.usage, "merge: give at least one partial") }
        let partials = try paths.map(PartialFile.read)
        try checkOneRun(Array(zip(paths, partials)))
        let c = partials[0].configuration
        let policies: [any FetchPolicy]
        do {
            policies = try PolicyRegistry.parseList(c.policies.joined(separator: ","))
        } catch {
            throw WorkflowError(.usage, "\(paths[0]): its policies cannot be read: \(error)")
        }
        guard policies.map(\.name) == c.policies else {
            throw WorkflowError(.usage, "\(paths[0]): its policies do not read back as written")
        }
        for (path, partial) in zip(paths, partials) {
            if let problem = partial.inconsistency(policies: policies) {
                throw WorkflowError(
                    .usage, "\(path): not a consistent partial (\(problem)); make it again with compare --partial")
            }
        }
        do {
            let run = try ComparisonRun(
                merging: partials, policies: policies, spoolDirectory: c.perUser ? spoolDirectory : nil)
            return (run, partials)
        } catch {
            throw WorkflowError(.io, "--per-user: \(error)")
        }
    }

    /// Refuses partials of different settings, and partials whose shards or users overlap.
    static func checkOneRun(_ named: [(path: String, partial: ComparisonPartial)]) throws {
        let (first, a) = named[0]
        for (path, b) in named.dropFirst() where b.fingerprint != a.fingerprint {
            let key = a.configuration.firstDifference(from: b.configuration) ?? "?"
            throw WorkflowError(
                .usage,
                "\(path) was replayed with other settings than \(first) (they differ in \(Self.option(key))): "
                    + "merge the partials of one run")
        }
        for (i, (path, p)) in named.enumerated() {
            guard let s = p.shard.flatMap(UserShard.init) else { continue }
            for (other, q) in named[..<i] {
                guard let t = q.shard.flatMap(UserShard.init) else { continue }
                // Shards I/N and J/M share the users whose hash h has h ≡ I−1 (mod N) and h ≡ J−1
                // (mod M): some h does exactly when I−1 ≡ J−1 modulo gcd(N, M).
                if (s.index - 1) % gcd(s.count, t.count) == (t.index - 1) % gcd(s.count, t.count) {
                    throw WorkflowError(
                        .usage, "\(path) (shard \(s)) overlaps \(other) (shard \(t)): each user must be in one partial")
                }
            }
        }
        var owner: [String: String] = [:]
        for (path, p) in named {
            for name in p.userNames {
                if let other = owner.updateValue(path, forKey: name) {
                    throw WorkflowError(
                        .usage, "user '\(name)' is in both \(other) and \(path): each user must be in one partial")
                }
            }
        }
    }

    /// The options that set a configuration's setting, for messages.
    static func option(_ key: String) -> String {
        let options = [
            "policies": "--policies", "warmUpDays": "--warm-up", "minLaunches": "--min-launches", "primaryTau": "--tau",
            "launchRefreshes": "--launch-refreshes", "apps": "--apps", "scoredFrom": "--from", "scoredThrough": "--to",
            "settings": "the platform, cost or context options", "budgetFigures": "the budget figures",
            "budgets": "--budget", "headlineBudget": "--budget", "resamples": "--resamples",
            "seed": "--bootstrap-seed", "perUser": "--per-user", "taus": "the τ reported",
        ]
        return options[key] ?? key
    }

    static func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }
}
