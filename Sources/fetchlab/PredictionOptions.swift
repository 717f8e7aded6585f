import ArgumentParser
import FetchLabCore
import FetchLabPredict
import FetchLabStore

/// The fetch planner's options, shared by `predict` and `evaluate-predictors`.
struct PredictionOptions: ParsableArguments {
    static let leadRange = 0...Microseconds.hours(12)
    static let freshnessRange = Microseconds.perMinute...Microseconds.hours(24)

    @Option(
        parsing: .unconditional,
        help:
            "Plan each fetch this long before the expected use (e.g. 10m; at most 12h and shorter than --horizon); must cover the fetch."
    )
    var lead = DurationArgument(10 * .perMinute)

    @Option(
        parsing: .unconditional,
        help:
            "Plan a fetch only for a use whose score (expected uses in the freshness window, capped at 1) is at least this (0–1)."
    )
    var threshold = 0.5

    @Option(parsing: .unconditional, help: "Freshness window: uses this close share one fetch (e.g. 30m; 1m to 24h).")
    var freshness = DurationArgument(30 * .perMinute)

    var planner: FetchPlanner {
        FetchPlanner(leadMinutes: lead.minutes, threshold: threshold, freshnessMinutes: freshness.minutes)
    }

    func validate() throws {
        try Bounds.check("--lead", lead, Self.leadRange)
        try Bounds.check("--threshold", threshold, 0...1)
        try Bounds.check("--freshness", freshness, Self.freshnessRange)
        let problems = planner.problems()
        if !problems.isEmpty { throw ValidationError(problems.joined(separator: "; ")) }
    }
}

/// `--at`: an ISO-8601 time with an offset, or a local time of the user (parsed once).
struct OriginArgument: ExpressibleByArgument, Sendable {
    var requested: RequestedOrigin

    init?(argument: String) {
        guard let r = RequestedOrigin(parsing: argument) else { return nil }
        requested = r
    }
}

/// Reading users' histories for the prediction commands.
enum HistoryLoader {
    static func open(_ path: String) throws(StoreError) -> UsageQueries {
        UsageQueries(database: try FetchLabDatabase(path: path, readOnly: true))
    }

    /// The histories of up to `limit` users evenly spread over the sorted list (0 = all), only
    /// what happened before `before` when given; users without launches (then) are left out.
    static func histories(
        _ queries: UsageQueries, limit: Int, before: Microseconds? = nil
    ) throws(StoreError) -> [UserHistory] {
        var out: [UserHistory] = []
        for name in EvenSample.pick(try queries.usersWithLaunches(), limit: limit) {
            if let h = try queries.history(of: name, before: before), !h.launches.isEmpty { out.append(h) }
        }
        return out
    }

    /// `names`' histories in batches of 256 users: each batch read from SQLite on this thread,
    /// `work` run on its histories on all cores, then `consume` called in order. Users without
    /// launches are left out. With `progress`, a bar of users done on stderr.
    static func inBatches<R: Sendable>(
        _ queries: UsageQueries, _ names: [UserID], progress: Bool, work: @Sendable (UserHistory) -> R,
        consume: (UserHistory, R) throws -> Void
    ) throws {
        var next = 0
        while next < names.count {
            let batch = names[next..<min(names.count, next + 256)]
            var histories: [UserHistory] = []
            for name in batch {
                if let h = try queries.history(of: name), !h.launches.isEmpty { histories.append(h) }
            }
            for (h, r) in zip(histories, ParallelMap.map(histories, work)) { try consume(h, r) }
            next += batch.count
            if progress {
                Terminal.progress(
                    "\(Terminal.bar(fraction: Double(next) / Double(names.count))) "
                        + "\(Format.count(next))/\(Format.count(names.count)) users")
            }
        }
        if progress { Terminal.clearProgress() }
    }
}
