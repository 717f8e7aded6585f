import ArgumentParser
import FetchLabCore
import FetchLabPredict
import FetchLabResults
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
        FetchPlanner(lead: lead.microseconds, threshold: threshold, freshness: freshness.microseconds)
    }

    /// (Run by the command's `validate()`; see ``ReplayOptions/check()``.)
    func check() throws {
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
