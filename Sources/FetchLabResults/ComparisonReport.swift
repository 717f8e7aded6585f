import FetchLabPredict

/// The result of `fetchlab compare`. Encodes to
/// `{"settings": {...}, "budget": {...}, "budget_curve": [...], "fixed_curve": [[x, y]],
/// "bound_curve": [[x, y]], "ceilings": {...}, "policies": [{"name", "family", "params", "metrics": {...}}]}`.
public struct ComparisonReport: Codable, Sendable, Hashable {
    public var settings: ComparisonSettings
    public var policies: [PolicyResult]
    /// How the budget figures were computed (nil: a report stored before they existed).
    public var budget: BudgetSettings? = nil
    /// Freshness at each budget: the fixed-interval baseline, the clairvoyant bound, `never` and
    /// each causal family's front (DOMAIN.md, "Freshness at a budget").
    public var budgetCurve: [BudgetPoint] = []
    /// The fixed-interval baseline [fetches/app/day, fresh rate], joined linearly: in closed form
    /// (``FixedBaselineLine``) `[[0, never], [1440/τ, 1]]`.
    public var fixedCurve: [[Double]] = []
    /// The clairvoyant bound at increasing budgets [fetches/app/day, fresh rate], up to saturation.
    public var boundCurve: [[Double]] = []
    /// The clairvoyant bound restricted to the fetch moments of each signal set, at each budget and
    /// with no budget (nil: a report stored before they existed, or without budget figures).
    public var ceilings: SignalCeilings? = nil
    /// One user's day under every policy, for the report's timeline (encoded when present).
    public var timeline: DayTrace? = nil
    /// The headline for an app team and for a system scheduler, each one setting with its own
    /// figures, and the app's setting replayed on iOS and Android (nil: a report stored before it,
    /// or without budget figures; ``headlineSettings()`` gives its first two parts from the rows).
    public var headline: Headline? = nil

    enum CodingKeys: String, CodingKey {
        case settings, headline, budget, budgetCurve = "budget_curve", fixedCurve = "fixed_curve"
        case boundCurve = "bound_curve", ceilings, policies, timeline
    }

    public init(settings: ComparisonSettings, policies: [PolicyResult]) {
        self.settings = settings
        self.policies = policies
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        settings = try c.decode(ComparisonSettings.self, forKey: .settings)
        policies = try c.decode([PolicyResult].self, forKey: .policies)
        budget = try c.decodeIfPresent(BudgetSettings.self, forKey: .budget)
        budgetCurve = try c.decodeIfPresent([BudgetPoint].self, forKey: .budgetCurve) ?? []
        fixedCurve = try c.decodeIfPresent([[Double]].self, forKey: .fixedCurve) ?? []
        boundCurve = try c.decodeIfPresent([[Double]].self, forKey: .boundCurve) ?? []
        ceilings = try c.decodeIfPresent(SignalCeilings.self, forKey: .ceilings)
        timeline = try c.decodeIfPresent(DayTrace.self, forKey: .timeline)
        headline = try c.decodeIfPresent(Headline.self, forKey: .headline)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(settings, forKey: .settings)
        try c.encodeIfPresent(headline, forKey: .headline)
        try c.encodeIfPresent(budget, forKey: .budget)
        try c.encode(budgetCurve, forKey: .budgetCurve)
        try c.encode(fixedCurve, forKey: .fixedCurve)
        try c.encode(boundCurve, forKey: .boundCurve)
        try c.encodeIfPresent(ceilings, forKey: .ceilings)
        try c.encode(policies, forKey: .policies)
        try c.encodeIfPresent(timeline, forKey: .timeline)
    }

    /// The budget point the headline is read at.
    public var headlinePoint: BudgetPoint? {
        guard let b = budget?.headlineBudget else { return budgetCurve.first }
        return budgetCurve.first { $0.budget == b } ?? budgetCurve.first
    }

