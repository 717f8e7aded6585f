import ArgumentParser
import FetchLabCore
import FetchLabPredict
import FetchLabStore
import FetchLabSynth
import Foundation

struct EvaluatePredictorsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "evaluate-predictors",
        abstract: "Rolling-origin evaluation of every predictor on the database.",
        discussion: """
            For each user: a warm-up, then forecasts every few local hours of the next 24 h from
            what came before only; the blend's weights are fitted on the first half of the evaluated
            days and every score is measured on the second half (held-out time). Next-use error (the
            forecast's median vs the actual next launch of the app), hits of the midnight plans
            (a launch within ±15 min of a planned use), calibration of P(use within 1 h) (Brier,
            reliability), next-app HR@1, HR@5 and MRR. With --truth (a generator's truth.json), also
            how well the plans recover the true routine times.
            """
    )

    @OptionGroup var database: DatabaseOptions

    @Option(help: "Evaluate at most this many users (evenly spread; 0 = all).")
    var users = 0

    @Option(help: "Days of each user's log used only for learning.")
    var warmUp = 7

    @Option(help: "Forecast origins every this many hours.")
    var every = 3

    @Option(help: "A truth.json from fetchlab generate: also score the recovered habit times.")
    var truth: String?

    @OptionGroup var prediction: PredictionOptions

    @Option(help: "Output: text or json.")
    var format: OutputFormat = .text

    func run() throws {
        var options = EvaluationOptions()
        options.planner = try prediction.planner()
        options.warmUpDays = warmUp
        guard (1...24).contains(every) else { throw ValidationError("--every must be 1…24 hours") }
        options.originEveryHours = every
        let peaks = try truth.map { try TruthPeaks(path: $0) }
        let store = try HistoryLoader.open(database.db)
        let queries = UsageQueries(database: store)
        let histories: [UserHistory]
        do {
            histories = try HistoryLoader.histories(queries, limit: users)
        } catch {
            Terminal.error("\(error)")
            throw ExitCode(1)
        }
        guard !histories.isEmpty else {
            Terminal.error("\(database.db): no launches to evaluate (import some usage logs first)")
            throw ExitCode(1)
        }
        if Terminal.stderrIsTerminal && format == .text {
            Terminal.note("evaluating \(histories.count) users …")
        }
        let truthFunction: (@Sendable (String, Int) -> [TruePeak])? = peaks.map { p in
            let index = Dictionary(uniqueKeysWithValues: histories.map { ($0.user.name, $0.apps.map(\.name)) })
            return { user, day in p.peaks(user: user, day: day, apps: index[user] ?? []) }
        }
        let report = Evaluator(options: options).evaluate(histories, truth: truthFunction)
        switch format {
        case .json:
            print(Format.json(report))
        case .text:
            print(EvaluationRenderer.text(report))
        }
    }
}

/// Routine peaks from a generator's truth.json, by user and local day.
struct TruthPeaks: Sendable {
    let startDay: Int
    let users: [String: UserTruth]

    init(path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ValidationError("--truth: cannot read \(path)")
        }
        let file: TruthFile
        do { file = try JSONDecoder().decode(TruthFile.self, from: data) } catch {
            throw ValidationError("--truth: \(path) is not a fetchlab generate truth file")
        }
        guard let start = file.startDay else { throw ValidationError("--truth: bad start date in \(path)") }
        startDay = start
        users = Dictionary(file.users.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
    }

    /// The habitual routine times (peaks with probability ≥ 0.5) of `user` on a local day.
    func peaks(user: String, day: Int, apps: [String]) -> [TruePeak] {
        guard let u = users[user] else { return [] }
        return u.routinePeaks(onDay: day - startDay, weekend: LocalCalendar.isWeekend(day)).compactMap { p in
            apps.firstIndex(of: p.app).map { TruePeak(app: Int32($0), minute: p.minute) }
        }
    }
}

enum EvaluationRenderer {
    static func f(_ x: Double?, _ digits: Int = 1) -> String { x.map { String(format: "%.\(digits)f", $0) } ?? "–" }
    static func pct(_ x: Double?) -> String { x.map { String(format: "%.0f%%", $0 * 100) } ?? "–" }

    static func text(_ r: EvaluationReport) -> String {
        var lines: [String] = []
        lines.append(
            "\(r.users) users, \(Format.count(r.launches)) launches; scores on \(Format.count(r.heldOutDays)) held-out user-days "
                + "(origins every \(r.options.originEveryHours) h, warm-up \(r.options.warmUpDays) d)")
        let weights = r.blendWeights.sorted { $0.value > $1.value }.map {
            "\($0.key) \(String(format: "%.1f", $0.value))"
        }
        lines.append("blend weights (fitted on the first half): " + weights.joined(separator: ", "))
        let nextApp = r.nextAppWeights.sorted { $0.value > $1.value }.map {
            "\($0.key) \(String(format: "%.1f", $0.value))"
        }
        lines.append("blend next-app weights: " + nextApp.joined(separator: ", "))
        lines.append("")
        let header = [
            ("predictor", 20, false), ("MAE min", 8, true), ("median", 7, true), ("hit±15", 7, true),
            ("cover", 6, true),
            ("fetch/d", 8, true), ("Brier", 7, true), ("HR@1", 6, true), ("HR@5", 6, true), ("MRR", 6, true),
        ]
        let hasTruth = r.scores.contains { $0.truthPeaks > 0 }
        var head = header.map { Format.pad($0.0, $0.1, right: $0.2) }.joined(separator: " ")
        if hasTruth { head += "  truth: found  median" }
        lines.append(head)
        for s in r.scores {
            var cells = [
                Format.pad(s.name, 20), Format.pad(f(s.meanAbsErrorMinutes), 8, right: true),
                Format.pad(f(s.medianAbsErrorMinutes), 7, right: true), Format.pad(pct(s.hitRate), 7, right: true),
                Format.pad(pct(s.coverage), 6, right: true), Format.pad(f(s.fetchesPerAppDay, 2), 8, right: true),
                Format.pad(f(s.brier, 3), 7, right: true), Format.pad(f(s.hr1, 3), 6, right: true),
                Format.pad(f(s.hr5, 3), 6, right: true), Format.pad(f(s.mrr, 3), 6, right: true),
            ].joined(separator: " ")
            if hasTruth {
                let found = s.truthPeaks > 0 ? Double(s.truthFound) / Double(s.truthPeaks) : nil
                cells +=
                    "  " + Format.pad(pct(found), 12, right: true)
                    + Format.pad(f(s.truthMedianErrorMinutes), 8, right: true)
            }
            lines.append(cells)
        }
        if let blend = r.scores.first, !blend.reliability.isEmpty {
            lines.append("")
            lines.append("reliability of the blend's P(use within \(Int(r.options.calibrationMinutes)) min):")
            for b in blend.reliability {
                lines.append(
                    "  \(f(b.from)) – \(f(b.to))  \(Format.pad(Format.count(b.count), 8, right: true)) forecasts  "
                        + "predicted \(f(b.meanPredicted, 3))  observed \(f(b.observed, 3))")
            }
        }
        lines.append("")
        lines.append(
            "MAE/median: minutes between the forecast's median next use and the actual one (app used within 24 h). "
                + "hit±15: planned uses with a launch within 15 min; cover: launches within 15 min of a planned use.")
        return lines.joined(separator: "\n")
    }
}
