import ArgumentParser
import FetchLabPredict
import FetchLabReport
import FetchLabResults
import FetchLabTerminal
import FetchLabWorkflows

struct EvaluatePredictorsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "evaluate-predictors",
        abstract: "Rolling-origin evaluation of every predictor on the database.",
        discussion: """
            For each user: a warm-up, then forecasts every few local hours of the next 24 h from \
            what came before only; the blend's weights are fitted on the first half of the evaluated \
            days and every score is measured on the second half (held-out time). Next-use error (the \
            forecast's median vs the actual next launch of the app), hits of the midnight plans \
            (a launch within ±15 min of a planned use), calibration of P(use within 1 h) (Brier, \
            reliability), the planned fetches' p (the chance of a launch within the freshness window \
            after each fetch, calibrated per predictor on the first half) against what happened, \
            next-app HR@1, HR@5 and MRR; and the learned family's model on its own question (a \
            launch within τ, asked at every moment a policy may act): Brier, reliability, HR@1/HR@5/MRR \
            of the next launch that needs a fetch. With --truth (a generator's truth.json), also \
            how well the plans recover the true routine times.
            """
    )

    @OptionGroup var database: DatabaseOptions

    @Option(
        parsing: .unconditional, help: "Evaluate at most this many users (evenly spread; 0 = all; at most 1,000,000).")
    var users = 0

    @Option(parsing: .unconditional, help: "Days of each user's log used only for learning (0 to 3,660).")
    var warmUp = 7

    @Option(parsing: .unconditional, help: "Forecast origins every this many hours (1 to 24).")
    var every = 3

    @Option(help: "A truth.json from fetchlab generate: also score the recovered habit times.")
    var truth: String?

    @OptionGroup var prediction: PredictionOptions

    @Option(help: "Output: text or json.")
    var format: OutputFormat = .text

    func validate() throws {
        try prediction.check()
        try Bounds.check("--users", users, 0...1_000_000)
        try Bounds.check("--warm-up", warmUp, 0...3_660)
        try Bounds.check("--every", every, 1...24)
    }

    func run() throws {
        var options = EvaluationOptions()
        options.planner = prediction.planner
        options.warmUpDays = warmUp
        options.originEveryHours = every
        let peaks = try truth.map { try PredictorEvaluation.truth(at: $0) }
        let report = try PredictorEvaluation.run(
            options, users: users, truth: peaks, batches: try HistoryBatches(path: database.db)
        ) { count in
            if Terminal.stderrIsTerminal && format == .text { Terminal.note("evaluating \(count) users …") }
        }
        switch format {
        case .json: print(Format.json(report))
        case .text: print(EvaluationRenderer.text(report))
        }
    }
}
