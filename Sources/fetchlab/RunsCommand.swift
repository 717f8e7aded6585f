import ArgumentParser
import FetchLabReport
import FetchLabWorkflows

/// `fetchlab runs`: the comparisons stored in the database, and one of them again.
struct RunsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "runs",
        abstract: "List the comparison and tuning runs stored in the database, or print one again.",
        discussion: """
            Every `fetchlab compare` and `fetchlab demo` stores its run: the settings, each policy's \
            metrics, per app and per user, in the tables run, run_policy, run_policy_app and \
            run_policy_user (views runs, run_policies, run_policy_apps, run_policy_users for SQL). \
            `fetchlab runs show N` prints run N as compare printed it. Every `fetchlab tune` stores a \
            tuning run (numbered apart: tables tune_run and tune_setting, views tune_runs and \
            tune_settings); `fetchlab runs show-tune N` prints tuning run N as tune printed it. \
            `fetchlab runs delete N…` deletes runs; `fetchlab runs diff A B` compares two runs policy by policy.
            """,
        subcommands: [List.self, Show.self, ShowTune.self, Delete.self, Diff.self],
        defaultSubcommand: List.self
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the stored runs, oldest first: comparisons, then tuning runs (when there are any).")

        @OptionGroup var database: DatabaseOptions

        @Option(help: "Output: table or json.")
        var format: RunsFormat = .table

        func run() throws {
            let stored = try StoredRuns.list(database: database.db)
            switch format {
            case .json: print(Format.json(RunsRenderer.JSON(runs: stored.runs, tuningRuns: stored.tuningRuns)))
            case .table, .text: print(RunsRenderer.text(stored.runs, tuning: stored.tuningRuns, database: database.db))
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print a stored run as compare printed it.")

        @OptionGroup var database: DatabaseOptions

        @Argument(help: "The run's id (see fetchlab runs).")
        var id: Int64

        @OptionGroup var output: ReportOutputOptions

        func validate() throws {
            try output.file.checkOutputs(database: database.db)
        }

        func run() throws {
            let report = try StoredRuns.run(id, database: database.db)
            try output.emit(output.render(report, runID: id, source: database.db))
        }
    }
}

extension RunsCommand {
    struct ShowTune: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show-tune", abstract: "Print a stored tuning run as tune printed it.")

        @OptionGroup var database: DatabaseOptions

        @Argument(help: "The tuning run's id (see fetchlab runs).")
        var id: Int64

        @OptionGroup var output: TuneOutputOptions

        func validate() throws {
            try output.file.checkOutputs(database: database.db)
        }

        func run() throws {
            let stored = try StoredRuns.tuningRun(id, database: database.db)
            try output.emit(output.render(stored.result, platform: stored.platform, runID: id, source: database.db))
        }
    }
}

enum RunsFormat: String, CaseInsensitiveArgument {
    case table, json, text
    static var allValueStrings: [String] { ["table", "json"] }
}
