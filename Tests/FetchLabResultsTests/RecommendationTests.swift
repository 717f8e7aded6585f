import FetchLabResults
import Foundation
import Testing
import _FetchLabTestSupport

/// A run of `never`, two fixed intervals, a predictive family at two settings and an oracle, with
/// the headline budget at 2 fetches/app/day; `gain` is `predictive(15m,0.3)`'s gain over the
/// baseline, and `scope` who can run the predictive rows.
private func report(gain: Double, predictive scope: PolicyScope = .app) -> ComparisonReport {
    var settings = ComparisonSettings(
        tau: .minutes(15), taus: [.minutes(5), .minutes(15)], launchRefreshes: true, warmUpDays: 7, minLaunches: 5,
        platform: .none, users: 20, pairs: 40, scoredLaunches: 1_000)
    settings.firstScoredDay = "2026-01-08"
    func result(_ name: String, _ family: String, fresh: Double, fpd: Double, gain: Double? = nil) -> PolicyResult {
        var metrics = PolicyMetrics(scoredLaunches: 1_000, fresh: [fresh / 2, fresh], fetchesPerAppDay: fpd)
        metrics.gainVsFixed = gain
        var signals = PolicyResult.fixtureSignals(family: family)
        if family == "predictive", scope == .os { signals.append(.otherLaunches) }
        return PolicyResult(
            name: name, family: family, params: [:], metrics: metrics, perApp: [], signals: signals.sorted())
    }
    var r = ComparisonReport(
        settings: settings,
        policies: [
            result("never", "never", fresh: 0.20, fpd: 0),
            result("fixed(24h)", "fixed", fresh: 0.25, fpd: 1, gain: 0),
            result("fixed(4h)", "fixed", fresh: 0.31, fpd: 6, gain: 0),
            result("fixed(8h)", "fixed", fresh: 0.28, fpd: 3, gain: 0),
            result("predictive(15m,0.3)", "predictive", fresh: 0.30 + gain, fpd: 2, gain: gain),
            result("predictive(15m,0.2)", "predictive", fresh: 0.40, fpd: 5, gain: 0.04),
            result("oracle", "oracle", fresh: 1, fpd: 30),
        ])
    r.budget = BudgetSettings(
        budgets: [1, 2], headlineBudget: 2, resamples: 0, seed: 1, boundSaturation: 3, warnings: [])
    func family(_ gain: Double) -> FamilyAtBudget {
        FamilyAtBudget(
            fresh: 0.30 + gain, policy: "predictive(15m,0.3)", freshInterval: nil, gainVsFixed: gain,
            gainInterval: nil, shareOfPossible: nil)
    }
    r.budgetCurve = [
        BudgetPoint(budget: 1, fixed: 0.25, fixedInterval: nil, bound: 0.8, never: 0.2, families: [:]),
        BudgetPoint(
            budget: 2, fixed: 0.30, fixedInterval: nil, bound: 0.9, never: 0.2,
            families: ["predictive": family(gain), "budgeted": family(gain / 2)]),
    ]
    return r
}

@Suite struct RecommendationTests {
    @Test func theBestAppSettingAtTheHeadlineBudgetIsRecommendedWhenItBeatsTheBaseline() throws {
        let r = report(gain: 0.05)
        let rec = try #require(r.recommendation)
        #expect(rec.point.budget == 2)
        #expect(rec.family == "predictive")
        #expect(rec.policy?.name == "predictive(15m,0.3)")
        #expect(rec.figures.fresh == 0.35)
        #expect(r.recommended == rec.policy)
    }

    @Test func nothingIsRecommendedAtOrBelowTheMeaningfulGain() {
        #expect(report(gain: ComparisonReport.meaningfulGain).recommendation == nil)
        #expect(report(gain: 0).recommendation == nil)
        #expect(report(gain: -0.02).recommendation == nil)
    }

    @Test func aSettingOnlyTheOSCanRunIsNeverRecommended() throws {
        let r = report(gain: 0.05, predictive: .os)
        #expect(r.recommendation == nil)
        let headline = try #require(r.effectiveHeadline)
        #expect(headline.app?.policy == "fixed(24h)")
        #expect(headline.os?.policy == "predictive(15m,0.3)")
        #expect(headline.os?.scope == .os)
    }

