import FetchLabCore
import FetchLabPredict
import FetchLabResults
import FetchLabScale
import FetchLabSimulation
import FetchLabStore
import Foundation

/// Which users a replay takes.
public enum UserSelection: Sendable, Hashable {
    /// Every user with launches, in the database's order.
    case all
    /// N users spread evenly over the list.
    case spread(Int)
    /// These users, in this order.
    case named([String])
}

/// Told how far a long piece of work has got (a progress bar); called from any thread.
public protocol WorkProgress: Sendable {
    /// The work is `total` units (users).
    func begin(total: Int)
    /// One more unit done.
    func advance()
    /// All done.
    func end()
}

/// What `compare` (and `demo`) replays: the database, the evaluation protocol, the platform, cost
/// and context settings, the policies, the users, the budgets and the timeline's user and day.
public struct ComparisonRequest: Sendable {
    public var database: String
    public var evaluation: EvaluationProtocol
    public var settings: ReplaySettings
    /// The policies (nil: the standard set, with push when the database holds content updates).
    public var policies: [any FetchPolicy]?
    public var users: UserSelection = .all
    /// Only the users of this shard of ``users`` (nil: all of them).
    public var shard: UserShard? = nil
    /// Each user's metrics too, spooled to `spoolDirectory` as users finish.
    public var perUser = false
    public var spoolDirectory = NSTemporaryDirectory()
    /// Budgets read besides the standard ones (the first is the headline's); nil: the defaults.
    public var budgets: [Double]? = nil
    public var resamples = 1_000
    public var bootstrapSeed: UInt64 = 1
    /// The timeline's user (nil: the representative user) and day (nil: their busiest scored day).
    public var traceUser: String? = nil
    public var traceDay: CivilDate? = nil
    /// Also keep the run as a mergeable partial (``ComparisonOutcome/partial``).
    public var partial = false
    /// Replay the headline's app-scope setting on iOS and Android (``HeadlinePlatforms``): two
    /// more passes over the users' histories. Off for a shard (its partial is merged first).
    public var platformLines = true

    public init(database: String, evaluation: EvaluationProtocol, settings: ReplaySettings) {
        self.database = database
        self.evaluation = evaluation
        self.settings = settings
    }
}

/// A comparison done: the report, what the logs held for the platform's device rules, the spooled
/// per-user rows (when asked for), the run itself (for its timings), and warnings to show.
public struct ComparisonOutcome: Sendable {
    public var report: ComparisonReport
    public var inputs: PlatformInputs
    public var perUser: (any PerUserRows)?
    public var run: ComparisonRun
    public var warnings: [String]
    /// The run as a mergeable partial, when asked for (``ComparisonRequest/partial``).
    public var partial: ComparisonPartial? = nil
}

/// Replays policies over a database's users, a batch of users at a time (memory holds one batch),
/// and builds the report with one user's day for its timeline.
public enum Comparison {
    public static func run(_ request: ComparisonRequest, progress: (any WorkProgress)? = nil) throws
        -> ComparisonOutcome
    {
        let path = request.database
        let (batches, names) = try population(
            at: path, request.users, shard: request.shard, cost: request.settings.cost)
        let queries = batches.queries
        var simulator = Simulator(evaluation: request.evaluation, settings: request.settings)
        simulator.perUser = request.perUser
        // The budget figures' per-user records in temporary files: memory does not grow with them.
        simulator.recordStorage = FileRecordStorage()
        let chosen =
            try request.policies
            ?? PolicyRegistry.standard(
                contentUpdates: storing { try queries.hasContentUpdates() },
                notifications: storing { try queries.hasNotifications() })
        var run = simulator.comparison(policies: chosen)
        run.keepsUsers = request.partial
        if let given = request.budgets, let first = given.first {
            run.budgets = Array(Set(BudgetSettings.standardBudgets + given)).sorted()
            run.headlineBudget = first
        }
        run.seed = request.bootstrapSeed
        run.resamples = request.resamples
        // Each user's rows go to temporary files as users finish: memory does not grow with them.
        if request.perUser {
            do {
                run.keepPerUser(
                    in: try PerUserSpool(policies: run.requestedPolicies, directory: request.spoolDirectory))
            } catch {
                throw WorkflowError(.io, "--per-user: \(error)")
            }
        }
        progress?.begin(total: names.count)
        var inputs = PlatformInputs()
        try batches.forEach(names) { batch in
            inputs.add(batch)
            run.add(batch) { progress?.advance() }
        }
        progress?.end()
        do {
            try run.perUserRows?.finish()
        } catch {
            throw WorkflowError(.io, "--per-user: \(error)")
        }
        var report = run.report()
        try run.recordStorage.check()
        if let shard = request.shard { report.settings.shard = shard.description }
        var warnings: [String] = []
        if request.platformLines, request.shard == nil, report.headline != nil {
            let lines = try HeadlinePlatforms.replay(
                report, policies: chosen, request: request, batches: batches, names: names, progress: progress)
            report.headline?.platforms = lines
        }
        warnings += try addTimeline(
            to: &report, run: run, simulator: simulator, traceUser: request.traceUser, traceDay: request.traceDay,
            path: path
        ) { name in try storing { try queries.history(of: UserID(name), before: nil) } }
        return ComparisonOutcome(
            report: report, inputs: inputs, perUser: run.perUserRows, run: run, warnings: warnings,
            partial: request.partial ? partial(of: run, request: request, inputs: inputs) : nil)
    }

