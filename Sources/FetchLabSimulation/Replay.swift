import FetchLabCore
import FetchLabResults

/// What one policy achieved on one (user, app) pair.
public struct PairOutcome: Sendable {
    /// Launches in [S, E].
    public var scored: Int
    /// Fresh scored launches, one count per τ of ``EvaluationProtocol/reportedTaus``.
    public var fresh: [Int]
    /// Fetches in [S, E] that ran (granted or expired).
    public var fetches: Int
    /// The same by scored local day (``UserWindow/scoredDay(of:)``), one count per day of
    /// ``UserWindow/scoredDayCount``: what the bootstrap over days resamples.
    public var fetchesByDay: [Int32] = []
    /// (E − S) in days.
    public var days: Double
    /// Scored launches of an app whose content updates are known, and those with no content newer
    /// than their last refresh.
    public var contentScored = 0
    public var contentFresh = 0
    /// Staleness at each scored launch (time since the last refresh; ``Replay/never``: never
    /// refreshed).
    public var staleness: [Microseconds] = []
    /// Lead of each useful fetch: from the fetch to the first launch it made fresh at the primary τ
    /// that the launch refresh alone would not have.
    public var leads: [Microseconds] = []
    /// Fetches in [S, E] superseded by another fetch (or the end of the log) before any launch.
    public var wasted = 0
    /// Fetches in [S, E] that ran on a battery below the low level, not charging.
    public var lowBattery = 0
    /// Requests refused or expired in [S, E], by `SkipReason` (indexed as `allCases`).
    public var skips = [Int](repeating: 0, count: SkipReason.allCases.count)
    /// Battery energy (not while charging) of the fetches in [S, E], joules; cellular bytes.
    public var batteryJoules = 0.0
    public var cellularBytes = 0.0
    /// For each fetch the policy stated a probability for: (stated p, whether the app was launched
    /// within the primary τ after it).
    public var stated: [(p: Double, launched: Bool)] = []

    public init(scored: Int, fresh: [Int], fetches: Int, days: Double) {
        self.scored = scored
        self.fresh = fresh
        self.fetches = fetches
        self.days = days
    }

    /// Fetches per day over [S, E].
    public var fetchesPerDay: Double { days > 0 ? Double(fetches) / days : 0 }
}

/// Replays one app's launches against the fetches that ran.
public enum Replay {
    /// The staleness of a launch with no refresh before it.
    public static let never = Microseconds.max

    /// Staleness at a launch is the time since the last refresh: a fetch at or before it (an
    /// expired fetch refreshes nothing) or, when launches refresh, the previous launch of the app;
    /// a launch with no refresh before it is not fresh. Only launches and fetches in [S, E] count.
    public static func run(
        launches: [Microseconds], fetches unsorted: [Microseconds], window: UserWindow, taus: [Microseconds],
        launchRefreshes: Bool
    ) -> PairOutcome {
        let fetches = isSorted(unsorted) ? unsorted : unsorted.sorted()
        return score(
            launches: launches, fetches: fetches.map { DoneFetch(time: $0, expired: false, state: Self.anyState) },
            content: [], window: window, taus: taus, primaryTau: taus.max() ?? 0, launchRefreshes: launchRefreshes,
            lowBatteryPercent: 0)
    }

    static let anyState = DeviceState(battery: 100, charging: true, network: .wifi, lowPower: false)

    /// Scores a pair: fresh rates, content freshness, staleness, useful leads, wasted and
    /// low-battery fetches. `fetches` ascending; `content` the app's content update times, ascending.
    static func score(
        launches: [Microseconds], fetches: [DoneFetch], content: [Microseconds], window: UserWindow,
        taus: [Microseconds], primaryTau: Microseconds, launchRefreshes: Bool, lowBatteryPercent: Double
    ) -> PairOutcome {
        var out = PairOutcome(
            scored: 0, fresh: [Int](repeating: 0, count: taus.count), fetches: 0, days: window.scoredDays)
        var j = 0
        var lastFetch: Microseconds? = nil
        var lastFetchIndex = -1
        var usedFetch = [Bool](repeating: false, count: fetches.count)
        out.staleness.reserveCapacity(launches.count)
        out.fetchesByDay = [Int32](repeating: 0, count: window.scoredDayCount)
        var creditedFetch = -1
        var c = 0
        for (i, t) in launches.enumerated() {
            while j < fetches.count, fetches[j].time <= t {
                if !fetches[j].expired {
                    lastFetch = fetches[j].time
                    lastFetchIndex = j
                }
                j += 1
            }
            if lastFetchIndex >= 0 { usedFetch[lastFetchIndex] = true }
            guard window.isScored(t) else { continue }
            out.scored += 1
            let previous: Microseconds? = launchRefreshes && i > 0 ? launches[i - 1] : nil
            var last = lastFetch
            if let p = previous, p > (last ?? .min) { last = p }
            if !content.isEmpty {
                while c < content.count, content[c] <= t { c += 1 }
                out.contentScored += 1
                let newest = c > 0 ? content[c - 1] : nil
                if let newest { if let last, last >= newest { out.contentFresh += 1 } } else { out.contentFresh += 1 }
            }
            guard let refreshed = last else {
                out.staleness.append(Replay.never)
                continue
            }
            let staleness = t - refreshed
            out.staleness.append(staleness)
            for (k, tau) in taus.enumerated() where staleness <= tau { out.fresh[k] += 1 }
            // Useful: fresh at the primary τ thanks to a fetch, not to the previous launch alone.
            if let f = lastFetch, t - f <= primaryTau, lastFetchIndex != creditedFetch,
                previous.map({ t - $0 > primaryTau }) ?? true
            {
                creditedFetch = lastFetchIndex
                out.leads.append(t - f)
            }
        }
        for (k, f) in fetches.enumerated() where window.isScored(f.time) {
            out.fetches += 1
            out.fetchesByDay[window.scoredDay(of: f.time)] += 1
            if f.state.isLow(below: lowBatteryPercent) { out.lowBattery += 1 }
            guard !f.expired, !usedFetch[k] else { continue }
            out.wasted += 1
        }
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
