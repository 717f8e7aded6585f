/// The result of `fetchlab compare`. Encodes to exactly
/// `{"settings": {...}, "policies": [{"name", "family", "params", "metrics": {...}}]}`.
public struct ComparisonReport: Codable, Sendable, Hashable {
    public var settings: ComparisonSettings
    public var policies: [PolicyResult]
    /// The clairvoyant frontier's points [fetches/day, fresh rate] (not encoded).
    public var frontier: [[Double]] = []

    enum CodingKeys: String, CodingKey { case settings, policies }

    public init(settings: ComparisonSettings, policies: [PolicyResult], frontier: [[Double]]) {
        self.settings = settings
        self.policies = policies
        self.frontier = frontier
    }

    /// Nothing was scored.
    public var scoredNothing: Bool { settings.scoredLaunches == 0 }
}

public struct ComparisonSettings: Codable, Sendable, Hashable {
    public var tauMinutes: Double
    public var tausMinutes: [Double]
    public var launchRefreshes: Bool
    public var warmUpDays: Int
    public var minLaunches: Int
    public var platform: String
    public var users: Int
    public var pairs: Int
    public var scoredLaunches: Int
    /// The first and last scored local days over all users (not encoded).
    public var firstScoredDay: String? = nil
    public var lastScoredDay: String? = nil

    enum CodingKeys: String, CodingKey {
        case tauMinutes = "tau_minutes", tausMinutes = "taus_minutes", launchRefreshes = "launch_refreshes"
        case warmUpDays = "warm_up_days", minLaunches = "min_launches", platform, users, pairs
        case scoredLaunches = "scored_launches"
    }

    public init(
        tauMinutes: Double, tausMinutes: [Double], launchRefreshes: Bool, warmUpDays: Int, minLaunches: Int,
        platform: String, users: Int, pairs: Int, scoredLaunches: Int
    ) {
        self.tauMinutes = tauMinutes
        self.tausMinutes = tausMinutes
        self.launchRefreshes = launchRefreshes
        self.warmUpDays = warmUpDays
        self.minLaunches = minLaunches
        self.platform = platform
        self.users = users
        self.pairs = pairs
        self.scoredLaunches = scoredLaunches
    }
}

public struct PolicyResult: Codable, Sendable, Hashable {
    public var name: String
    public var family: String
    public var params: [String: Double]
    public var metrics: PolicyMetrics

    public init(name: String, family: String, params: [String: Double], metrics: PolicyMetrics) {
        self.name = name
        self.family = family
        self.params = params
        self.metrics = metrics
    }
}

/// A policy's scores: `scored_launches`, `fresh_<τ>m` (one per τ, as fractions),
/// `fetches_per_app_day` and `gap_closed` (null when there is none).
public struct PolicyMetrics: Codable, Sendable, Hashable {
    public var scoredLaunches: Int
    /// Fresh rates, one per τ of `settings.taus_minutes`.
    public var fresh: [Double]
    public var fetchesPerAppDay: Double
    public var gapClosed: Double?
    /// The τ of each fresh rate, in minutes (the keys' names).
    public var freshKeys: [String] = []

    public init(scoredLaunches: Int, fresh: [Double], fetchesPerAppDay: Double, gapClosed: Double?) {
        self.scoredLaunches = scoredLaunches
        self.fresh = fresh
        self.fetchesPerAppDay = fetchesPerAppDay
        self.gapClosed = gapClosed
    }

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ s: String) { stringValue = s }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// `fresh_15m` for 15 minutes; fractional minutes keep their decimals (`fresh_2.5m`).
    public static func freshKey(minutes: Double) -> String {
        minutes == minutes.rounded() ? "fresh_\(Int(minutes))m" : "fresh_\(minutes)m"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(scoredLaunches, forKey: Key("scored_launches"))
        for (key, value) in zip(freshKeys, fresh) { try c.encode(value, forKey: Key(key)) }
        try c.encode(fetchesPerAppDay, forKey: Key("fetches_per_app_day"))
        if let g = gapClosed {
            try c.encode(g, forKey: Key("gap_closed"))
        } else {
            try c.encodeNil(forKey: Key("gap_closed"))
        }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        scoredLaunches = try c.decode(Int.self, forKey: Key("scored_launches"))
        fetchesPerAppDay = try c.decode(Double.self, forKey: Key("fetches_per_app_day"))
        gapClosed = try c.decodeIfPresent(Double.self, forKey: Key("gap_closed"))
        let keys = c.allKeys.map(\.stringValue).filter { $0.hasPrefix("fresh_") }
        let sorted = keys.sorted {
            (Double($0.dropFirst(6).dropLast()) ?? 0) < (Double($1.dropFirst(6).dropLast()) ?? 0)
        }
        freshKeys = sorted
        fresh = try sorted.map { try c.decode(Double.self, forKey: Key($0)) }
    }
}
