import ArgumentParser
import FetchLabCore
import FetchLabIngest
import FetchLabPredict
import FetchLabStore
import Foundation

/// Loading histories and common prediction options.
struct PredictionOptions: ParsableArguments {
    @Option(help: "Plan each fetch this long before the expected use (e.g. 10m); must cover the fetch.")
    var lead = "10m"

    @Option(help: "Plan a fetch only for a use at least this likely (0–1).")
    var threshold = 0.5

    @Option(help: "Freshness window: uses this close share one fetch (e.g. 30m).")
    var freshness = "30m"

    func planner() throws -> FetchPlanner {
        var p = FetchPlanner()
        p.leadMinutes = Double(try ImportCommand.duration(lead, option: "--lead")) / 60e6
        p.threshold = threshold
        p.freshnessMinutes = Double(try ImportCommand.duration(freshness, option: "--freshness")) / 60e6
        let problems = p.problems()
        if !problems.isEmpty { throw ValidationError(problems.joined(separator: "; ")) }
        return p
    }
}

enum HistoryLoader {
    /// Up to `limit` users, evenly spread over the sorted list (deterministic).
    static func sample(_ users: [UserID], limit: Int) -> [UserID] {
        guard users.count > limit, limit > 0 else { return users }
        return (0..<limit).map { users[$0 * users.count / limit] }
    }

    /// Every user's history (or up to `limit` users, evenly spread; 0 = all).
    static func histories(_ queries: UsageQueries, limit: Int) throws(StoreError) -> [UserHistory] {
        var out: [UserHistory] = []
        for name in sample(try queries.usersWithLaunches(), limit: limit) {
            if let h = try queries.history(of: name) { out.append(h) }
        }
        return out
    }

    static func open(_ path: String) throws -> FetchLabDatabase {
        do {
            return try FetchLabDatabase(path: path, readOnly: true)
        } catch {
            Terminal.error(error.description)
            throw ExitCode(1)
        }
    }
}

struct PredictCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "predict",
        abstract: "Predict a user's next uses of each app and plan fetch moments.",
        discussion: """
            Learns the user's launches before --at with every predictor and blends them (weights
            fitted on up to 40 users' history before --at), then, for each app, lists the planned
            fetches (a lead time before each likely use) or the expected next use. --at defaults to
            the local midnight after the user's last launch: the plan for the day after the log.
            """
    )

    @OptionGroup var database: DatabaseOptions

    @Option(help: "The user (or device) to predict for; without it, every user (a summary, or JSON lines).")
    var user: String?

    @Option(help: "Origin: ISO-8601 time (2024-04-15T08:00:00+02:00) or local time of the user (2024-04-15 08:00).")
    var at: String?

    @Option(help: "Only this app.")
    var app: String?

    @Option(help: "How far ahead (e.g. 24h, 90m).")
    var horizon = "24h"

    @OptionGroup var prediction: PredictionOptions

    @Option(help: "Output: text or json.")
    var format: OutputFormat = .text

    func run() throws {
        let planner = try prediction.planner()
        let horizonMinutes = Int(try ImportCommand.duration(horizon, option: "--horizon") / 60_000_000)
        guard horizonMinutes >= 1 && horizonMinutes <= 7 * 1440 else {
            throw ValidationError("--horizon must be between 1 minute and 7 days")
        }
        let store = try HistoryLoader.open(database.db)
        let queries = UsageQueries(database: store)
        guard let user else {
            try predictAll(queries, planner: planner, horizonMinutes: horizonMinutes)
            return
        }
        do {
            guard let all = try queries.history(of: UserID(user)), !all.launches.isEmpty else {
                Terminal.error("\(database.db): no launches for user \"\(user)\"")
                throw ExitCode(1)
            }
            let lastOffset = Int64(all.lastOffset)
            let origin: Microseconds
            if let at {
                var parser = TimestampParser()
                let parsed: ParsedTimestamp
                do { parsed = try parser.parse(at) } catch {
                    throw ValidationError("--at: \(error)")
                }
                if parsed.utcOffsetSeconds != nil {
                    origin = parsed.microseconds
                } else {
                    // A local time: on the user's clock as it was then (the offset of the last
                    // launch before it), so a DST change or a trip since does not shift it.
                    let local = parsed.microseconds / 1_000_000
                    let then = all.launches.last { $0.localSeconds <= local }
                    let offset = then.map { Int64($0.offset) } ?? lastOffset
                    origin = parsed.microseconds - offset * 1_000_000
                }
            } else {
                origin = LocalCalendar.midnight(after: all.launches.last!.time, offset: Int32(lastOffset))
            }
            // What the user did before the origin, from the launches already loaded.
            let history = all.before(origin)
            guard !history.launches.isEmpty else {
                Terminal.error("\(database.db): user \"\(user)\" has no launches before the origin")
                throw ExitCode(1)
            }
            if let app, !history.apps.contains(AppID(app)) {
                Terminal.error("\(database.db): user \"\(user)\" has no launches of \(app) before the origin")
                throw ExitCode(1)
            }
            var fitting: [UserHistory] = []
            for name in HistoryLoader.sample(try queries.usersWithLaunches(), limit: 40) {
                if let h = try queries.history(of: name, before: origin), !h.launches.isEmpty {
                    fitting.append(h)
                }
            }
            var blend = Evaluator().fittedBlend(fitting)
            for l in history.launches { blend.observe(l) }
            let offset = history.launches.last!.offset
            var rows: [PredictionRow] = []
            for (i, name) in history.apps.enumerated() where app == nil || name.name == app {
                let f = blend.forecast(app: Int32(i), origin: origin, offset: offset, minutes: horizonMinutes)
                rows.append(PredictionRow(app: name.name, forecast: f, planner: planner))
            }
            rows.sort {
                ($0.fetches.first?.fetchAt ?? .max, -$0.probability) < (
                    $1.fetches.first?.fetchAt ?? .max, -$1.probability
                )
            }
            let report = PredictionReport(
                user: user, origin: origin, utcOffset: Int(offset), horizonMinutes: horizonMinutes,
                leadMinutes: planner.leadMinutes, threshold: planner.threshold,
                blendWeights: Dictionary(uniqueKeysWithValues: zip(blend.parts.map(\.name), blend.weights)), apps: rows)
            switch format {
            case .json:
                print(Format.json(report))
            case .text:
                print(PredictionRenderer.text(report))
            }
        } catch let error as StoreError {
            Terminal.error(error.description)
            throw ExitCode(1)
        }
    }
}

