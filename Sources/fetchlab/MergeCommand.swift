import ArgumentParser
import FetchLabCore
import FetchLabReport
import FetchLabSimulation
import FetchLabTerminal
import FetchLabWorkflows

struct MergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Combine the partials of a sharded comparison into one run.",
        discussion: """
            Each partial is a comparison over some users (fetchlab compare --shard I/N --partial FILE), \
            kept as sums that merge exactly: merging the N shards of a population gives the report one \
            compare over all of it gives, to the last digit (apart from the run id and timings). The \
            partials must share their settings (policies, protocol, platform, cost, budgets, bootstrap; \
            each carries a fingerprint of them) and hold disjoint users; anything else is refused. The \
            report's timeline replays one user's day, so it needs a database that holds that user \
            (--db); with --db the run is also stored there, like any other (fetchlab runs lists it).
            """
    )

    @Argument(help: ArgumentHelp("The partials (compare --partial), any number, in any order.", valueName: "partial"))
    var partials: [String]

    @Option(
        name: .long,
        help:
            "A database holding the timeline's user (the representative user, or --trace-user): the report then has its timeline, and the run is stored there."
    )
    var db: String?

    @Option(help: "The user whose day the report's timeline shows (needs --db).")
    var traceUser: String?

    @Option(help: "The local day of the timeline, YYYY-MM-DD (needs --db).")
    var traceDay: CivilDate?

    @Flag(
        help:
            "Print only the timeline's user (the representative user: the median by launches per scored day) and exit: the user a --db must hold (a fleet driver fetches that user's logs)."
    )
    var printTimelineUser = false

    @OptionGroup var output: ReportOutputOptions

    @OptionGroup var store: StoreOptions

    func validate() throws {
        guard !partials.isEmpty else { throw ValidationError("give at least one partial (compare --partial FILE)") }
        let inputs = partials.map { OutputGuard.Protected(path: $0, what: "a partial", database: false) }
        try OutputGuard.check(
            output.file.output, force: output.file.force,
            protecting: (db.map { [OutputGuard.database($0)] } ?? []) + inputs)
        if db == nil, traceUser != nil || traceDay != nil {
            throw ValidationError("--trace-user and --trace-day need --db (the database that holds the user)")
        }
    }

    func run() throws {
        if printTimelineUser { return print(try Merge.timelineUser(of: partials, traceUser: traceUser)) }
        var request = MergeRequest(partials: partials, database: db)
        request.traceUser = traceUser
        request.traceDay = traceDay
        let outcome = try Merge.run(request)
        for warning in outcome.warnings { Terminal.warning(warning) }
        let report = outcome.report
        guard !report.scoredNothing else { throw CommandFailure("\(partials[0]): the partials scored no launch") }
        let rules = report.settings.platformRules
        if let note = CompareRenderer.platformNote(rules, inputs: outcome.inputs) { Terminal.note(note) }
        let stored =
            store.noStore || db == nil
            ? .skipped
            : RunRecorder.store(report, command: "merge", path: db!, perUser: outcome.perUser, messages: .terminal)
        try output.emit(
            report, runID: stored.id, source: db ?? partials.joined(separator: ", "),
            platformInputs: rules.kind == .none ? nil : outcome.inputs, perUser: outcome.perUser)
        try stored.requireStored()
    }
}