    /// What the 95 % intervals are over, as every output says it (``BudgetSettings/intervalScope(over:users:)``).
    public var intervalScope: String {
        BudgetSettings.intervalScope(over: budget?.intervalOver ?? .users, users: settings.users)
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
    public var platform: PlatformKind
    public var users: Int
    public var pairs: Int
    public var scoredLaunches: Int
    /// The platform's rules, the cost model and the context defaults used.
    public var platformRules = PlatformModel()
    public var cost = CostModel()
    public var contextDefaults = ContextDefaults()
    /// Users with no context sample at all (the defaults stood for their device all along).
    public var usersWithoutContext = 0
    /// Evaluated pairs whose app has content updates (content freshness and push need them).
    public var pairsWithContentUpdates = 0
    /// The first and last scored local days over all users.
    public var firstScoredDay: String? = nil
    public var lastScoredDay: String? = nil
    /// The shard replayed (`I/N`, `compare --shard`); nil for a whole population (merged shards too).
    public var shard: String? = nil

    enum CodingKeys: String, CodingKey {
        case tauMinutes = "tau_minutes", tausMinutes = "taus_minutes", launchRefreshes = "launch_refreshes"
        case warmUpDays = "warm_up_days", minLaunches = "min_launches", platform, users, pairs
        case scoredLaunches = "scored_launches", platformRules = "platform_rules", cost = "cost_model"
        case contextDefaults = "context_defaults", usersWithoutContext = "users_without_context"
        case pairsWithContentUpdates = "pairs_with_content_updates", firstScoredDay = "first_scored_day"
        case lastScoredDay = "last_scored_day", shard
    }

    public init(
        tauMinutes: Double, tausMinutes: [Double], launchRefreshes: Bool, warmUpDays: Int, minLaunches: Int,
        platform: PlatformKind, users: Int, pairs: Int, scoredLaunches: Int
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

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        tauMinutes = try c.decode(Double.self, forKey: .tauMinutes)
        tausMinutes = try c.decode([Double].self, forKey: .tausMinutes)
        launchRefreshes = try c.decode(Bool.self, forKey: .launchRefreshes)
        warmUpDays = try c.decode(Int.self, forKey: .warmUpDays)
        minLaunches = try c.decode(Int.self, forKey: .minLaunches)
        platform = try c.decode(PlatformKind.self, forKey: .platform)
        users = try c.decode(Int.self, forKey: .users)
        pairs = try c.decode(Int.self, forKey: .pairs)
        scoredLaunches = try c.decode(Int.self, forKey: .scoredLaunches)
        platformRules = try c.decodeIfPresent(PlatformModel.self, forKey: .platformRules) ?? PlatformModel()
        cost = try c.decodeIfPresent(CostModel.self, forKey: .cost) ?? CostModel()
        contextDefaults = try c.decodeIfPresent(ContextDefaults.self, forKey: .contextDefaults) ?? ContextDefaults()
        usersWithoutContext = try c.decodeIfPresent(Int.self, forKey: .usersWithoutContext) ?? 0
        pairsWithContentUpdates = try c.decodeIfPresent(Int.self, forKey: .pairsWithContentUpdates) ?? 0
        firstScoredDay = try c.decodeIfPresent(String.self, forKey: .firstScoredDay)
        lastScoredDay = try c.decodeIfPresent(String.self, forKey: .lastScoredDay)
        shard = try c.decodeIfPresent(String.self, forKey: .shard)
    }
}

public struct PolicyResult: Codable, Sendable, Hashable {
    public var name: String
    public var family: String
    public var params: [String: Double]
    public var metrics: PolicyMetrics
    /// The same metrics per app (over that app's evaluated pairs), apps by name.
    public var perApp: [GroupResult]
    /// The same metrics per user, when asked for (`nil`: not encoded).
    public var perUser: [GroupResult]?
    /// The same metrics per group of users, when the run groups them (`ComparisonRun.userGroups`;
    /// `nil`: not encoded).
    public var perGroup: [GroupResult]?
    /// Set when the per-user metrics are in a ``PerUserSpool`` instead of ``perUser`` (its policy
    /// index): encoded as a marker that ``PerUserSpool/writeJSON(_:to:)`` replaces with the rows.
    public var spooledPerUser: Int? = nil
    /// The signals the policy reads, in ``PolicySignal``'s order (nil: a run stored before policies
    /// declared them; ``scope`` then follows the family's role).
    public var signals: [PolicySignal]? = nil

    /// Who can run it: from its signals (``PolicyScope/init(signals:)``); for a run stored before
    /// signals were declared, clairvoyant for the oracles and OS for every other family (the
    /// cautious reading: no old policy is recommended to an app team by accident).
    public var scope: PolicyScope {
        if let signals { return PolicyScope(signals: Set(signals)) }
        return role == .clairvoyant ? .clairvoyant : .os
    }