extension PredictCommand {
    /// Every user: the blend (weights fitted on up to 40 users) learns each user's whole log and
    /// plans the day after it. Text: a summary; JSON: one report per line.
    func predictAll(_ queries: UsageQueries, planner: FetchPlanner, horizonMinutes: Int) throws {
        let clock = ContinuousClock()
        let started = clock.now
        let names: [UserID]
        var fitting: [UserHistory] = []
        do {
            names = try queries.usersWithLaunches()
            for name in HistoryLoader.sample(names, limit: 40) {
                if let h = try queries.history(of: name) { fitting.append(h) }
            }
        } catch {
            Terminal.error("\(error)")
            throw ExitCode(1)
        }
        let template = Evaluator().fittedBlend(fitting)
        let fitted = clock.now - started
        var apps = 0
        var fetches = 0
        var launches = 0
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let showProgress = Terminal.stderrIsTerminal && format == .text
        // Users in batches: loading from SQLite on this thread, learning and planning on all cores.
        var next = 0
        while next < names.count {
            let batch = Array(names[next..<min(names.count, next + 256)])
            var histories: [UserHistory] = []
            do {
                for name in batch {
                    if let h = try queries.history(of: name) { histories.append(h) }
                }
            } catch {
                Terminal.error("\(error)")
                throw ExitCode(1)
            }
            let reports = ParallelMap.map(histories) { h -> PredictionReport in
                var blend = template
                for l in h.launches { blend.observe(l) }
                let last = h.launches[h.launches.count - 1]
                let origin = LocalCalendar.midnight(after: last.time, offset: last.offset)
                let rows = h.apps.indices.map { i -> PredictionRow in
                    let f = blend.forecast(app: Int32(i), origin: origin, offset: last.offset, minutes: horizonMinutes)
                    return PredictionRow(app: h.apps[i].name, forecast: f, planner: planner)
                }
                return PredictionReport(
                    user: h.user.name, origin: origin, utcOffset: Int(last.offset), horizonMinutes: horizonMinutes,
                    leadMinutes: planner.leadMinutes, threshold: planner.threshold,
                    blendWeights: Dictionary(uniqueKeysWithValues: zip(template.parts.map(\.name), template.weights)),
                    apps: rows)
            }
            for (h, r) in zip(histories, reports) {
                launches += h.launches.count
                apps += r.apps.count
                fetches += r.apps.reduce(0) { $0 + $1.fetches.count }
                if format == .json { print(String(decoding: try encoder.encode(r), as: UTF8.self)) }
            }
            next += batch.count
            if showProgress {
                Terminal.progress(
                    "\(Terminal.bar(fraction: Double(next) / Double(names.count))) \(Format.count(next))/\(Format.count(names.count)) users"
                )
            }
        }
        if showProgress { Terminal.clearProgress() }
        if format == .text {
            let d = clock.now - started
            let seconds = Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
            let fitSeconds = Double(fitted.components.seconds) + Double(fitted.components.attoseconds) / 1e18
            print(
                "\(Format.count(names.count)) users, \(Format.count(launches)) launches, \(Format.count(apps)) apps: "
                    + "\(Format.count(fetches)) fetches planned for the day after each log "
                    + "(blend fitted on \(fitting.count) users in \(Format.seconds(fitSeconds)); \(Format.seconds(seconds)) in all)"
            )
        }
    }
}

