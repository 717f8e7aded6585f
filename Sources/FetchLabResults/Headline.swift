/// One setting the headline names, with that setting's own figures (its row): never a family's
/// curve between two settings.
public struct HeadlineSetting: Codable, Sendable, Hashable {
    /// The policy's canonical name, as `compare --policies` reads it.
    public var policy: String
    public var family: String
    public var scope: PolicyScope
    /// fresh@τ (the primary τ), with its 95 % interval.
    public var fresh: Double
    @NullWhenAbsent public var freshInterval: ConfidenceInterval?
    /// Points over the fixed-interval baseline at its own fetches/app/day, with its interval.
    public var gainVsFixed: Double
    @NullWhenAbsent public var gainInterval: ConfidenceInterval?
    public var fetchesPerAppDay: Double
    /// Whether it beats the baseline by more than its interval (the interval's low end above 0;
    /// without an interval, its gain above ``ComparisonReport/meaningfulGain``).
    public var beatsBaseline: Bool

    enum CodingKeys: String, CodingKey {
        case policy, family, scope, fresh, freshInterval = "fresh_ci", gainVsFixed = "gain_vs_fixed"
        case gainInterval = "gain_ci", fetchesPerAppDay = "fetches_per_app_day", beatsBaseline = "beats_baseline"
    }

    /// A policy's row as a headline setting.
    public init(_ p: PolicyResult, tau: Int) {
        policy = p.name
        family = p.family
        scope = p.scope
        fresh = p.metrics.fresh(at: tau)
        freshInterval = p.metrics.freshInterval
        gainVsFixed = p.metrics.gainVsFixed ?? 0
        gainInterval = p.metrics.gainInterval
        fetchesPerAppDay = p.metrics.fetchesPerAppDay
        beatsBaseline = Self.beats(gain: p.metrics.gainVsFixed ?? 0, interval: p.metrics.gainInterval)
    }

    static func beats(gain: Double, interval: ConfidenceInterval?) -> Bool {
        interval.map { $0.low > 0 } ?? (gain > ComparisonReport.meaningfulGain)
    }
}

/// An app-scope setting carried to a platform: what the app sets there, the policy that models it
/// under the platform's rules, and that policy's own figures replayed under them (what `compare
/// --platform <platform> --policies <policy>` gives on the same users).
public struct HeadlinePlatform: Codable, Sendable, Hashable {
    public var platform: PlatformKind
    /// What is set, in a line, and the code to paste.
    public var setting: String
    public var snippet: String
    @NullWhenAbsent public var note: String?
    /// The policy that models the setting, replayed under `platform`.
    public var policy: String
    /// The app-scope policy it carries (the headline's `app.policy`).
    public var carries: String
    public var fresh: Double
    @NullWhenAbsent public var freshInterval: ConfidenceInterval?
    public var gainVsFixed: Double
    @NullWhenAbsent public var gainInterval: ConfidenceInterval?
    public var fetchesPerAppDay: Double
    /// Requests the app made that the platform refused (a floor's ticks are not requests).
    public var refused: Int
    public var beatsBaseline: Bool

    enum CodingKeys: String, CodingKey {
        case platform, setting, snippet, note, policy, carries, fresh, freshInterval = "fresh_ci"
        case gainVsFixed = "gain_vs_fixed", gainInterval = "gain_ci", fetchesPerAppDay = "fetches_per_app_day"
        case refused, beatsBaseline = "beats_baseline"
    }

    public init(setting s: PlatformSetting, carries: String, replayed p: PolicyResult, tau: Int) {
        platform = s.platform
        setting = s.setting
        snippet = s.snippet
        note = s.note
        policy = p.name
        self.carries = carries
        fresh = p.metrics.fresh(at: tau)
        freshInterval = p.metrics.freshInterval
        gainVsFixed = p.metrics.gainVsFixed ?? 0
        gainInterval = p.metrics.gainInterval
        fetchesPerAppDay = p.metrics.fetchesPerAppDay
        refused = p.metrics.skipped
        beatsBaseline = HeadlineSetting.beats(gain: p.metrics.gainVsFixed ?? 0, interval: p.metrics.gainInterval)
    }
}

