import ArgumentParser

@main
struct FetchLabCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetchlab",
        abstract:
            "Usage-predictive background-fetch analytics: import usage logs, inspect habits, generate populations.",
        version: "0.1.0",
        subcommands: [
            ImportCommand.self, InspectCommand.self, GenerateCommand.self, PredictCommand.self,
            EvaluatePredictorsCommand.self,
        ]
    )
}

/// Options every command that opens the database shares.
struct DatabaseOptions: ParsableArguments {
    @Option(name: .long, help: "The SQLite database.")
    var db = "fetchlab.sqlite"
}

/// How results are printed.
enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json
}