    enum CodingKeys: String, CodingKey {
        case name, family, params, signals, scope, metrics, perApp = "per_app", perUser = "per_user"
        case perGroup = "per_group"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        try c.encode(family, forKey: .family)
        try c.encode(params, forKey: .params)
        if let signals {
            try c.encode(signals, forKey: .signals)
            try c.encode(scope, forKey: .scope)
        }
        try c.encode(metrics, forKey: .metrics)
        try c.encode(perApp, forKey: .perApp)
        if let perUser {
            try c.encode(perUser, forKey: .perUser)
        } else if let spooledPerUser {
            try c.encode(PerUserSpool.marker(spooledPerUser), forKey: .perUser)
        }
        try c.encodeIfPresent(perGroup, forKey: .perGroup)
    }

    public init(
        name: String, family: String, params: [String: Double], metrics: PolicyMetrics, perApp: [GroupResult] = [],
        perUser: [GroupResult]? = nil, perGroup: [GroupResult]? = nil, signals: [PolicySignal]? = nil
    ) {
        self.signals = signals
        self.name = name
        self.family = family
        self.params = params
        self.metrics = metrics
        self.perApp = perApp
        self.perUser = perUser
        self.perGroup = perGroup
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        family = try c.decode(String.self, forKey: .family)
        params = try c.decode([String: Double].self, forKey: .params)
        signals = try c.decodeIfPresent([PolicySignal].self, forKey: .signals)
        metrics = try c.decode(PolicyMetrics.self, forKey: .metrics)
        perApp = try c.decodeIfPresent([GroupResult].self, forKey: .perApp) ?? []
        perUser = try c.decodeIfPresent([GroupResult].self, forKey: .perUser)
        perGroup = try c.decodeIfPresent([GroupResult].self, forKey: .perGroup)
    }
}

/// A policy's metrics over one app (all users) or one user (all apps): `{"name", "metrics"}`.
public struct GroupResult: Codable, Sendable, Hashable {
    public var name: String
    public var metrics: PolicyMetrics
    /// The evaluated pairs in the group, when known (per app: its users; not encoded).
    public var pairs: Int? = nil

    enum CodingKeys: String, CodingKey { case name, metrics }

    public init(name: String, metrics: PolicyMetrics, pairs: Int? = nil) {
        self.name = name
        self.metrics = metrics
        self.pairs = pairs
    }

    /// Equal by name and metrics: `pairs` is a count the replay knows but a decoded report does not.
    public static func == (a: GroupResult, b: GroupResult) -> Bool { a.name == b.name && a.metrics == b.metrics }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(metrics)
    }
}

/// Why a fetch a policy asked for did not happen (or failed), as counted in `skips`.
public enum SkipReason: String, Codable, Sendable, Hashable, CaseIterable, Comparable {
    case forceQuit = "force_quit"
    case refreshOff = "refresh_off"
    case lowPower = "low_power"
    case lowBattery = "low_battery"
    case noNetwork = "no_network"
    case rateLimit = "rate_limit"
    case quota
    case budget
    case minimumInterval = "minimum_interval"
    case expired
    /// iOS: the app's daily wake budget, which follows how much the user used it, was spent.
    case systemBudget = "system_budget"

    public static func < (a: SkipReason, b: SkipReason) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }

    /// For people: "force-quit", "Low Power Mode".
    public var label: String {
        switch self {
        case .forceQuit: "force-quit"
        case .refreshOff: "refresh off"
        case .lowPower: "Low Power Mode"
        case .lowBattery: "low battery"
        case .noNetwork: "no network"
        case .rateLimit: "rate limit"
        case .quota: "quota"
        case .budget: "budget"
        case .minimumInterval: "minimum interval"
        case .expired: "expired"
        case .systemBudget: "daily wake budget"
        }
    }
}