/// The headline at one budget, for its two audiences (DOMAIN.md, "Who deploys a policy"): the best
/// single app-scope setting at or under the budget (what an app team can ship), with one line per
/// platform replayed under its rules, and the best single setting of any scope (what a system
/// scheduler could do). JSON `{"budget", "app", "os", "platforms": [...], "lever"}`.
public struct Headline: Codable, Sendable, Hashable {
    public var budget: Double
    @NullWhenAbsent public var app: HeadlineSetting?
    @NullWhenAbsent public var os: HeadlineSetting?
    public var platforms: [HeadlinePlatform] = []
    /// When no app-scope setting beats the baseline by more than its interval: the biggest lever
    /// that does (an app-scope setting above the budget, push on content updates, or the OS's).
    @NullWhenAbsent public var lever: String?

    enum CodingKeys: String, CodingKey { case budget, app, os, platforms, lever }

    public init(budget: Double, app: HeadlineSetting?, os: HeadlineSetting?) {
        self.budget = budget
        self.app = app
        self.os = os
    }
}

extension ComparisonReport {
    /// The best single setting of `scopes` at or under `budget` fetches/app/day: the highest fresh@τ
    /// among the run's causal policies other than `never` (ties: the cheaper, then the run's order).
    public func bestSetting(scopes: Set<PolicyScope>, atMost budget: Double) -> PolicyResult? {
        let tau = primaryTauIndex
        var best: PolicyResult? = nil
        for p in policies where scopes.contains(p.scope) && p.role != .floor && !p.isClairvoyant {
            guard p.metrics.fetchesPerAppDay <= budget + 1e-9 else { continue }
            guard let b = best else {
                best = p
                continue
            }
            let (x, y) = (p.metrics.fresh(at: tau), b.metrics.fresh(at: tau))
            if x > y || (x == y && p.metrics.fetchesPerAppDay < b.metrics.fetchesPerAppDay) { best = p }
        }
        return best
    }

    /// The headline's two settings at the headline budget, from the run's rows (its platform
    /// lines are replayed by the workflow that ran the comparison); nil without budget figures.
    public func headlineSettings() -> Headline? {
        guard let point = headlinePoint else { return nil }
        let tau = primaryTauIndex
        let app = bestSetting(scopes: [.app], atMost: point.budget).map { HeadlineSetting($0, tau: tau) }
        let os = bestSetting(scopes: [.app, .os], atMost: point.budget).map { HeadlineSetting($0, tau: tau) }
        var h = Headline(budget: point.budget, app: app, os: os)
        if app?.beatsBaseline != true { h.lever = lever(budget: point.budget) }
        return h
    }

    /// What does beat the baseline when no app-scope setting at the budget does: push on content
    /// updates, an app-scope setting that spends more, or the OS's best; nil when nothing does.
    func lever(budget: Double) -> String? {
        let tau = primaryTauIndex
        func beats(_ p: PolicyResult) -> Bool {
            HeadlineSetting.beats(gain: p.metrics.gainVsFixed ?? 0, interval: p.metrics.gainInterval)
        }
        func figures(_ p: PolicyResult) -> String {
            String(
                format: "%@ (%.1f%% at %.2f fetches/app/day, %+.1f points)", p.name, p.metrics.fresh(at: tau) * 100,
                p.metrics.fetchesPerAppDay, (p.metrics.gainVsFixed ?? 0) * 100)
        }
        let causal = policies.filter { $0.role != .floor && !$0.isClairvoyant && beats($0) }
        func best(_ ps: [PolicyResult]) -> PolicyResult? {
            ps.max { ($0.metrics.gainVsFixed ?? 0) < ($1.metrics.gainVsFixed ?? 0) }
        }
        // Push: the app-scope settings that act on the server's content updates (by the signals they declare).
        if let push = best(causal.filter { $0.scope == .app && $0.signals?.contains(.contentUpdates) == true }) {
            return "push on content updates: " + figures(push)
        }
        if let more = best(causal.filter { $0.scope == .app }) {
            return "an app-scope setting that spends more: " + figures(more)
        }
        if let os = best(causal.filter { $0.scope == .os && $0.metrics.fetchesPerAppDay <= budget + 1e-9 }) {
            return "only the OS's signals: " + figures(os)
        }
        return nil
    }
}
