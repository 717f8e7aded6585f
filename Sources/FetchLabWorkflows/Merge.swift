import FetchLabCore
import FetchLabIngest
import FetchLabResults
import FetchLabScale
import FetchLabSimulation
import FetchLabStore
import Foundation

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
    /// The user whose day the merged report's timeline shows: `traceUser` when given, else the
    /// partials' representative user (the median by launches per scored day): the user a database
    /// given to ``run(_:)`` must hold. A ``WorkflowError`` `.noData` when the partials scored no launch.
    public static func timelineUser(of partials: [String], traceUser: String? = nil) throws -> String {
        let run = try combine(partials)
        guard let user = traceUser ?? run.representativeUser else {
            throw WorkflowError(.noData, "\(partials.first ?? "merge"): the partials scored no launch")
        }
        return user
    }

    public static func run(_ request: MergeRequest) throws -> ComparisonOutcome {
        let (run, partials) = try combined(request.partials, spoolDirectory: request.spoolDirectory)
        let c = partials[0].configuration
        var report = run.report()
        try run.recordStorage.check()
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
            report: report, inputs: inputs, perUser: run.perUserRows, run: run, warnings: warnings)
    }

    /// The run the partials at `paths` make together (per-user rows, when kept, spooled in
    /// `spoolDirectory`): the representative user, the metrics and the report follow from it.
    public static func combine(_ paths: [String], spoolDirectory: String = NSTemporaryDirectory()) throws
        -> ComparisonRun
    {
        try combined(paths, spoolDirectory: spoolDirectory).run
    }

    /// Reads the partials one at a time, checking each against those before and adding its sums
    /// into the run as it is read: a merge holds one partial's sums and JSON at a time, and each
    /// user once, as the run keeps it. Returns the run and the partials without their figures.
    static func combined(_ paths: [String], spoolDirectory: String) throws -> (
        run: ComparisonRun, partials: [ComparisonPartial]
    ) {
        guard !paths.isEmpty else { throw WorkflowError(.usage, "merge: give at least one partial") }
        var check = OneRunCheck()
        var run: ComparisonRun? = nil
        var policies: [any FetchPolicy] = []
        for path in paths {
            let partial = try PartialFile.read(path)
            // A comparison's partial counts the users it read, and each of its users is of its shard.
            guard partial.platformInputs.users >= partial.userCount else {
                throw WorkflowError(
                    .usage,
                    "\(path): \(partial.userCount) users, more than the \(partial.platformInputs.users) it says it read "
                        + "(not a partial FetchLab wrote; make it again with compare --partial)")
            }
            if let label = partial.shard, let shard = UserShard(label),
                let stranger = partial.userNames.first(where: { !shard.contains($0) })
            {
                throw WorkflowError(
                    .usage,
                    "\(path): user '\(stranger)' is not of shard \(label) (not a partial FetchLab wrote; make it again "
                        + "with compare --partial)")
            }
            try check.admit(path, partial)
            let c = partial.configuration
            if run == nil {
                switch c.policyValues() {
                case .success(let values): policies = values
                case .failure(let problem): throw WorkflowError(.usage, "\(path): \(problem)")
                }
            }
            if let problem = partial.inconsistency(policies: policies) {
                throw WorkflowError(
                    .usage, "\(path): not a consistent partial (\(problem)); make it again with compare --partial")
            }
            do {
                if run == nil {
                    run = try ComparisonRun(
                        merging: c, policies: policies,
                        perUserRows: { try PerUserSpool(policies: $0, directory: spoolDirectory) },
                        recordStorage: FileRecordStorage())
                }
            } catch {
                throw WorkflowError(.io, "--per-user: \(error)")
            }
            do {
                try run!.absorb(consume partial)
            } catch {
                throw WorkflowError(.usage, "\(path): \(error); merge the partials of one run, as FetchLab wrote them")
            }
        }
        do {
            try run!.finishMerge()
        } catch {
            throw WorkflowError(.io, "--per-user: \(error)")
        }
        return (run!, check.admitted.map(\.partial))
    }

    /// The partials admitted to one merge so far: refuses the next when its settings differ from
    /// the first's, or its shard or users overlap an earlier one's.
    struct OneRunCheck {
        /// The partials admitted, without their figures.
        private(set) var admitted: [(path: String, partial: ComparisonPartial)] = []
        private var owner: [String: String] = [:]

        mutating func admit(_ path: String, _ b: ComparisonPartial) throws {
            if let (first, a) = admitted.first, b.fingerprint != a.fingerprint {
                let key = a.configuration.firstDifference(from: b.configuration) ?? "?"
                throw WorkflowError(
                    .usage,
                    "\(path) was replayed with other settings than \(first) (they differ in \(option(key))): "
                        + "merge the partials of one run")
            }
            if let s = b.shard.flatMap(UserShard.init) {
                for (other, q) in admitted {
                    guard let t = q.shard.flatMap(UserShard.init) else { continue }
                    // Shards I/N and J/M share the users whose hash h has h ≡ I−1 (mod N) and h ≡ J−1
                    // (mod M): some h does exactly when I−1 ≡ J−1 modulo gcd(N, M).
                    if (s.index - 1) % gcd(s.count, t.count) == (t.index - 1) % gcd(s.count, t.count) {
                        throw WorkflowError(
                            .usage,
                            "\(path) (shard \(s)) overlaps \(other) (shard \(t)): each user must be in one partial")
                    }
                }
            }
            var mine = Set<String>()
            for name in b.userNames {
                if let other = owner[name] ?? (mine.contains(name) ? path : nil) {
                    throw WorkflowError(
                        .usage, "user '\(name)' is in both \(other) and \(path): each user must be in one partial")
                }
                mine.insert(name)
            }
            for name in mine { owner[name] = path }
            admitted.append((path, b.withoutFigures))
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