/// A policy's scores (fresh rates and shares as fractions). JSON keys: `scored_launches`,
/// `fresh_<τ>m` (one per τ), `content_fresh` (null without content updates), `staleness_median_min`,
/// `staleness_p90_min` (null when over half / a tenth of the launches never had a refresh),
/// `staleness_cdf` (the share of launches less than 1, 2, 5, 10, 15, 30, 60, 120, 240, 480, 1440
/// minutes stale: ``stalenessCDFMinutes``),
/// `lead_median_min` (of useful fetches), `fetches`, `fetches_per_app_day`, `wasted_fetches`,
/// `wasted_share`, `energy_j_per_day`, `battery_pct_per_day`, `cellular_mb_per_day` (per user per
/// day), `fetches_low_battery`, `skips` ({reason: count}), `reliability`, and over all users (null
/// per app or user): `fresh_ci` (95 % bootstrap interval of fresh at the primary τ), `gain_vs_fixed`
/// (fresh minus the fixed-interval baseline at the policy's own fetches/app/day), `gain_ci`, and
/// `share_of_possible` (gain / (bound − baseline) at its fetches/app/day; null when the bound is
/// less than 2 points above the baseline).
public struct PolicyMetrics: Codable, Sendable, Hashable {
    public var scoredLaunches: Int
    /// Fresh rates, one per τ of `settings.taus_minutes`.
    public var fresh: [Double]
    public var fetchesPerAppDay: Double
    /// 95 % bootstrap interval over users of fresh at the primary τ.
    public var freshInterval: ConfidenceInterval? = nil
    /// Fresh at the primary τ minus the fixed-interval baseline at the same fetches/app/day.
    public var gainVsFixed: Double? = nil
    public var gainInterval: ConfidenceInterval? = nil
    /// (fresh − baseline) / (bound − baseline) at the same fetches/app/day; never above 1.
    public var shareOfPossible: Double? = nil
    /// The τ of each fresh rate, in minutes (the keys' names).
    public var freshKeys: [String] = []
    /// Share of scored launches with no content newer than the last refresh (nil: no content data).
    public var contentFresh: Double? = nil
    /// Staleness at launch (minutes since the last refresh), median and 90th percentile.
    public var stalenessMedianMinutes: Double? = nil
    public var stalenessP90Minutes: Double? = nil
    /// Median minutes from a useful fetch to the launch it made fresh.
    public var leadMedianMinutes: Double? = nil
    /// The share of scored launches less stale than each of ``stalenessCDFMinutes``.
    public var stalenessCDF: [Double] = []
    /// The staleness thresholds of ``stalenessCDF``, minutes.
    public static let stalenessCDFMinutes: [Double] = [1, 2, 5, 10, 15, 30, 60, 120, 240, 480, 1_440]
    /// Fetches done in the scored span (granted, including expired ones).
    public var fetches: Int = 0
    /// Fetches superseded by another fetch before any launch used them.
    public var wastedFetches: Int = 0
    public var wastedShare: Double = 0
    /// Energy drawn from the battery (not while charging), per user per day.
    public var energyJoulesPerDay: Double = 0
    public var batteryPercentPerDay: Double = 0
    /// Data over cellular, MB per user per day.
    public var cellularMBPerDay: Double = 0
    /// Fetches made on battery below 20 % and not charging.
    public var lowBatteryFetches: Int = 0
    /// Fetches asked for and refused (or expired), by reason.
    public var skips: [SkipReason: Int] = [:]
    /// For policies that state a probability with each fetch (predictive): the stated p against
    /// whether the app was launched within τ after the fetch, in bins (`reliability`, else null).
    public var reliability: ReliabilityTable? = nil

    public init(scoredLaunches: Int, fresh: [Double], fetchesPerAppDay: Double) {
        self.scoredLaunches = scoredLaunches
        self.fresh = fresh
        self.fetchesPerAppDay = fetchesPerAppDay
    }

    /// Fetches refused or expired, all reasons.
    public var skipped: Int { skips.values.reduce(0, +) }

