import ArgumentParser
import FetchLabCore
import FetchLabIngest
import FetchLabReport
import FetchLabScale
import FetchLabTerminal
import FetchLabWorkflows
import Foundation

/// `fetchlab demo`: the bundled sample imported, the policies compared, the table printed.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Import the bundled sample population and compare the fetch policies on it.",
        discussion: """
            Imports Datasets/sample (25 synthetic users × 42 days: launches, device context, content \
            updates) into a new database (a temporary one unless --db), replays the default policies \
            as `fetchlab compare` does, stores the run and prints the ranked table, then where the database \
            is, for `fetchlab inspect`, `predict`, `evaluate-predictors`, `compare --format json` and \
            `runs`. The sample is found from any directory (see --data). It never replaces a file \
            silently: an existing --db, the report.html next to it or --output is refused unless \
            --force (which starts the demo database afresh); without --db every demo uses a new \
            temporary directory, so it runs any number of times in a row.
            """
    )

    @Option(help: "The database to import into (default: a new one in a temporary directory).")
    var db: String?

    @Option(
        name: .customLong("data"),
        help: """
            The sample to import (default: the bundled sample: Datasets/sample here, else next to the \
            binary, else in the repository it was built from).
            """)
    var dataOption: String?

    /// Where the sample is: `--data`, else the bundled sample's first place that holds it.
    var data: String { dataOption ?? BundledSample.locate() ?? BundledSample.relative }

    @OptionGroup var output: ReportOutputOptions

    @OptionGroup(title: "Budgets") var budget: BudgetOptions

    /// The output must not land on the database or a sample file, nor the report on the database.
    func validate() throws {
        try budget.check()
        var protected: [OutputGuard.Protected] = []
        if let db {
            protected.append(OutputGuard.database(db))
            let html = URL(fileURLWithPath: db).deletingLastPathComponent().appendingPathComponent("report.html").path
            if OutputGuard.resolved(html) == OutputGuard.resolved(db) {
                throw ValidationError(
                    "--db \(db): the demo writes report.html next to the database, over it — name the database otherwise"
                )
            }
        }
        for file in (try? InputFiles.expand([data])) ?? [] {
            protected.append(OutputGuard.Protected(path: "\(file)", what: "a sample file", database: false))
        }
        try OutputGuard.check(output.file.output, force: output.file.force, protecting: protected)
        if let db {
            try OutputGuard.refuseExisting(db, option: "--db", force: output.file.force)
            // The report is written next to the database for the table only.
            if output.format == .table || output.format == .text {
                let report = URL(fileURLWithPath: db).deletingLastPathComponent().appendingPathComponent("report.html")
                try OutputGuard.refuseExisting(report.path, option: "--db \(db): its report", force: output.file.force)
            }
        }
    }

    func run() throws {
        let data = try BundledSample.directory(given: dataOption)
        var request = Demo.Request(sample: data, database: db)
        request.fresh = output.file.force  // --force: the demo database starts afresh
        (request.budgets, request.resamples, request.bootstrapSeed) = (
            try budget.budgets(), budget.resamples, budget.bootstrapSeed
        )
        let table = output.format == .table || output.format == .text
        request.tuning = table
        let imported = { (rows: Int, path: String) in "imported \(Format.counted(rows, "row")) of \(data) into \(path)"
        }
        let outcome = try Demo.run(
            request, importing: ProgressBar(unit: "files"),
            comparing: Terminal.stderrIsTerminal ? ProgressBar(unit: "users") : nil
        ) { event in
            switch event {
            case .imported(let rows, let path) where table && output.file.output == nil:
                // Said now, before the comparison's own lines on stderr (`run 1 stored`).
                print(TextFormat.wrap(imported(rows, path)).joined(separator: "\n") + "\n")
                fflush(nil)
            case .imported: break
            case .warning(let text): Terminal.warning(text)
            case .note(let text): Terminal.note(text)
            case .error(let text): Terminal.error(text)
            }
        }
        let (path, report, runID) = (outcome.database, outcome.report, outcome.recording.id)
        var text = output.render(report, runID: runID, source: data)
        if table {
            // The HTML report next to the database.
            let html = URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent("report.html")
                .path
            try AtomicFile.write(
                HTMLReport.render(report, source: data, tuning: outcome.tuning.map { ($0.result, $0.platform) }),
                to: html)
            let fetchlab = BundledSample.commandPrefix()
            var next = ["\(fetchlab) inspect --db \(path)", "\(fetchlab) compare --db \(path) --format json"]
            if let runID { next.append("\(fetchlab) runs show \(runID) --db \(path)") }
            let after =
                TextFormat.wrap(lines: [
                    "The report: \(html) (open it in a browser).", "The database stays at \(path); try:",
                ])
                + next.map { "  `\($0)`" }
            text =
                (output.file.output == nil
                    ? "" : TextFormat.wrap(imported(outcome.rows, path)).joined(separator: "\n") + "\n\n")
                + text + "\n\n" + after.joined(separator: "\n")
        }
        try output.emit(text)
        try outcome.recording.requireStored()
    }
}
