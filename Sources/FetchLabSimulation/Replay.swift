import FetchLabCore

/// What one policy achieved on one (user, app) pair.
public struct PairOutcome: Sendable, Hashable {
    /// Launches in [S, E].
    public var scored: Int
    /// Fresh scored launches, one count per τ of ``EvaluationProtocol/reportedTaus``.
    public var fresh: [Int]
    /// Fetches in [S, E].
    public var fetches: Int
    /// (E − S) in days.
    public var days: Double

    /// Fetches per day over [S, E].
    public var fetchesPerDay: Double { days > 0 ? Double(fetches) / days : 0 }
}

/// Replays one app's launches against a policy's fetch times.
public enum Replay {
    /// Staleness at a launch is the time since the last refresh: a fetch at or before it or (when
    /// launches refresh) the previous launch of the app; a launch with no refresh before it is not
    /// fresh. Only launches and fetches in [S, E] are counted.
    public static func run(
        launches: [Microseconds], fetches unsorted: [Microseconds], window: UserWindow, taus: [Microseconds],
        launchRefreshes: Bool
    ) -> PairOutcome {
        let fetches = isSorted(unsorted) ? unsorted : unsorted.sorted()
        var out = PairOutcome(
            scored: 0, fresh: [Int](repeating: 0, count: taus.count), fetches: 0, days: window.scoredDays)
        var j = 0
        var lastFetch: Microseconds? = nil
        for (i, t) in launches.enumerated() {
            while j < fetches.count, fetches[j] <= t {
                lastFetch = fetches[j]
                j += 1
            }
            guard window.isScored(t) else { continue }
            out.scored += 1
            var last = lastFetch
            if launchRefreshes, i > 0 { last = max(last ?? launches[i - 1], launches[i - 1]) }
            guard let refreshed = last else { continue }
            let staleness = t - refreshed
            for (k, tau) in taus.enumerated() where staleness <= tau { out.fresh[k] += 1 }
        }
        for f in fetches where window.isScored(f) { out.fetches += 1 }
        return out
    }

    static func isSorted(_ xs: [Microseconds]) -> Bool {
        var i = 1
        while i < xs.count {
            if xs[i - 1] > xs[i] { return false }
            i += 1
        }
        return true
    }
}
