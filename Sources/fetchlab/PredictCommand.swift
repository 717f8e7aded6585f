import ArgumentParser
import FetchLabCore
import FetchLabPredict
import FetchLabReport
import FetchLabSimulation
import FetchLabStore
import FetchLabTerminal
import FetchLabWorkflows
import Foundation

struct PredictCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "predict",
        abstract: "Predict a user's next uses of each app and plan fetch moments.",
        discussion: """
            Learns the user's launches before --at with every predictor and blends them (weights \
            fitted on up to 40 users' history before --at), then, for each app, lists the planned \
            fetches (a lead time before each likely use) or the expected next use. A fetch's p is the \
            chance of a launch within the freshness window after it, calibrated on how the blend's \
            plans for those users' days before --at turned out. --at defaults to the local midnight \
            after the user's last launch: the plan for the day after the log.
            """
    )

    @OptionGroup var database: DatabaseOptions

    @Option(help: "The user (or device) to predict for; without it, every user (a summary, or JSON lines).")
    var user: String?

    @Option(help: "Origin: ISO-8601 time (2024-04-15T08:00:00+02:00) or local time of the user (2024-04-15 8:00).")
    var at: OriginArgument?

    @Option(help: "Only this app.")
    var app: String?

    @Option(parsing: .unconditional, help: "How far ahead (e.g. 24h, 90m; 1m to 7d).")
    var horizon = DurationArgument(.hours(24))

    @OptionGroup var prediction: PredictionOptions

    @Option(help: "Output: text or json.")
    var format: OutputFormat = .text

    var request: PredictionRequest {
        // The forecast's grid is whole minutes.
        PredictionRequest(
            horizon: horizon.microseconds / .perMinute * .perMinute, planner: prediction.planner, app: app)
    }

    func validate() throws {
        try prediction.check()
        try Bounds.check("--horizon", horizon, Microseconds.perMinute...Microseconds.days(7))
        // A fetch planned a lead before a use must fall inside the forecast: a lead as long as the
        // horizon would plan every fetch before the origin (and none was ever shown).
        guard prediction.lead.microseconds < horizon.microseconds else {
            throw ValidationError(
                "--lead \(prediction.lead) must be shorter than --horizon \(horizon) "
                    + "(a fetch is planned that long before a use inside the horizon)")
        }
    }

    func run() throws {
        let batches = try HistoryBatches(path: database.db)
        guard let user else { return try predictEveryone(batches) }
        let outcome = try Prediction.run(user: user, at: at?.requested, request: request, batches: batches)
        if let warning = outcome.warning { Terminal.warning(warning) }
        let report = outcome.report
        switch format {
        case .json: print(Format.json(report))
        case .text: print(PredictionRenderer.text(report))
        }
    }

    /// Without `--user`: every user's plan (text: a summary; JSON: one report per line).
    private func predictEveryone(_ batches: HistoryBatches) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let bar = ProgressBar(total: 0, unit: "users", visible: Terminal.stderrIsTerminal && format == .text)
        let summary = try Prediction.runAll(
            request: request, batches: batches,
            progress: { done, total in
                bar.extend(total: total)
                bar.update(done: done)
            }
        ) { report in
            if format == .json { print(String(decoding: try encoder.encode(report), as: UTF8.self)) }
        }
        bar.finish()
        if let warning = summary.warning { Terminal.warning(warning) }
        if format == .text {
            print(
                PredictionRenderer.summary(
                    users: summary.users, launches: summary.launches, apps: summary.apps, fetches: summary.fetches,
                    fittedOn: summary.fittedOn, fitSeconds: summary.fitSeconds, totalSeconds: summary.totalSeconds))
        }
    }
}
