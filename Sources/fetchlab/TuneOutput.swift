import ArgumentParser
import FetchLabReport
import FetchLabResults
import FetchLabSimulation
import FetchLabWorkflows
import Foundation

/// How a tuning run is printed (`tune`, `runs show-tune`): the format, and where to.
struct TuneOutputOptions: ParsableArguments {
    @Option(help: "Output: table, markdown, json, csv or html (a self-contained page; best with --output).")
    var format: TuneFormat = .table

    @OptionGroup var file: OutputFileOptions

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

    /// What `tune --shard` made, in a line (JSON with `--format json`).
    static func shardLine(_ made: Tuning.ShardOutcome, json: Bool) -> String {
        if json {
            struct Line: Encodable {
                var shard: String
                var partial: String
                var settings: Int
                var folds: Int
                var users: [Int]
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let line = Line(
                shard: made.shard.description, partial: made.path, settings: made.settings, folds: made.folds,
                users: made.users)
            return String(decoding: (try? encoder.encode(line)) ?? Data(), as: UTF8.self)
        }
        let users = made.users.map { TextFormat.counted($0, "training user") }.joined(separator: ", ")
        return "shard \(made.shard): \(made.settings) settings and the fixed intervals replayed on \(users)"
            + "\(made.folds > 1 ? " (\(made.folds) folds)" : ""); partial written to \(made.path) "
            + "(tune --search-from with every shard's partial finishes the tune)"
    }

    /// Prints `text` on stdout, or writes it to `--output`.
    func emit(_ text: String) throws { try file.emit(text) }
}

enum TuneFormat: String, CaseInsensitiveArgument {
    case table, markdown, json, csv, html
}