struct PredictionRow: Codable, Sendable {
    init(app: String, forecast f: Forecast, planner: FetchPlanner) {
        let at = { (minutes: Double) in f.origin + Int64(minutes * 60e6) }
        self.app = app
        probability = f.total
        expectedNext = f.expectedNext.map(at)
        intervalLow = f.interval.map { at($0.low) }
        intervalHigh = f.interval.map { at($0.high) }
        fetches = planner.plan(f)
    }

    var app: String
    /// Probability of a use within the horizon.
    var probability: Double
    var expectedNext: Microseconds?
    var intervalLow: Microseconds?
    var intervalHigh: Microseconds?
    var fetches: [PlannedFetch]
}

struct PredictionReport: Codable, Sendable {
    var user: String
    var origin: Microseconds
    var utcOffset: Int
    var horizonMinutes: Int
    var leadMinutes: Double
    var threshold: Double
    var blendWeights: [String: Double]
    var apps: [PredictionRow]
}

enum PredictionRenderer {
    static func clock(_ t: Microseconds, offset: Int, origin: Microseconds) -> String {
        let local = t / 1_000_000 + Int64(offset)
        let s = ((local % 86_400) + 86_400) % 86_400
        let days = (local / 86_400) - ((origin / 1_000_000 + Int64(offset)) / 86_400)
        return String(format: "%02d:%02d", s / 3600, s / 60 % 60) + (days > 0 ? " +\(days)d" : "")
    }

    static func stamp(_ t: Microseconds, offset: Int) -> String {
        let f = DateFormatter()
        f.dateFormat = "yyyy-MM-dd HH:mm"
        f.timeZone = TimeZone(secondsFromGMT: offset)
        let sign = offset < 0 ? "-" : "+"
        return f.string(from: Date(timeIntervalSince1970: Double(t) / 1e6))
            + String(format: " (%@%02d:%02d)", sign, abs(offset) / 3600, abs(offset) / 60 % 60)
    }

    static func text(_ r: PredictionReport) -> String {
        let weights = r.blendWeights.sorted { $0.value > $1.value }.filter { $0.value > 0 }
            .map { "\($0.key) \(String(format: "%.1f", $0.value))" }.joined(separator: ", ")
        var lines = [
            "\(r.user) from \(stamp(r.origin, offset: r.utcOffset)), next "
                + (r.horizonMinutes % 60 == 0 ? "\(r.horizonMinutes / 60) h" : "\(r.horizonMinutes) min") + "; "
                + "lead \(Int(r.leadMinutes)) min, p ≥ \(r.threshold); blend of \(weights)"
        ]
        let width = max(20, (r.apps.map(\.app.count).max() ?? 0) + 2)
        for row in r.apps {
            let name = Format.pad(row.app, width)
            if row.fetches.isEmpty {
                if let next = row.expectedNext {
                    lines.append(
                        "\(name)no fetch    next use expected \(clock(next, offset: r.utcOffset, origin: r.origin)) "
                            + "(p=\(String(format: "%.2f", row.probability)) within the horizon)")
                } else {
                    lines.append("\(name)no fetch    no use expected")
                }
            }
            for f in row.fetches {
                let half = Double(f.intervalHigh - f.intervalLow) / 2 / 60e6
                lines.append(
                    "\(name)fetch \(clock(f.fetchAt, offset: r.utcOffset, origin: r.origin))  → use expected "
                        + "\(clock(f.expectedUse, offset: r.utcOffset, origin: r.origin)) "
                        + "(±\(Int(half.rounded())) min, p=\(String(format: "%.2f", f.probability)))")
            }
        }
        return lines.joined(separator: "\n")
    }
}
