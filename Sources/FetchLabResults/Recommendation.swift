/// What a comparison recommends, decided here once for every renderer (the text summary's
/// headline, the HTML report's highlighted row and charts): the headline's app-scope setting —
/// the best single setting an app team can ship at or under the headline budget — when it beats
/// the fixed-interval baseline by more than its interval; its figures are that setting's own row.
public struct Recommendation: Sendable, Hashable {
    /// The budget point it is read at (``ComparisonReport/headline``).
    public var point: BudgetPoint
    /// The family's canonical name.
    public var family: String
    /// The family's figures at the budget.
    public var figures: FamilyAtBudget
    /// The policy of the setting (nil when every setting of the family spends more than the budget,
    /// and the figures mix its cheapest setting with `never` across apps).
    public var policy: PolicyResult?

    public init(point: BudgetPoint, family: String, figures: FamilyAtBudget, policy: PolicyResult?) {
        self.point = point
        self.family = family
        self.figures = figures
        self.policy = policy
    }
}

extension ComparisonReport {
    /// The least gain over the fixed-interval baseline (a fraction of launches) that counts as
    /// beating it: half a tenth of a point, below what any figure prints.
    public static let meaningfulGain = 0.0005

    /// The headline as stored, or (a run stored before it was) as the rows give it.
    public var effectiveHeadline: Headline? { headline ?? headlineSettings() }

    /// The recommendation, nil without budget figures, without an app-scope setting at or under
    /// the headline budget, or when that setting does not beat the baseline by more than its
    /// interval.
    public var recommendation: Recommendation? {
        guard let point = headlinePoint, let app = effectiveHeadline?.app, app.beatsBaseline,
            app.gainVsFixed > Self.meaningfulGain, let policy = policies.first(where: { $0.name == app.policy })
        else { return nil }
        let figures = FamilyAtBudget(
            fresh: app.fresh, policy: app.policy, freshInterval: app.freshInterval, gainVsFixed: app.gainVsFixed,
            gainInterval: app.gainInterval, shareOfPossible: policy.metrics.shareOfPossible)
        return Recommendation(point: point, family: app.family, figures: figures, policy: policy)
    }

    /// The recommended policy: the recommendation's setting, when it is a single policy of the run.
    public var recommended: PolicyResult? { recommendation?.policy }

    /// The index of the primary τ in every policy's fresh rates.
    public var primaryTauIndex: Int { settings.taus.firstIndex(of: settings.tau) ?? 0 }

    /// The fixed interval with the highest fresh@τ (the primary τ) among those spending at most
    /// `fetchesPerAppDay` (the first of equals, in the run's order); nil when none does.
    public func bestFixed(spendingAtMost fetchesPerAppDay: Double = .infinity) -> PolicyResult? {
        let tau = primaryTauIndex
        func fresh(_ p: PolicyResult) -> Double { p.metrics.fresh(at: tau) }
        return policies.filter { $0.role == .baseline && $0.metrics.fetchesPerAppDay <= fetchesPerAppDay }
            .reduce(nil) { (b: PolicyResult?, p) in b.map { fresh(p) > fresh($0) ? p : $0 } ?? p }
    }

    /// The run's first policy of `role` (``PolicyRole/floor``: `never`).
    public func first(_ role: PolicyRole) -> PolicyResult? { policies.first { $0.role == role } }
}
