import ArgumentParser
import FetchLabCore
import FetchLabSimulation
import FetchLabTerminal
import FetchLabWorkflows
import Foundation

@main
struct FetchLabCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetchlab",
        abstract:
            "Usage-predictive background-fetch analytics: import usage logs, learn their habits, compare fetch policies.",
        discussion: """
            The commands in the order of a session: demo (the bundled sample, imported and compared \
            in one go); import (usage, device-context and content-update logs) or generate (a \
            synthetic population); inspect and describe (what the logs hold, how predictable they \
            are); predict and evaluate-predictors (a user's next uses, every predictor measured); \
            compare (fetch policies replayed and scored), merge (a comparison's shards, replayed \
            apart, combined into one run) and tune (a family's parameters tuned); runs and report (the \
            stored runs, again or as an HTML page).
            """,
        version: RunRecorder.fetchlabVersion,
        subcommands: [
            DemoCommand.self, ImportCommand.self, InspectCommand.self, GenerateCommand.self, PredictCommand.self,
            DescribeCommand.self, EvaluatePredictorsCommand.self, CompareCommand.self, MergeCommand.self,
            TuneCommand.self,
            RunsCommand.self, ReportCommand.self,
        ]
    )

    /// Parses and runs a command. Help and version print as usual; every error is one line on
    /// stderr (`fetchlab: error: …`) with the exit code of its kind (see ``Exit``): usage errors
    /// name the option at fault instead of repeating the usage text.
    static func main() {
        Terminal.checkStandardStreams()
        // The learned model's resolved trials, for Benchmarks/fit-learned-weights.sh: one write per
        // line, so that lines of users replayed in parallel do not interleave.
        if ProcessInfo.processInfo.environment["FETCHLAB_LEARNED_TRIALS"] == "1" {
            TrialLog.install { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }
        }
        do {
            var command = try parseAsRoot()
            // Every command's failures are reported here, once: one line, the exit code of its kind.
            try Exit.reporting { try command.run() }
            Terminal.finishOutput()
        } catch {
            let code = exitCode(for: error)
            if error is CleanExit || code == .success { exit(withError: error) }
            var message = Exit.oneLine(for: error)
            if code == .validationFailure { message = Exit.suggestingCommand(message) }
            if !message.isEmpty { Terminal.error(message) }
            Terminal.finishOutput()
            Foundation.exit(code.rawValue)
        }
    }
}

/// Options every command that opens the database shares.
struct DatabaseOptions: ParsableArguments {
    @Option(name: .long, help: "The SQLite database.")
    var db = "fetchlab.sqlite"
}

/// How results are printed.
enum OutputFormat: String, CaseInsensitiveArgument {
    case text, json
}
