import ArgumentParser
import FetchLabCore
import FetchLabDatasets
import FetchLabSynth
import Foundation

struct GenerateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Write a synthetic population's logs (usage, device context, content updates) and its truth.",
        discussion: """
            Writes usage.csv.gz, context.csv.gz and content.csv.gz in FetchLab's own formats, and \
            truth.json: every user's habits (routine times, spreads, weekday-only, drift), zone, trips, \
            vacations, days off, charging and Low Power Mode traits, Background App Refresh switches, \
            and each app's content-update process. The same options give byte-identical files.

            Population parameters have defaults (--print-config shows them); --config FILE overrides any.
            """
    )

    @Option(help: "Number of users.")
    var users = 25

    @Option(help: "Number of days.")
    var days = 42

    @Option(help: "Random seed: the same seed gives the same files.")
    var seed: UInt64 = 1

    @Option(help: "First day (local date, YYYY-MM-DD).")
    var start = CivilDate(year: 2024, month: 3, day: 4)

    @Option(name: [.short, .long], help: "Directory to write into (created if needed).")
    var output: String?

    @Option(help: "A JSON file of population parameters overriding the defaults (see --print-config).")
    var config: String?

    @Option(help: "gzip level, 1 (fastest) to 9 (smallest).")
    var level: Int32 = 6

    @Flag(help: "Print the population parameters (defaults merged with --config) as JSON and exit.")
    var printConfig = false

    @Option(help: "Output: text or json.")
    var format: OutputFormat = .text

    func run() throws {
        try Exit.reporting {
            var population = PopulationConfig()
            if let config {
                guard let data = FileManager.default.contents(atPath: config) else {
                    throw CommandFailure("\(config): cannot read the config file")
                }
                do throws(SynthError) { population = try PopulationConfig.decode(data) } catch {
                    throw CommandFailure("\(config): not a population config: \(error.message)")
                }
            }
            if printConfig {
                print(Format.json(population))
                return
            }
            guard let output else { throw ValidationError("Missing --output DIR (where to write the files).") }
            var options = GenerateOptions(users: users, days: days, seed: seed, startDay: start.daysSince1970)
            options.config = population
            options.level = level
            options.command = recordedCommand()
            let showProgress = Terminal.stderrIsTerminal && format == .text
            let total = users
            defer { if showProgress { Terminal.clearProgress() } }
            let writer = PopulationWriter(generator: try Generator(options: options))
            let summary = try writer.write(to: output) { done in
                if showProgress {
                    Terminal.progress(
                        "\(Terminal.bar(fraction: Double(done) / Double(total))) \(Format.count(done))/\(Format.count(total)) users"
                    )
                }
            }
            switch format {
            case .json: print(Format.json(summary))
            case .text: print(GenerateRenderer.text(summary, output: output))
            }
        }
    }

    /// The command that reproduces the files (without --output: any directory gives the same bytes).
    func recordedCommand() -> String {
        var parts = ["fetchlab generate", "--users \(users)", "--days \(days)", "--seed \(seed)", "--start \(start)"]
        if level != 6 { parts.append("--level \(level)") }
        if let config { parts.append("--config \((config as NSString).lastPathComponent)") }
        return parts.joined(separator: " ")
    }
}

extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
