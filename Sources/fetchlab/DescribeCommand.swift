import ArgumentParser
import FetchLabReport
import FetchLabTerminal
import FetchLabWorkflows

struct DescribeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "describe",
        abstract:
            "How predictable the launches are: launch classes, same-app gaps, sessions, launch rates, regularity, weekday against weekend, hour-of-day entropy, transitions.",
        discussion: """
            Statistics of the launches of every user in the database, pooled over users (or of the users named \
            with --user), on each launch's local clock. The README's "fetchlab describe" section defines each one.
            """
    )

    @OptionGroup var database: DatabaseOptions

    @Option(name: .customLong("user"), help: "Only this user (repeat for several).")
    var users: [String] = []

    @Flag(help: "Also describe each user on their own (one row per user).")
    var perUser = false

    @Option(help: "Output: text or json.")
    var format: OutputFormat = .text

    func run() throws {
        let bar = ProgressBar(total: 0, unit: "users", visible: Terminal.stderrIsTerminal && format == .text)
        let outcome = try Description.run(
            users: users, perUser: perUser, batches: try HistoryBatches(path: database.db),
            progress: { done, total in
                bar.extend(total: total)
                bar.update(done: done)
            })
        bar.finish()
        let report = DescribeReport(
            population: outcome.population,
            perUser: outcome.perUser.map { DescribeReport.UserRow(user: $0, statistics: $1) },
            signals: outcome.signals, ceilings: outcome.ceilings)
        switch format {
        case .json: print(Format.json(report))
        case .text: print(DescribeRenderer.text(report))
        }
    }
}