    /// When no app-scope setting at the budget beats the baseline, the lever names the best
    /// setting that acts on content updates (by its declared signals, whatever its family's name)
    /// before an app-scope setting that spends more.
    @Test func theLeverIsTheSettingThatActsOnContentUpdates() throws {
        var r = report(gain: 0)
        var metrics = PolicyMetrics(scoredLaunches: 1_000, fresh: [0.3, 0.6], fetchesPerAppDay: 4)
        metrics.gainVsFixed = 0.2
        r.policies.insert(
            PolicyResult(
                name: "server-push(3)", family: "server-push", params: [:], metrics: metrics,
                signals: [.contentUpdates]), at: 5)
        let headline = try #require(r.headlineSettings())
        #expect(headline.app?.beatsBaseline == false)
        #expect(headline.lever?.hasPrefix("push on content updates: server-push(3) (60.0% at 4.00") == true)
        // Without that setting, the lever is the app-scope setting that spends more.
        let without = try #require(report(gain: 0).headlineSettings())
        #expect(without.lever?.hasPrefix("an app-scope setting that spends more: predictive(15m,0.2)") == true)
    }

    @Test func withoutBudgetFiguresNothingIsRecommended() {
        var r = report(gain: 0.05)
        r.budgetCurve = []
        #expect(r.recommendation == nil)
    }

    @Test func theBestFixedIntervalSpendsNoMoreThanAsked() {
        let r = report(gain: 0.05)
        #expect(r.bestFixed()?.name == "fixed(4h)")
        #expect(r.bestFixed(spendingAtMost: 3)?.name == "fixed(8h)")
        #expect(r.bestFixed(spendingAtMost: 2)?.name == "fixed(24h)")
        #expect(r.bestFixed(spendingAtMost: 0.5) == nil)
        #expect(r.first(.floor)?.name == "never")
        #expect(r.primaryTauIndex == 1)
    }
}

@Suite struct PolicyRoleTests {
    /// A result read back from JSON: its role from its family's name and, when it has them, its signals.
    @Test func aResultReadBackHasItsFamilysRole() {
        #expect(PolicyRole(reading: "never") == .floor)
        #expect(PolicyRole(reading: "fixed") == .baseline)
        #expect(PolicyRole(reading: "oracle") == .bound)
        #expect(PolicyRole(reading: "budget-oracle") == .clairvoyant)
        #expect(PolicyRole(reading: "predictive") == .family)
        #expect(PolicyRole(reading: "per-app") == .family)
        // A policy that declares the future among its signals reads it, whatever its family.
        #expect(PolicyRole(reading: "per-app", signals: [.ownLaunches, .future]) == .clairvoyant)
        #expect(PolicyRole(reading: "oracle", signals: [.future]) == .bound)
        #expect(PolicyRole.allCases.filter(\.readsFuture) == [.bound, .clairvoyant])
    }

    /// The role a result is built with is the one it keeps, and its JSON reads back to it.
    @Test func aResultKeepsItsDeclaredRoleThroughJSON() throws {
        let metrics = PolicyMetrics(scoredLaunches: 10, fresh: [0.5], fetchesPerAppDay: 1)
        let oracle = PolicyResult(
            name: "oracle", family: "oracle", params: [:], metrics: metrics, signals: [.future],
            role: .bound)
        #expect(oracle.isUnbudgetedOracle && oracle.isClairvoyant && !oracle.isReadAtBudget)
        let data = try JSONEncoder().encode(oracle)
        #expect(!String(decoding: data, as: UTF8.self).contains("role"))
        #expect(try JSONDecoder().decode(PolicyResult.self, from: data).role == .bound)
        let never = PolicyResult(name: "never", family: "never", params: [:], metrics: metrics, signals: [])
        #expect(never.role == .floor && !never.isClairvoyant)
    }

    @Test func onlyCausalFamiliesAreReadAtABudget() {
        #expect(PolicyRole.allCases.filter(\.isReadAtBudget) == [.family])
    }
}
