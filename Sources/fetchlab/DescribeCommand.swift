import ArgumentParser
import FetchLabCore
import FetchLabPredict
import FetchLabReport
import FetchLabSimulation
import FetchLabStore
import FetchLabWorkflows
import Foundation

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
        let queries = try HistoryBatches(path: database.db).queries
        let everyone = try queries.usersWithLaunches()
        let known = Set(everyone.map(\.name))
        if let missing = users.first(where: { !known.contains($0) }) {
            throw CommandFailure("\(database.db): \(PredictionError.unknown(missing, among: everyone.map(\.name)))")
        }
        var seen: Set<String> = []
        let names = users.isEmpty ? everyone : users.filter { seen.insert($0).inserted }.map { UserID($0) }
        guard !names.isEmpty else {
            throw CommandFailure("\(database.db): no launches to describe (import some usage logs first)")
        }
        var report = try describe(names, queries)
        report.signals = try queries.signalCounts(users: users.isEmpty ? [] : names.map(\.name))
        switch format {
        case .json: print(Format.json(report))
        case .text: print(DescribeRenderer.text(report))
        }
    }

    /// Users in batches: tallied on all cores, merged in order.
    private func describe(_ names: [UserID], _ queries: UsageQueries) throws -> DescribeReport {
        var total = UsageDescription.Tally()
        var ceilings = SignalCeilingSums()
        var rows: [DescribeReport.UserRow] = []
        let bar = ProgressBar(total: names.count, unit: "users", visible: Terminal.stderrIsTerminal && format == .text)
        defer { bar.finish() }
        try HistoryBatches(queries: queries).map(names, progress: { done, _ in bar.update(done: done) }) {
            (UsageDescription.Tally($0), SignalCeilingSums($0))
        } consume: { h, sums in
            let (tally, ceiling) = sums
            total.merge(tally)
            ceilings.merge(ceiling)
            if perUser { rows.append(DescribeReport.UserRow(user: h.user.name, statistics: tally.description)) }
        }
        let rules = EvaluationProtocol()
        return DescribeReport(
            population: total.description, perUser: rows,
            ceilings: ceilings.ceilings(tau: rules.primaryTau, launchRefreshes: rules.launchRefreshes))
    }
}
