import ArgumentParser
import FetchLabIngest
import FetchLabReport
import FetchLabResults
import FetchLabScale
import FetchLabSimulation
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How a comparison is printed (`compare`, `demo`, `runs show`): the format, and where to.
struct ReportOutputOptions: ParsableArguments {
    @Option(help: "Output: table, markdown, json, csv or html (a self-contained report; best with --output).")
    var format: CompareFormat = .table

    @OptionGroup var file: OutputFileOptions

    @Option(help: "Order of the table: band (fresh@τ within budget bands), fresh, share, fetches, energy or given.")
    var sort: CompareSort = .band

    @Flag(
        help:
            "Show every column of the table (fresh@5/15/60 min, staleness, waste, battery, data, skips); by default it keeps to 120 columns."
    )
    var wide = false

    /// The report in the chosen format (JSON with `run_id` when the run is stored, and
    /// `platform_inputs` when given); `source` names the data in the HTML report.
    func render(
        _ report: ComparisonReport, runID: Int64?, source: String = "", platformInputs: PlatformInputs? = nil
    ) -> String {
        switch format {
        case .html: HTMLReport.render(report, source: source)
        case .table, .text: CompareRenderer.text(report, sort: sort, wide: wide)
        case .markdown: CompareRenderer.markdown(report, sort: sort)
        case .json: CompareRenderer.json(report, runID: runID, platformInputs: platformInputs)
        case .csv: CompareRenderer.csv(report)
        }
    }

    /// Prints `text` (and a line break) on stdout, or writes it to `--output`.
    func emit(_ text: String) throws { try file.emit(text) }

    /// Renders and emits `report`; in JSON, spooled per-user rows are spliced in as they are read
    /// back (`PerUserRows.writeJSON(_:to:)`), so that the output is never one string in memory.
    func emit(
        _ report: ComparisonReport, runID: Int64?, source: String = "", platformInputs: PlatformInputs? = nil,
        perUser spool: (any PerUserRows)?
    ) throws {
        let text = render(report, runID: runID, source: source, platformInputs: platformInputs)
        guard format == .json, let spool else { return try emit(text) }
        let produce = { (write: (String) throws -> Void) throws in
            try spool.writeJSON(text, to: write)  // a SpoolError is reported at the root
            try write("\n")
        }
        guard let output = file.output else {
            try produce { print($0, terminator: "") }
            return
        }
        try AtomicFile.write(to: output) { put in try produce { try put(Array($0.utf8)) } }
    }

}

/// Where a command's output goes: standard output, or `--output` (an existing file only with
/// `--force`), under the output rule (``OutputFile``).
struct OutputFileOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Write the output to this file instead of standard output (an existing file only with --force).",
            valueName: "file"))
    var output: String?

    @Flag(help: "Replace the --output (or --partial) file when it exists (without it, an existing file is refused).")
    var force = false

    /// Refuses `--output` under the output rule (``OutputFile``) before any work, the database
    /// protected; `others` (`--partial`) the same way.
    func checkOutputs(database: String?, also others: [(option: String, file: String?)] = []) throws {
        let protected = database.map { [OutputGuard.database($0)] } ?? []
        try OutputGuard.check(output, force: force, protecting: protected)
        for (option, file) in others {
            try OutputGuard.check(file, option: option, force: force, protecting: protected)
        }
    }

    /// Prints `text` (and a line break) on stdout, or writes it to `--output`.
    func emit(_ text: String) throws {
        guard let output else {
            print(text)
            return
        }
        try AtomicFile.write(text + "\n", to: output)
    }
}

extension CompareSort: CaseInsensitiveArgument {}

enum CompareFormat: String, CaseInsensitiveArgument {
    case table, markdown, json, csv, html, text
    static var allValueStrings: [String] { ["table", "markdown", "json", "csv", "html"] }
}
