import FetchLabCore
import FetchLabPredict
import FetchLabResults

/// Counts of durations in bins: 1 s below a minute, 10 s below an hour, 1 min below a day,
/// 15 min below 14 days, then one bin for longer (and for "never"). Dense (a few thousand
/// counters, allocated on the first count); quantiles are reported as their bin's lower edge.
public struct DurationHistogram: Sendable, Hashable {
    var counts: [Int32] = []
    public internal(set) var total = 0

    static let binCount = 60 + 354 + 1_380 + 1_248 + 1
    static let overflow = binCount - 1

    @inline(__always) static func bin(_ d: Microseconds?) -> Int {
        guard let d, d != Replay.never else { return overflow }
        let s = max(0, d / .perSecond)
        if s < 60 { return Int(s) }
        if s < 3_600 { return 60 + Int((s - 60) / 10) }
        if s < 86_400 { return 60 + 354 + Int((s - 3_600) / 60) }
        if s < 14 * 86_400 { return 60 + 354 + 1_380 + Int((s - 86_400) / 900) }
        return overflow
    }

    /// The lower edge of a bin, in seconds (nil for the overflow bin).
    static func lowerEdge(_ b: Int) -> Int64? {
        if b == overflow { return nil }
        let b = Int64(b)
        if b < 60 { return b }
        if b < 414 { return 60 + (b - 60) * 10 }
        if b < 1_794 { return 3_600 + (b - 414) * 60 }
        return 86_400 + (b - 1_794) * 900
    }

    public init() {}

    @inline(__always) public mutating func add(_ d: Microseconds?) {
        if counts.isEmpty { counts = [Int32](repeating: 0, count: Self.binCount) }
        counts[Self.bin(d)] += 1
        total += 1
    }

    public mutating func add(_ other: DurationHistogram) {
        guard other.total > 0 else { return }
        if counts.isEmpty { counts = [Int32](repeating: 0, count: Self.binCount) }
        for b in other.counts.indices where other.counts[b] != 0 { counts[b] += other.counts[b] }
        total += other.total
    }

    /// The share of counts in the bins below the one holding `minutes`: the share less stale than
    /// `minutes` (whole minutes are bin edges below a day).
    public func share(atMostMinutes minutes: Double) -> Double {
        guard total > 0 else { return 0 }
        let limit = Self.bin(.perSecond * Int64((minutes * 60).rounded()))
        var n = 0
        for b in 0..<min(limit, counts.count) { n += Int(counts[b]) }
        return Double(n) / Double(total)
    }

    /// The nearest-rank `q` quantile in minutes (its bin's lower edge), nil when empty or when it
    /// falls in the overflow bin.
    public func quantileMinutes(_ q: Double) -> Double? {
        guard total > 0 else { return nil }
        let rank = max(1, Int((q * Double(total)).rounded(.up)))
        var seen = 0
        for b in counts.indices {
            seen += Int(counts[b])
            if seen >= rank { return Self.lowerEdge(b).map { Double($0) / 60 } }
        }
        return nil
    }
}

/// Sums of pair outcomes over a group (all pairs, one app's pairs, one user's pairs), from which
/// the group's `PolicyMetrics` follow. Every sum is exact (counts, and ``ExactSum`` for the
/// rates), so a group summed in any order or in any grouping (users one by one, or shards of
/// users merged) gives the same figures to the last digit. Fresh rates are launch-weighted; fetches per app per day
/// are averaged over pairs; energy and cellular data per day are averaged over `costUnits`
/// (users for the overall and per-user figures, pairs for per-app figures).
struct MetricSums: Sendable {
    var pairs = 0
    var scored = 0
    var fresh: [Int]
    var fetchesPerDaySum = ExactSum()
    var contentScored = 0
    var contentFresh = 0
    var staleness = DurationHistogram()
    var leads = DurationHistogram()
    var fetches = 0
    var wasted = 0
    var lowBattery = 0
    var skips = [Int](repeating: 0, count: SkipReason.allCases.count)
    /// Per entry of `Metric.daily`: the pairs' totals per day (joules, cellular bytes…), summed.
    var daily = [ExactSum](repeating: ExactSum(), count: Metric.daily.count)
    var costUnits = 0
    /// Stated probabilities against what happened (nil until a policy states one).
    var reliability: ReliabilityTable? = nil

