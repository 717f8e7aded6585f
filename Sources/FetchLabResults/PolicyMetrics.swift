import FetchLabCore

/// A policy's scores (fresh rates and shares as fractions): one value per entry of
/// ``Metric/table``, the fresh rates per τ and the figures that are not one number. JSON keys, in
/// order: `scored_launches`, `fresh_<τ>m` (one per τ), `content_fresh` (null without content
/// updates), `staleness_median_min`, `staleness_p90_min` (null when over half / a tenth of the
/// launches never had a refresh), `staleness_cdf` (the share of launches less than 1, 2, 5, 10, 15,
/// 30, 60, 120, 240, 480, 1440 minutes stale: ``stalenessCDFMinutes``), `lead_median_min` (of
/// useful fetches), `fetches`, `fetches_per_app_day`, `wasted_fetches`, `wasted_share`,
/// `energy_j_per_day`, `battery_pct_per_day`, `cellular_mb_per_day` (per user per day),
/// `fetches_low_battery`, `skips` ({reason: count}), `reliability`, and over all users (null per
/// app or user): `fresh_ci` (95 % bootstrap interval of fresh at the primary τ), `gain_vs_fixed`
/// (fresh minus the fixed-interval baseline at the policy's own fetches/app/day), `gain_ci`, and
/// `share_of_possible` (gain / (bound − baseline) at its fetches/app/day; null when the bound is
/// less than 2 points above the baseline); then any metric added to the table after these.
public struct PolicyMetrics: Codable, Sendable, Hashable {
    /// One value per entry of ``Metric/table`` (nil: unknown, encoded as null).
    public var values: [Double?] = Metric.table.map { $0.kind == .optional ? nil : 0 }
    /// Fresh rates, one per τ of ``taus``.
    public var fresh: [Double]
    /// The τ of each fresh rate.
    public var taus: [Microseconds] = []
    /// 95 % bootstrap interval over users of fresh at the primary τ.
    public var freshInterval: ConfidenceInterval? = nil
    public var gainInterval: ConfidenceInterval? = nil
    /// The share of scored launches less stale than each of ``stalenessCDFMinutes``.
    public var stalenessCDF: [Double] = []
    /// The staleness thresholds of ``stalenessCDF``, minutes.
    public static let stalenessCDFMinutes: [Double] = [1, 2, 5, 10, 15, 30, 60, 120, 240, 480, 1_440]
    /// Fetches asked for and refused (or expired), by reason.
    public var skips: [SkipReason: Int] = [:]
    /// For policies that state a probability with each fetch (predictive): the stated p against
    /// whether the app was launched within τ after the fetch, in bins (`reliability`, else null).
    public var reliability: ReliabilityTable? = nil

    public init(scoredLaunches: Int, fresh: [Double], fetchesPerAppDay: Double) {
        self.fresh = fresh
        self.scoredLaunches = scoredLaunches
        self.fetchesPerAppDay = fetchesPerAppDay
    }

    /// The value of `metric` (nil: unknown).
    public subscript(metric: Metric.ID) -> Double? {
        get { values[metric.rawValue] }
        set { values[metric.rawValue] = newValue }
    }

    public subscript(metric: Metric) -> Double? {
        get { values[metric.id.rawValue] }
        set { values[metric.id.rawValue] = newValue }
    }

    /// Fetches refused or expired, all reasons.
    public var skipped: Int { skips.values.reduce(0, +) }

    /// fresh@τ at index `tau` of `fresh` (0 when the run has no such τ).
    public func fresh(at tau: Int) -> Double { fresh.indices.contains(tau) ? fresh[tau] : 0 }

    /// fresh@`tau` (nil: the replay did not report that τ).
    public func fresh(tau: Microseconds) -> Double? {
        guard let i = taus.firstIndex(of: tau), fresh.indices.contains(i) else { return nil }
        return fresh[i]
    }

    // The table's values under their own names.