    /// fresh@τ at index `tau` of `fresh` (0 when the run has no such τ).
    public func fresh(at tau: Int) -> Double { fresh.indices.contains(tau) ? fresh[tau] : 0 }

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
        func optional(_ v: Double?, _ k: String) throws {
            if let v { try c.encode(v, forKey: Key(k)) } else { try c.encodeNil(forKey: Key(k)) }
        }
        try optional(contentFresh, "content_fresh")
        try optional(stalenessMedianMinutes, "staleness_median_min")
        try optional(stalenessP90Minutes, "staleness_p90_min")
        try optional(leadMedianMinutes, "lead_median_min")
        try c.encode(stalenessCDF, forKey: Key("staleness_cdf"))
        try c.encode(fetches, forKey: Key("fetches"))
        try c.encode(fetchesPerAppDay, forKey: Key("fetches_per_app_day"))
        try c.encode(wastedFetches, forKey: Key("wasted_fetches"))
        try c.encode(wastedShare, forKey: Key("wasted_share"))
        try c.encode(energyJoulesPerDay, forKey: Key("energy_j_per_day"))
        try c.encode(batteryPercentPerDay, forKey: Key("battery_pct_per_day"))
        try c.encode(cellularMBPerDay, forKey: Key("cellular_mb_per_day"))
        try c.encode(lowBatteryFetches, forKey: Key("fetches_low_battery"))
        var skipsByName: [String: Int] = [:]
        for reason in SkipReason.allCases { skipsByName[reason.rawValue] = skips[reason] ?? 0 }
        try c.encode(skipsByName, forKey: Key("skips"))
        if let reliability {
            try c.encode(reliability, forKey: Key("reliability"))
        } else {
            try c.encodeNil(forKey: Key("reliability"))
        }
        try c.encode(freshInterval, forKey: Key("fresh_ci"))
        try optional(gainVsFixed, "gain_vs_fixed")
        try c.encode(gainInterval, forKey: Key("gain_ci"))
        try optional(shareOfPossible, "share_of_possible")
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        scoredLaunches = try c.decode(Int.self, forKey: Key("scored_launches"))
        fetchesPerAppDay = try c.decode(Double.self, forKey: Key("fetches_per_app_day"))
        freshInterval = try c.decodeIfPresent(ConfidenceInterval.self, forKey: Key("fresh_ci"))
        gainVsFixed = try c.decodeIfPresent(Double.self, forKey: Key("gain_vs_fixed"))
        gainInterval = try c.decodeIfPresent(ConfidenceInterval.self, forKey: Key("gain_ci"))
        shareOfPossible = try c.decodeIfPresent(Double.self, forKey: Key("share_of_possible"))
        let keys = c.allKeys.map(\.stringValue).filter {
            $0.hasPrefix("fresh_") && $0.hasSuffix("m") && Double($0.dropFirst(6).dropLast()) != nil
        }
        let sorted = keys.sorted {
            (Double($0.dropFirst(6).dropLast()) ?? 0) < (Double($1.dropFirst(6).dropLast()) ?? 0)
        }
        freshKeys = sorted
        fresh = try sorted.map { try c.decode(Double.self, forKey: Key($0)) }
        contentFresh = try c.decodeIfPresent(Double.self, forKey: Key("content_fresh"))
        stalenessMedianMinutes = try c.decodeIfPresent(Double.self, forKey: Key("staleness_median_min"))
        stalenessP90Minutes = try c.decodeIfPresent(Double.self, forKey: Key("staleness_p90_min"))
        leadMedianMinutes = try c.decodeIfPresent(Double.self, forKey: Key("lead_median_min"))
        stalenessCDF = try c.decodeIfPresent([Double].self, forKey: Key("staleness_cdf")) ?? []
        fetches = try c.decodeIfPresent(Int.self, forKey: Key("fetches")) ?? 0
        wastedFetches = try c.decodeIfPresent(Int.self, forKey: Key("wasted_fetches")) ?? 0
        wastedShare = try c.decodeIfPresent(Double.self, forKey: Key("wasted_share")) ?? 0
        energyJoulesPerDay = try c.decodeIfPresent(Double.self, forKey: Key("energy_j_per_day")) ?? 0
        batteryPercentPerDay = try c.decodeIfPresent(Double.self, forKey: Key("battery_pct_per_day")) ?? 0
        cellularMBPerDay = try c.decodeIfPresent(Double.self, forKey: Key("cellular_mb_per_day")) ?? 0
        lowBatteryFetches = try c.decodeIfPresent(Int.self, forKey: Key("fetches_low_battery")) ?? 0
        reliability = try c.decodeIfPresent(ReliabilityTable.self, forKey: Key("reliability"))
        let names = try c.decodeIfPresent([String: Int].self, forKey: Key("skips")) ?? [:]
        skips = [:]
        for (k, v) in names {
            if let r = SkipReason(rawValue: k), v > 0 { skips[r] = v }
        }
    }
}
