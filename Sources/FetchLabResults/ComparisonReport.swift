import FetchLabCore

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
    /// The primary τ, a span: rendered in minutes (JSON `tau_minutes`).
    public var tau: Microseconds
    /// Every τ the fresh rates are given at, in the order of ``PolicyMetrics/fresh`` (JSON `taus_minutes`).
    public var taus: [Microseconds]
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
        case tau = "tau_minutes", taus = "taus_minutes", launchRefreshes = "launch_refreshes"
        case warmUpDays = "warm_up_days", minLaunches = "min_launches", platform, users, pairs
        case scoredLaunches = "scored_launches", platformRules = "platform_rules", cost = "cost_model"
        case contextDefaults = "context_defaults", usersWithoutContext = "users_without_context"
        case pairsWithContentUpdates = "pairs_with_content_updates", firstScoredDay = "first_scored_day"
        case lastScoredDay = "last_scored_day", shard
    }

    public init(
        tau: Microseconds, taus: [Microseconds], launchRefreshes: Bool, warmUpDays: Int, minLaunches: Int,
        platform: PlatformKind, users: Int, pairs: Int, scoredLaunches: Int
    ) {
        self.tau = tau
        self.taus = taus
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
        // Spans read from a file: minutes no span holds are refused, not trapped on.
        tau = try c.decode(InMinutes.self, forKey: .tau).wrappedValue
        taus = try c.decode([InMinutes].self, forKey: .taus).map(\.wrappedValue)
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

    /// The spans in minutes, as the JSON and every table write them.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(tau.inMinutes, forKey: .tau)
        try c.encode(taus.map(\.inMinutes), forKey: .taus)
        try c.encode(launchRefreshes, forKey: .launchRefreshes)
        try c.encode(warmUpDays, forKey: .warmUpDays)
        try c.encode(minLaunches, forKey: .minLaunches)
        try c.encode(platform, forKey: .platform)
        try c.encode(users, forKey: .users)
        try c.encode(pairs, forKey: .pairs)
        try c.encode(scoredLaunches, forKey: .scoredLaunches)
        try c.encode(platformRules, forKey: .platformRules)
        try c.encode(cost, forKey: .cost)
        try c.encode(contextDefaults, forKey: .contextDefaults)
        try c.encode(usersWithoutContext, forKey: .usersWithoutContext)
        try c.encode(pairsWithContentUpdates, forKey: .pairsWithContentUpdates)
        try c.encodeIfPresent(firstScoredDay, forKey: .firstScoredDay)
        try c.encodeIfPresent(lastScoredDay, forKey: .lastScoredDay)
        try c.encodeIfPresent(shard, forKey: .shard)
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
    /// Set when the per-user metrics are in ``PerUserRows`` instead of ``perUser`` (its policy
    /// index): encoded as a marker that ``PerUserRows/writeJSON(_:to:)`` replaces with the rows.
    public var spooledPerUser: Int? = nil
    /// The signals the policy reads, in ``PolicySignal``'s order (nil: a run stored before policies
    /// declared them; ``scope`` then follows the family's role).
    public var signals: [PolicySignal]? = nil
    /// How the figures treat it: declared by the policy and carried by the replay; a result read
    /// back from JSON derives it (``PolicyRole/init(reading:signals:)``).
    public var role: PolicyRole

    /// Who can run it: from its signals (``PolicyScope/init(signals:)``); for a run stored before
    /// signals were declared, clairvoyant for the oracles and OS for every other family (the
    /// cautious reading: no old policy is recommended to an app team by accident).
    public var scope: PolicyScope {
        if let signals { return PolicyScope(signals: Set(signals)) }
        return role.readsFuture ? .clairvoyant : .os
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
            try c.encode(PerUserMarker.marker(spooledPerUser), forKey: .perUser)
        }
        try c.encodeIfPresent(perGroup, forKey: .perGroup)
    }

    public init(
        name: String, family: String, params: [String: Double], metrics: PolicyMetrics, perApp: [GroupResult] = [],
        perUser: [GroupResult]? = nil, perGroup: [GroupResult]? = nil, signals: [PolicySignal]? = nil,
        role: PolicyRole? = nil
    ) {
        self.signals = signals
        self.role = role ?? PolicyRole(reading: family, signals: signals)
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
        role = PolicyRole(reading: family, signals: signals)
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
