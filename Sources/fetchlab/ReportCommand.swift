import ArgumentParser
import FetchLabIngest
import FetchLabReport
import FetchLabScale
import FetchLabWorkflows

/// `fetchlab report`: a stored comparison as one self-contained HTML file, without replaying.
struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Write a stored comparison run as a self-contained HTML report.",
        discussion: """
            The report of run --run (default: the latest run in the database), built from what \
            compare stored, so nothing is replayed: what was compared and the recommended policy, \
            the ranked table, freshness against energy with the Pareto front, gap closed against \
            fetches per day per family with the clairvoyant frontier, the per-app breakdown, one \
            user's day on a timeline, skips by reason and the staleness at launch; then, when the \
            database holds a tuning run (fetchlab tune), the latest one: the settings tried, the \
            held-out comparison with the best fixed interval and the platform settings. One file, no \
            network requests, light and dark.
            """
    )

    @OptionGroup var database: DatabaseOptions

    @Option(name: .customLong("run"), help: "The run (see fetchlab runs; default: the latest).")
    var runID: Int64?

    @Option(help: ArgumentHelp("The HTML file to write (an existing file only with --force).", valueName: "file"))
    var output = "report.html"

    @Flag(help: "Replace the --output file when it exists (without it, an existing file is refused).")
    var force = false

    func run() throws {
        // The inputs first (the database, its run), then the output: a missing run is the error to
        // see, not the report.html of an earlier run.
        let (id, report, tuning) = try StoredRuns.reportInputs(run: runID, database: database.db).parts
        try OutputGuard.check(output, force: force, protecting: [OutputGuard.database(database.db)])
        try AtomicFile.write(
            HTMLReport.render(report, source: database.db, tuning: tuning.map { ($0.result, $0.platform) }),
            to: output)
        print("run \(id)\(tuning.map { " and tuning run \($0.id)" } ?? "") of \(database.db) → \(output)")
    }
}