    static func partial(of run: ComparisonRun, request: ComparisonRequest, inputs: PlatformInputs) -> ComparisonPartial
    {
        var partial = run.partial(shard: request.shard, source: request.database)
        partial.platformInputs = inputs
        return partial
    }

    /// One user's day under every policy, for the report's timeline: `traceUser` (or the run's
    /// representative user) from `history`, on `traceDay` (or their busiest scored day). Returns
    /// the warnings to show; a `traceUser` that `history` does not know is an error.
    static func addTimeline(
        to report: inout ComparisonReport, run: ComparisonRun, simulator: Simulator, traceUser: String?,
        traceDay: CivilDate?, path: String, history: (String) throws -> UserHistory?
    ) throws -> [String] {
        var warnings: [String] = []
        if let name = traceUser ?? run.representativeUser, let history = try history(name) {
            let choice =
                traceUser != nil
                ? "chosen (--trace-user)"
                : "representative: the median of \(run.activity.count) users by launches per scored day"
            let day = traceDay.map { " on \($0) (--trace-day)" } ?? ", on their busiest scored day"
            report.timeline = simulator.trace(
                history, day: traceDay, policies: Array(run.policies.prefix(report.policies.count)),
                choice: choice + day)
            if report.timeline == nil, traceUser != nil || traceDay != nil {
                warnings.append("no scored day \(traceDay.map { "\($0) " } ?? "")for user \(name): no timeline")
            }
        } else if let name = traceUser {
            throw WorkflowError(.noData, "\(path): no user '\(name)' for --trace-user (see fetchlab inspect)")
        } else if let name = run.representativeUser {
            warnings.append("\(path) has no user '\(name)' (the representative user): no timeline")
        }
        return warnings
    }

    /// The database at `path` read in batches, and the users `selection` takes; per-app costs
    /// checked against its apps first (`compare` and `tune` alike).
    static func population(
        at path: String, _ selection: UserSelection, shard: UserShard? = nil, cost: CostModel
    ) throws -> (batches: HistoryBatches, names: [UserID]) {
        let batches = try HistoryBatches(path: path)
        try checkAppCosts(cost, batches.queries, path: path)
        var names = try userNames(selection, batches.queries, path: path)
        if let shard {
            let all = names.count
            names = names.filter(shard.contains)
            guard !names.isEmpty else {
                throw WorkflowError(
                    .noData, "\(path): shard \(shard) holds none of the \(all) user\(all == 1 ? "" : "s") replayed")
            }
        }
        return (batches, names.map { UserID($0) })
    }

    /// The users `selection` takes (all users with launches by default), in the database's order.
    public static func userNames(_ selection: UserSelection, _ queries: UsageQueries, path: String) throws -> [String] {
        let everyone = try storing { try queries.usersWithLaunches().map(\.name) }
        var names = everyone
        switch selection {
        case .all: break
        case .spread(let n):
            guard n > 0 else { throw WorkflowError(.noData, "--users \(n): give at least one user") }
            names = EvenSample.pick(everyone, limit: n)
        case .named(let wanted):
            let known = Set(everyone)
            if let missing = wanted.first(where: { !known.contains($0) }) {
                throw WorkflowError(.noData, "\(path): no user '\(missing)' with launches (see fetchlab inspect)")
            }
            names = wanted
        }
        guard !names.isEmpty else {
            throw WorkflowError(.noData, "\(path): no launches to replay (import some usage logs first)")
        }
        return names
    }

    /// Refuses a per-app cost for an app the database does not know (a typo would otherwise be
    /// ignored without a word).
    static func checkAppCosts(_ cost: CostModel, _ queries: UsageQueries, path: String) throws {
        guard !cost.perApp.isEmpty else { return }
        let known = try storing { try queries.appNames() }
        for app in cost.perApp.keys.sorted() where !known.contains(app) {
            throw WorkflowError(.usage, "--app-cost \(app): \(path) has no app of that name (see fetchlab inspect)")
        }
    }
}

/// `body`, its store failure as a workflow failure.
func storing<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as StoreError {
        throw WorkflowError(error)
    }
}
