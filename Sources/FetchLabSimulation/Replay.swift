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
    public var skips: [Int]
    /// Battery energy (not while charging) of the fetches in [S, E], joules; cellular bytes.
    public var batteryJoules = 0.0
    public var cellularBytes = 0.0
    /// Fetches in [S, E] that ran on cellular.
    public var cellularFetches = 0
    /// For each fetch the policy stated a probability for: (stated p, whether the app was launched
    /// within the primary τ after it).
    public var stated: [(p: Double, launched: Bool)] = []

    public init(scored: Int, fresh: [Int], fetches: Int, days: Double) {
        self.init(
            scored: scored, fresh: fresh, fetches: fetches, days: days,
            skips: [Int](repeating: 0, count: SkipReason.allCases.count))
    }

    /// With the skips by reason given (the replay's own array, not a fresh one of zeros).
    init(scored: Int, fresh: [Int], fetches: Int, days: Double, skips: [Int]) {
        self.scored = scored
        self.fresh = fresh
        self.fetches = fetches
        self.days = days
        self.skips = skips
    }

    /// The pair's total over [S, E] of a metric summed per user per day (an entry of
    /// `Metric.daily`): what the replay computed for it. Adding such a metric to the table adds its
    /// case here and its computation in the replay.
    func dailyTotal(_ metric: Metric.ID) -> Double {
        switch metric {
        case .energy: batteryJoules
        case .cellular: cellularBytes
        case .cellularFetches: Double(cellularFetches)
        default: preconditionFailure("the replay computes no daily total for \(metric.metric.key)")
        }
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
        launches: [Instant], fetches unsorted: [Instant], window: UserWindow, taus: [Microseconds],
        launchRefreshes: Bool
    ) -> PairOutcome {
        let fetches = isSorted(unsorted) ? unsorted : unsorted.sorted()
        return score(
            launches: launches, fetches: fetches.map { DoneFetch(time: $0, expired: false, state: Self.anyState) },
            content: [], contentCounts: [], window: window, taus: taus, primaryTau: taus.max() ?? 0,
            launchRefreshes: launchRefreshes,
            lowBatteryPercent: 0)
    }

    static let anyState = DeviceState(battery: 100, charging: true, network: .wifi, lowPower: false)

    /// Per launch, how many of `content` (ascending) are at or before it: the newest content a
    /// launch can show is `content[n - 1]`.
    static func contentCounts(launches: [Instant], content: [Instant]) -> [Int32] {
        var c = 0
        return launches.map { t in
            while c < content.count, content[c] <= t { c += 1 }
            return Int32(c)
        }
    }

    /// Scores a pair: fresh rates, content freshness, staleness, useful leads, wasted and
    /// low-battery fetches. `fetches` ascending; `content` the app's content update times, ascending.
    /// `contentCounts`: the number of content updates at or before each launch
    /// (``contentCounts(launches:content:)``, worked out once per pair for every policy, not walked
    /// to at each launch; not read when `content` is empty); `zeroDays`, when given, is `window.scoredDayCount` zeros: the
    /// `fetchesByDay` of a pair with no fetch (shared, not allocated per pair); `skips`, the
    /// outcome's skips by reason (default: none).
    ///
    /// One pass over the launches through buffer pointers, with plain counters: a fetch is used
    /// when it is the last refresh by fetch at some launch, so the wasted fetches are the scored
    /// unexpired ones less the distinct scored ones used (the last fetch only moves forward).
    static func score(
        launches: [Instant], fetches: [DoneFetch], content: [Instant], contentCounts: [Int32],
        window: UserWindow, taus: [Microseconds], primaryTau: Microseconds, launchRefreshes: Bool,
        lowBatteryPercent: Double, zeroDays: [Int32]? = nil, skips: [Int]? = nil
    ) -> PairOutcome {
        let start = window.start
        let end = window.end
        var fresh = [Int](repeating: 0, count: taus.count)
        var scored = 0
        var contentScored = 0
        var contentFresh = 0
        var usedScored = 0
        var leads: [Microseconds] = []
        let staleness = [Microseconds](unsafeUninitializedCapacity: launches.count) { stale, written in
            var n = 0
            launches.withUnsafeBufferPointer { l in
                fetches.withUnsafeBufferPointer { f in
                    content.withUnsafeBufferPointer { u in
                        contentCounts.withUnsafeBufferPointer { counts in
                            taus.withUnsafeBufferPointer { tau in
                                fresh.withUnsafeMutableBufferPointer { fr in
                                    let hasContent = u.count > 0
                                    var j = 0
                                    var hasFetch = false
                                    var lastFetch = Instant.epoch
                                    var lastFetchIndex = -1
                                    var marked = -1
                                    var credited = -1
                                    for i in 0..<l.count {
                                        let t = l[i]
                                        while j < f.count, f[j].time <= t {
                                            if !f[j].expired {
                                                lastFetch = f[j].time
                                                lastFetchIndex = j
                                                hasFetch = true
                                            }
                                            j += 1
                                        }
                                        if lastFetchIndex != marked {
                                            marked = lastFetchIndex
                                            if lastFetch >= start && lastFetch <= end { usedScored += 1 }
                                        }
                                        guard t >= start && t <= end else { continue }
                                        scored += 1
                                        let hasPrevious = launchRefreshes && i > 0
                                        let previous = hasPrevious ? l[i - 1] : .epoch
                                        var hasLast = hasFetch
                                        var last = lastFetch
                                        if hasPrevious, previous > (hasFetch ? lastFetch : .distantPast) {
                                            last = previous
                                            hasLast = true
                                        }
                                        if hasContent {
                                            let c = Int(counts[i])
                                            contentScored += 1
                                            if c == 0 || (hasLast && last >= u[c - 1]) { contentFresh += 1 }
                                        }
                                        guard hasLast else {
                                            (stale.baseAddress! + n).initialize(to: Replay.never)
                                            n += 1
                                            continue
                                        }
                                        let s = t - last
                                        (stale.baseAddress! + n).initialize(to: s)
                                        n += 1
                                        for k in 0..<tau.count where s <= tau[k] { fr[k] += 1 }
                                        // Useful: fresh at the primary τ thanks to a fetch, not to the
                                        // previous launch alone.
                                        if hasFetch, t - lastFetch <= primaryTau, lastFetchIndex != credited,
                                            !hasPrevious || t - previous > primaryTau
                                        {
                                            credited = lastFetchIndex
                                            leads.append(t - lastFetch)
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
            written = n
        }
        var out = PairOutcome(
            scored: scored, fresh: fresh, fetches: 0, days: window.scoredDays,
            skips: skips ?? [Int](repeating: 0, count: SkipReason.allCases.count))
        out.contentScored = contentScored
        out.contentFresh = contentFresh
        out.staleness = staleness
        out.leads = leads
        if fetches.isEmpty, let zeroDays {
            out.fetchesByDay = zeroDays
            return out
        }
        var byDay = [Int32](repeating: 0, count: window.scoredDayCount)
        var count = 0
        var live = 0
        var low = 0
        fetches.withUnsafeBufferPointer { f in
            byDay.withUnsafeMutableBufferPointer { days in
                // The scored day of the last fetch and its span: the next fetch is mostly in it.
                var day = 0
                var dayStart = Instant.distantFuture
                var dayEnd = Instant.distantPast
                for k in 0..<f.count {
                    let x = f[k]
                    guard x.time >= start && x.time <= end else { continue }
                    count += 1
                    if x.time < dayStart || x.time >= dayEnd {
                        day = window.scoredDay(of: x.time)
                        dayStart = start + Int64(day) * Microseconds.perDay
                        dayEnd = dayStart + Microseconds.perDay
                    }
                    days[day] += 1
                    if x.state.isLow(below: lowBatteryPercent) { low += 1 }
                    if !x.expired { live += 1 }
                }
            }
        }
        out.fetches = count
        out.fetchesByDay = byDay
        out.lowBattery = low
        out.wasted = live - usedScored
        return out
    }

    static func isSorted(_ xs: [Instant]) -> Bool {
        var i = 1
        while i < xs.count {
            if xs[i - 1] > xs[i] { return false }
            i += 1
        }
        return true
    }
}