    public var scoredLaunches: Int {
        get { count(.scoredLaunches) }
        set { self[.scoredLaunches] = Double(newValue) }
    }
    /// Share of scored launches with no content newer than the last refresh (nil: no content data).
    public var contentFresh: Double? {
        get { self[.contentFresh] }
        set { self[.contentFresh] = newValue }
    }
    /// Staleness at launch (minutes since the last refresh), median and 90th percentile.
    public var stalenessMedianMinutes: Double? {
        get { self[.stalenessMedian] }
        set { self[.stalenessMedian] = newValue }
    }
    public var stalenessP90Minutes: Double? {
        get { self[.stalenessP90] }
        set { self[.stalenessP90] = newValue }
    }
    /// Median minutes from a useful fetch to the launch it made fresh.
    public var leadMedianMinutes: Double? {
        get { self[.leadMedian] }
        set { self[.leadMedian] = newValue }
    }
    /// Fetches done in the scored span (granted, including expired ones).
    public var fetches: Int {
        get { count(.fetches) }
        set { self[.fetches] = Double(newValue) }
    }
    public var fetchesPerAppDay: Double {
        get { real(.fetchesPerAppDay) }
        set { self[.fetchesPerAppDay] = newValue }
    }
    /// Fetches superseded by another fetch before any launch used them.
    public var wastedFetches: Int {
        get { count(.wastedFetches) }
        set { self[.wastedFetches] = Double(newValue) }
    }
    public var wastedShare: Double {
        get { real(.wastedShare) }
        set { self[.wastedShare] = newValue }
    }
    /// Energy drawn from the battery (not while charging), per user per day.
    public var energyJoulesPerDay: Double {
        get { real(.energy) }
        set { self[.energy] = newValue }
    }
    public var batteryPercentPerDay: Double {
        get { real(.battery) }
        set { self[.battery] = newValue }
    }
    /// Data over cellular, MB per user per day.
    public var cellularMBPerDay: Double {
        get { real(.cellular) }
        set { self[.cellular] = newValue }
    }
    /// Fetches made on battery below 20 % and not charging.
    public var lowBatteryFetches: Int {
        get { count(.lowBatteryFetches) }
        set { self[.lowBatteryFetches] = Double(newValue) }
    }
    /// Fresh at the primary τ minus the fixed-interval baseline at the same fetches/app/day.
    public var gainVsFixed: Double? {
        get { self[.gainVsFixed] }
        set { self[.gainVsFixed] = newValue }
    }
    /// (fresh − baseline) / (bound − baseline) at the same fetches/app/day; never above 1.
    public var shareOfPossible: Double? {
        get { self[.shareOfPossible] }
        set { self[.shareOfPossible] = newValue }
    }

    private func count(_ id: Metric.ID) -> Int { Int(values[id.rawValue] ?? 0) }
    private func real(_ id: Metric.ID) -> Double { values[id.rawValue] ?? 0 }
}

extension PolicyMetrics {
    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ s: String) { stringValue = s }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// The figures of the JSON object that are not entries of the table, each written just before
    /// the entry named here (the order every report has had).
    enum Structured: CaseIterable {
        case fresh, stalenessCDF, skips, reliability, freshInterval, gainInterval

        var before: Metric.ID {
            switch self {
            case .fresh: .contentFresh
            case .stalenessCDF: .fetches
            case .skips, .reliability, .freshInterval: .gainVsFixed
            case .gainInterval: .shareOfPossible
            }
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        for metric in Metric.table {
            for s in Structured.allCases where s.before == metric.id { try encode(s, into: &c) }
            let value = values[metric.id.rawValue]
            switch metric.kind {
            case .count: try c.encode(Int(value ?? 0), forKey: Key(metric.key))
            case .real: try c.encode(value ?? 0, forKey: Key(metric.key))
            case .optional:
                if let value {
                    try c.encode(value, forKey: Key(metric.key))
                } else {
                    try c.encodeNil(forKey: Key(metric.key))
                }
            }
        }
    }

    private func encode(_ s: Structured, into c: inout KeyedEncodingContainer<Key>) throws {
        switch s {
        case .fresh:
            for (tau, value) in zip(taus, fresh) { try c.encode(value, forKey: Key(FreshKey.key(tau))) }
        case .stalenessCDF: try c.encode(stalenessCDF, forKey: Key("staleness_cdf"))
        case .skips:
            var skipsByName: [String: Int] = [:]
            for reason in SkipReason.allCases { skipsByName[reason.rawValue] = skips[reason] ?? 0 }
            try c.encode(skipsByName, forKey: Key("skips"))
        case .reliability:
            if let reliability {
                try c.encode(reliability, forKey: Key("reliability"))
            } else {
                try c.encodeNil(forKey: Key("reliability"))
            }
        case .freshInterval: try c.encode(freshInterval, forKey: Key("fresh_ci"))
        case .gainInterval: try c.encode(gainInterval, forKey: Key("gain_ci"))
        }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        fresh = []
        for metric in Metric.table {
            let key = Key(metric.key)
            let value: Double?
            switch metric.kind {
            case .count:
                value =
                    try metric.required
                    ? Double(c.decode(Int.self, forKey: key))
                    : c.decodeIfPresent(Int.self, forKey: key).map(Double.init)
            case .real, .optional:
                value =
                    try metric.required
                    ? c.decode(Double.self, forKey: key) : c.decodeIfPresent(Double.self, forKey: key)
            }
            values[metric.id.rawValue] = value ?? (metric.kind == .optional ? nil : 0)
        }
        freshInterval = try c.decodeIfPresent(ConfidenceInterval.self, forKey: Key("fresh_ci"))
        gainInterval = try c.decodeIfPresent(ConfidenceInterval.self, forKey: Key("gain_ci"))
        let found = c.allKeys.compactMap { key in FreshKey.tau(key.stringValue).map { (tau: $0, key: key) } }
        let sorted = found.sorted { $0.tau < $1.tau }
        taus = sorted.map(\.tau)
        fresh = try sorted.map { try c.decode(Double.self, forKey: $0.key) }
        stalenessCDF = try c.decodeIfPresent([Double].self, forKey: Key("staleness_cdf")) ?? []
        reliability = try c.decodeIfPresent(ReliabilityTable.self, forKey: Key("reliability"))
        let names = try c.decodeIfPresent([String: Int].self, forKey: Key("skips")) ?? [:]
        skips = [:]
        for (k, v) in names {
            if let r = SkipReason(rawValue: k), v > 0 { skips[r] = v }
        }
    }
}
