import ArgumentParser
import FetchLabCore
import FetchLabReport
import FetchLabScale
import FetchLabSimulation
import FetchLabStore
import FetchLabTerminal
import FetchLabWorkflows

struct CompareCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Replay fetch policies over the database and compare their freshness and cost.",
        discussion: """
            For each user and each app with enough launches: a warm-up (scoring starts at the first \
            local midnight at least --warm-up days after the user's first event), then every launch \
            up to the user's last event is scored: fresh@τ when the last refresh (a fetch, or the \
            previous launch with --launch-refreshes on) is at most τ old. Reports fresh@5/15/60 min \
            (launch-weighted) with 95 % bootstrap intervals over users, fetches per app per day \
            (averaged over pairs), each policy's gain over the best fixed interval at the same fetches per \
            day and its share of the possible gain (up to the clairvoyant bound), and freshness at a \
            budget: each family's best setting at 0.5, 1, 2, 5 and 10 fetches/app/day (--budget) against \
            fixed intervals and the bound. By default --platform none: every fetch a policy asks for \
            happens (the pure policy, as DOMAIN.md's protocol measures it). With --platform ios the \
            system decides: a fixed interval is a floor, replayed as iOS's scheduler runs it within a \
            daily wake budget per app that follows use, and the requests it did not run are counted by \
            reason. Policies: \(PolicyRegistry.forms). \(PolicyRegistry.scopeSummary) Every run is stored \
            in the database (fetchlab runs lists them).
            """
    )

    @OptionGroup var database: DatabaseOptions

    @Option(
        help: ArgumentHelp(
            "Policies, comma-separated (default: the standard set, \(PolicyRegistry.standardNames); push only with content updates).",
            valueName: "list"))
    var policies: PolicyListArgument?

    @Option(parsing: .unconditional, help: "The τ of the ranking, the bound, the baseline and the oracles (1m to 24h).")
    var tau = DurationArgument(.minutes(15))

    @Option(help: "Whether a launch refreshes its app's content (on or off).")
    var launchRefreshes: OnOff = .on

    @Option(parsing: .unconditional, help: "Days of each user's log before scoring starts (0 to 3,660).")
    var warmUp = 7

    @Option(parsing: .unconditional, help: "Launches an app needs in the whole log to be evaluated (1 to 1,000,000).")
    var minLaunches = 20

    @OptionGroup var output: ReportOutputOptions

    @OptionGroup(title: "Budgets") var budget: BudgetOptions

    @OptionGroup var store: StoreOptions

    @Option(
        help: ArgumentHelp(
            "Also write the run as a partial to merge with other shards' (fetchlab merge); best with --shard.",
            valueName: "file"))
    var partial: String?

    @OptionGroup(title: "Population, platform, cost and context") var replay: ReplayOptions

    @OptionGroup(title: "Shard, per-user rows, timings and timeline") var runOptions: ComparisonRunOptions

    func validate() throws {
        try replay.check()
        try budget.check()
        try output.file.checkOutputs(database: database.db, also: [("--partial", partial)])
        try Bounds.check("--tau", tau, SettingRanges.tau)
        try Bounds.check("--warm-up", warmUp, SettingRanges.warmUpDays)
        try Bounds.check("--min-launches", minLaunches, SettingRanges.minLaunches)
        if case .failure(let error) = policies?.parsed { throw ValidationError("--policies: \(error)") }
    }

    func run() throws {
        let chosen = try policies?.parsed.get()
        var evaluation = EvaluationProtocol()
        evaluation.primaryTau = tau.microseconds
        evaluation.launchRefreshes = launchRefreshes == .on
        evaluation.warmUpDays = warmUp
        evaluation.minLaunches = minLaunches
        replay.restrict(&evaluation)
        let outcome = try replay.compare(
            database: database.db, evaluation: evaluation, policies: chosen,
            showProgress: Terminal.stderrIsTerminal,
            budget: budget, run: runOptions, partial: partial != nil)
        let (report, inputs, perUser) = (outcome.report, outcome.inputs, outcome.perUser)
        guard !report.scoredNothing else {
            throw CommandFailure(
                "\(database.db): no launch was scored (no app with at least \(minLaunches) launches and a log "
                    + "longer than the \(warmUp)-day warm-up); try a shorter --warm-up or a lower --min-launches")
        }
        if let path = partial, let made = outcome.partial {
            try PartialFile.write(made, to: path)
            Terminal.note(
                "partial of \(TextFormat.counted(made.userCount, "user"))\(made.shard.map { " (shard \($0))" } ?? "") "
                    + "written to \(path) (fetchlab merge combines partials)")
        }
        let rules = report.settings.platformRules
        if let note = CompareRenderer.platformNote(rules, inputs: inputs) { Terminal.note(note) }
        let stored =
            store.noStore
            ? .skipped
            : RunRecorder.store(report, command: "compare", path: database.db, perUser: perUser, messages: .terminal)
        try output.emit(
            report, runID: stored.id, source: database.db, platformInputs: rules.kind == .none ? nil : inputs,
            perUser: perUser)
        try stored.requireStored()
    }
}

enum OnOff: String, CaseInsensitiveArgument {
    case on, off
}
