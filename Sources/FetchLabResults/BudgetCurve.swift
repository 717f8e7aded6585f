/// A 95 % interval, encoded as `[low, high]`.
public struct ConfidenceInterval: Codable, Sendable, Hashable {
    public var low: Double
    public var high: Double

    public init(low: Double, high: Double) {
        self.low = low
        self.high = high
    }

    public init(from decoder: any Decoder) throws {
        var c = try decoder.unkeyedContainer()
        low = try c.decode(Double.self)
        high = try c.decode(Double.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.unkeyedContainer()
        try c.encode(low)
        try c.encode(high)
    }

    /// The 2.5 % and 97.5 % quantiles of `draws` (linear between order statistics), nil when empty.
    public static func percentile(_ draws: [Double]) -> ConfidenceInterval? {
        guard !draws.isEmpty else { return nil }
        let s = draws.sorted()
        func q(_ p: Double) -> Double {
            let h = p * Double(s.count - 1)
            let i = Int(h)
            return i + 1 < s.count ? s[i] + (h - Double(i)) * (s[i + 1] - s[i]) : s[i]
        }
        return ConfidenceInterval(low: q(0.025), high: q(0.975))
    }
}

/// One policy family at a budget: the fresh rate of its Pareto front at the budget, the setting
/// that reaches it, and how it compares with the fixed-interval baseline and the bound. Absent
/// values are encoded as `null`.
public struct FamilyAtBudget: Codable, Sendable, Hashable {
    /// fresh@τ of the family's Pareto front (with `never` at no cost) read at the budget.
    public var fresh: Double
    /// The family's best setting spending at most the budget (nil: every setting spends more, and
    /// `fresh` mixes the cheapest with `never` across apps).
    @NullWhenAbsent public var policy: String?
    @NullWhenAbsent public var freshInterval: ConfidenceInterval?
    /// Points (fraction) over the fixed-interval baseline at the budget, with its interval.
    public var gainVsFixed: Double
    @NullWhenAbsent public var gainInterval: ConfidenceInterval?
    /// (family − fixed) / (bound − fixed), nil when the bound is less than 2 points above fixed.
    @NullWhenAbsent public var shareOfPossible: Double?

    enum CodingKeys: String, CodingKey {
        case fresh, policy, freshInterval = "fresh_ci", gainVsFixed = "gain_vs_fixed", gainInterval = "gain_ci"
        case shareOfPossible = "share_of_possible"
    }

    public init(
        fresh: Double, policy: String?, freshInterval: ConfidenceInterval?, gainVsFixed: Double,
        gainInterval: ConfidenceInterval?, shareOfPossible: Double?
    ) {
        self.fresh = fresh
        self.policy = policy
        self.freshInterval = freshInterval
        self.gainVsFixed = gainVsFixed
        self.gainInterval = gainInterval
        self.shareOfPossible = shareOfPossible
    }
}

/// Freshness at one budget (fetches per app per day, averaged over pairs): the fixed-interval
/// baseline, the clairvoyant bound, `never`, and each causal family's front.
public struct BudgetPoint: Codable, Sendable, Hashable {
    public var budget: Double
    public var fixed: Double
    @NullWhenAbsent public var fixedInterval: ConfidenceInterval?
    public var bound: Double
    public var never: Double
    public var families: [String: FamilyAtBudget]

    enum CodingKeys: String, CodingKey {
        case budget, fixed, fixedInterval = "fixed_ci", bound, never, families
    }

    public init(
        budget: Double, fixed: Double, fixedInterval: ConfidenceInterval?, bound: Double, never: Double,
        families: [String: FamilyAtBudget]
    ) {
        self.budget = budget
        self.fixed = fixed
        self.fixedInterval = fixedInterval
        self.bound = bound
        self.never = never
        self.families = families
    }

    /// The family with the highest fresh rate at this budget (ties: by name).
    public var best: (family: String, result: FamilyAtBudget)? {
        families.sorted { $0.key < $1.key }.max { $0.value.fresh < $1.value.fresh }.map { ($0.key, $0.value) }
    }
}

/// What a bootstrap interval resamples (DOMAIN.md, "Intervals").
public enum IntervalBasis: String, Codable, Sendable, Hashable {
    /// The users, with replacement.
    case users
    /// Each user's scored local days (whole days as blocks), each user keeping its place: with
    /// fewer than `BudgetSettings.fewUsers` users an interval over users is not one.
    case days
}

/// How the budget figures were computed and what they rest on: `{"budgets", "headline_budget",
/// "resamples", "seed", "interval_over", "bound_saturation", "warnings"}`.
public struct BudgetSettings: Codable, Sendable, Hashable {
    /// The budgets of ``ComparisonReport/budgetCurve``.
    public var budgets: [Double]
    /// The budget the headline is read at.
    public var headlineBudget: Double
    /// Bootstrap: resamples and seed.
    public var resamples: Int
    public var seed: UInt64
    /// What the bootstrap resampled (a run stored before it said so: users).
    public var intervalOver: IntervalBasis = .users
    /// Fetches per app per day with which the clairvoyant bound makes every launch fresh.
    public var boundSaturation: Double
    /// One-line cautions (fewer than 10 users or 500 scored launches).
    public var warnings: [String]

    enum CodingKeys: String, CodingKey {
        case budgets, headlineBudget = "headline_budget", resamples, seed, intervalOver = "interval_over"
        case boundSaturation = "bound_saturation", warnings
    }

    public init(
        budgets: [Double], headlineBudget: Double, resamples: Int, seed: UInt64, boundSaturation: Double,
        warnings: [String]
    ) {
        self.budgets = budgets
        self.headlineBudget = headlineBudget
        self.resamples = resamples
        self.seed = seed
        self.boundSaturation = boundSaturation
        self.warnings = warnings
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        budgets = try c.decode([Double].self, forKey: .budgets)
        headlineBudget = try c.decode(Double.self, forKey: .headlineBudget)
        resamples = try c.decode(Int.self, forKey: .resamples)
        seed = try c.decode(UInt64.self, forKey: .seed)
        intervalOver = try c.decodeIfPresent(IntervalBasis.self, forKey: .intervalOver) ?? .users
        boundSaturation = try c.decode(Double.self, forKey: .boundSaturation)
        warnings = try c.decode([String].self, forKey: .warnings)
    }

    /// What the intervals are over, as every output says it: `over users`, or `over days of these
    /// 2 users, not over users`.
    public static func intervalScope(over: IntervalBasis, users: Int) -> String {
        switch over {
        case .users: "over users"
        case .days: "over days of \(users == 1 ? "this user" : "these \(users) users"), not over users"
        }
    }

    /// The title of a column of 95 % intervals: `95% CI`, or `95% CI over days` when they resample days.
    public var intervalColumn: String { intervalOver == .days ? "95% CI over days" : "95% CI" }

    /// The standard budgets, fetches per app per day.
    public static let standardBudgets: [Double] = [0.5, 1, 2, 5, 10]
    /// The budget of the headline unless the user chooses.
    public static let defaultHeadline = 2.0
    /// Figures resting on fewer users or scored launches than these get a warning, and with
    /// fewer users than this the intervals resample each user's days instead of the users.
    public static let fewUsers = 10
    public static let fewLaunches = 500
}