    init(taus: Int) { fresh = [Int](repeating: 0, count: taus) }

    /// Adds one pair (its energy and data per day summed into the group's, without a cost unit).
    mutating func add(_ o: PairOutcome) {
        pairs += 1
        scored += o.scored
        for k in fresh.indices { fresh[k] += o.fresh[k] }
        fetchesPerDaySum += o.fetchesPerDay
        contentScored += o.contentScored
        contentFresh += o.contentFresh
        for s in o.staleness { staleness.add(s) }
        for l in o.leads { leads.add(l) }
        fetches += o.fetches
        wasted += o.wasted
        lowBattery += o.lowBattery
        for k in skips.indices { skips[k] += o.skips[k] }
        if !o.stated.isEmpty {
            if reliability == nil { reliability = ReliabilityTable() }
            for s in o.stated { reliability!.record(stated: s.p, outcome: s.launched) }
        }
        if o.days > 0 {
            for k in daily.indices { daily[k] += o.dailyTotal(Metric.daily[k].id) / o.days }
        }
    }

    mutating func add(_ t: MetricSums) {
        pairs += t.pairs
        scored += t.scored
        for k in fresh.indices { fresh[k] += t.fresh[k] }
        fetchesPerDaySum += t.fetchesPerDaySum
        contentScored += t.contentScored
        contentFresh += t.contentFresh
        staleness.add(t.staleness)
        leads.add(t.leads)
        fetches += t.fetches
        wasted += t.wasted
        lowBattery += t.lowBattery
        for k in skips.indices { skips[k] += t.skips[k] }
        for k in daily.indices { daily[k] += t.daily[k] }
        costUnits += t.costUnits
        if let r = t.reliability {
            if reliability == nil { reliability = ReliabilityTable() }
            reliability!.merge(r)
        }
    }

    /// (fetches per app per day, fresh rate at the τ of index `primary`).
    func point(primary: Int) -> (x: Double, y: Double) {
        (
            pairs > 0 ? fetchesPerDaySum.value / Double(pairs) : 0,
            scored > 0 ? Double(fresh[primary]) / Double(scored) : 0
        )
    }

    func metrics(taus: [Microseconds], primary: Int, batteryJoules: Double) -> PolicyMetrics {
        let fresh = self.fresh.map { scored > 0 ? Double($0) / Double(scored) : 0 }
        var m = PolicyMetrics(
            scoredLaunches: scored, fresh: fresh, fetchesPerAppDay: point(primary: primary).x)
        m.taus = taus
        m.contentFresh = contentScored > 0 ? Double(contentFresh) / Double(contentScored) : nil
        m.stalenessMedianMinutes = staleness.quantileMinutes(0.5)
        m.stalenessP90Minutes = staleness.quantileMinutes(0.9)
        m.leadMedianMinutes = leads.quantileMinutes(0.5)
        m.stalenessCDF = PolicyMetrics.stalenessCDFMinutes.map { staleness.share(atMostMinutes: $0) }
        m.fetches = fetches
        m.wastedFetches = wasted
        m.wastedShare = fetches > 0 ? Double(wasted) / Double(fetches) : 0
        let units = Double(max(1, costUnits))
        for (k, metric) in Metric.daily.enumerated() {
            let perDay = daily[k].value / units
            m[metric] = metric.dailySum?.divisor.map { perDay / $0 } ?? perDay
        }
        m.batteryPercentPerDay = m.energyJoulesPerDay / batteryJoules * 100
        m.lowBatteryFetches = lowBattery
        for (k, reason) in SkipReason.allCases.enumerated() where skips[k] > 0 { m.skips[reason] = skips[k] }
        m.reliability = reliability
        return m
    }
}
