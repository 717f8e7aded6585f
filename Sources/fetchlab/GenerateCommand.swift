import ArgumentParser
import FetchLabCore
import FetchLabDatasets
import FetchLabReport
import FetchLabSynth
import FetchLabTerminal
import FetchLabWorkflows
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

    /// The largest population: 10,000,000 user-days, so that the fleet benchmark's 100,000 users ×
    /// 90 days fit (a user-day is about 0.6 kB of gzip'd output, so about 6 GB in all, and 0.3 ms
    /// of a core in a debug build); 3,660 days (ten years) hold one user's simulated history (some
    /// 400 MB) in memory per core.
    static let maxUsers = 1_000_000
    static let maxDays = 3_660
    static let maxUserDays = 10_000_000
    static let firstStart = CivilDate(year: 1970, month: 1, day: 1)
    static let lastStart = CivilDate(year: 2200, month: 12, day: 31)

    @Option(parsing: .unconditional, help: "Number of users (1 to 1,000,000; users × days at most 10,000,000).")
    var users = 25

    @Option(parsing: .unconditional, help: "Number of days (1 to 3,660).")
    var days = 42

    @Option(
        parsing: .unconditional, help: "Random seed, 0 to 18446744073709551615: the same seed gives the same files.")
    var seed: UInt64 = 1

    @Option(help: "First day (local date, YYYY-MM-DD, 1970-01-01 to 2200-12-31).")
    var start = CivilDate(year: 2024, month: 3, day: 4)

    @Option(name: [.short, .long], help: "Directory to write into (created if needed).")
    var output: String?

    @Flag(help: "Replace the population files when --output already holds them.")
    var force = false

    @Option(help: "A JSON file of population parameters overriding the defaults (see --print-config).")
    var config: String?

    @Flag(
        help: """
            Add signals that precede use: unlocks (and the screen on) before 80 % of sessions, a \
            notification before 25 % of session-opening launches, 3 unfollowed notifications and 4 \
            glances a day (PopulationConfig.withSignals; --config may override each).
            """)
    var signals = false

    @Option(parsing: .unconditional, help: "gzip level, 1 (fastest) to 9 (smallest).")
    var level: Int32 = 6

    @Flag(help: "Print the population parameters (defaults merged with --config) as JSON and exit.")
    var printConfig = false

    @Option(help: "Output: text or json.")
    var format: OutputFormat = .text

    func validate() throws {
        if let output, output.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw ValidationError("--output '\(output)': give a directory to write into")
        }
        if let output, !force {
            for file in PopulationWriter.files {
                let path = URL(fileURLWithPath: output).appendingPathComponent(file).path
                guard FileManager.default.fileExists(atPath: path) else { continue }
                throw ValidationError(
                    "--output \(output): \(file) exists there; pass --force to replace the population (or choose another directory)"
                )
            }
        }
        try Bounds.check("--users", users, 1...Self.maxUsers)
        try Bounds.check("--days", days, 1...Self.maxDays)
        try Bounds.check("--level", level, 1...9)
        try Bounds.check("--start", start, Self.firstStart...Self.lastStart)
        guard users * days <= Self.maxUserDays else {
            throw ValidationError(
                "--users \(users) × --days \(days) is \(Format.count(users * days)) user-days: "
                    + "expected at most \(Format.count(Self.maxUserDays)) (fewer users or days)"
            )
        }
    }

    func run() throws {
        let population = try Generation.population(signals: signals, config: config)
        if printConfig {
            print(Format.json(population))
            return
        }
        guard let output else { throw ValidationError("Missing --output DIR (where to write the files).") }
        SignalCleanup.install { PartialFiles.shared.removeAllNow() }
        var options = GenerateOptions(users: users, days: days, seed: seed, startDay: start.daysSince1970)
        options.config = population
        options.level = level
        options.command = recordedCommand()
        let bar = ProgressBar(total: users, unit: "users", visible: Terminal.stderrIsTerminal && format == .text)
        defer { bar.finish() }
        let summary = try Generation.write(options, to: output) { bar.update(done: $0) }
        switch format {
        case .json: print(Format.json(summary))
        case .text: print(GenerateRenderer.text(summary, output: output))
        }
    }

    /// The command that reproduces the files (without --output: any directory gives the same bytes).
    func recordedCommand() -> String {
        var parts = ["fetchlab generate", "--users \(users)", "--days \(days)", "--seed \(seed)", "--start \(start)"]
        if level != 6 { parts.append("--level \(level)") }
        if signals { parts.append("--signals") }
        if let config { parts.append("--config \((config as NSString).lastPathComponent)") }
        return parts.joined(separator: " ")
    }
}
