import ArgumentParser
import FetchLabReport
import FetchLabResults
import FetchLabSimulation

/// How a tuning run is printed (`tune`, `runs show-tune`): the format, and where to.
struct TuneOutputOptions: ParsableArguments {
    @Option(help: "Output: table, markdown, json, csv or html (a self-contained page; best with --output).")
    var format: TuneFormat = .table

    @Option(
        help: ArgumentHelp(
            "Write the output to this file instead of standard output (an existing file only with --force).",
            valueName: "file"))
    var output: String?

    @Flag(help: "Replace the --output file when it exists (without it, an existing file is refused).")
    var force = false

    func validate() throws {
        if let output { try ReportOutputOptions.checkWritable(output) }
    }

    /// The tuning run in the chosen format (JSON with `run_id` when it is stored); `source` names
    /// the data in the HTML page.
    func render(_ result: TuningResult, platform: [PlatformOutcome], runID: Int64?, source: String) -> String {
        switch format {
        case .table: TuningRenderer.text(result, platform: platform)
        case .markdown: TuningRenderer.markdown(result, platform: platform)
        case .json: TuningRenderer.json(result, platform: platform, runID: runID)
        case .csv: TuningRenderer.csv(result)
        case .html: HTMLReport.render(tuning: result, platform: platform, source: source)
        }
    }

    /// Prints `text` on stdout, or writes it to `--output`.
    func emit(_ text: String) throws { try ReportOutputOptions.emit(text, to: output) }
}

enum TuneFormat: String, CaseInsensitiveArgument {
    case table, markdown, json, csv, html
}
