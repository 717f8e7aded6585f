import FetchLabCore
import FetchLabResults
import FetchLabScale
import FetchLabSimulation

/// The headline's platform lines: the best app-scope settings at the headline budget carried to
/// iOS and Android (what the app sets there, `PlatformTranslatable`), each replayed under its
/// platform's rules on the comparison's users, and per platform the best of them at or under the
/// budget. Each line's figures are those `compare --platform <p> --policies <model>` gives.
public enum HeadlinePlatforms {
    /// How many of the run's best app-scope settings at the budget are carried to the platforms.
    public static let candidates = 3

    /// The settings to replay, per platform: the translations of the run's best app-scope
    /// settings at or under the budget (best first), and silent push on iOS when the data has
    /// content updates; each model once.
    public static func settings(
        for report: ComparisonReport, policies: [any FetchPolicy], ios: PlatformModel
    ) -> [(translation: PlatformTranslation, carries: String)] {
        guard let budget = report.headline?.budget ?? report.headlinePoint?.budget else { return [] }
        let tau = report.primaryTauIndex
        let ranked = report.policies.indices.filter { i in
            let p = report.policies[i]
            return p.scope == .app && p.role != .floor && !p.isClairvoyant
                && p.metrics.fetchesPerAppDay <= budget + 1e-9 && i < policies.count
        }.sorted {
            let (a, b) = (report.policies[$0], report.policies[$1])
            return (a.metrics.fresh(at: tau), -$0) > (b.metrics.fresh(at: tau), -$1)
        }
        var out: [(translation: PlatformTranslation, carries: String)] = []
        var taken = Set<String>()
        for kind in [PlatformKind.ios, .android] {
            var found = 0
            for i in ranked where found < candidates {
                let mine = PlatformTranslation.translate(policies[i], ios: ios).filter { $0.platform == kind }
                guard !mine.isEmpty else { continue }
                found += 1
                for t in mine where taken.insert("\(kind.rawValue) \(t.model.name)").inserted {
                    out.append((t, report.policies[i].name))
                }
            }
            if kind == .ios, report.settings.pairsWithContentUpdates > 0 {
                let push = PlatformTranslation.silentPush()
                if taken.insert("ios \(push.model.name)").inserted { out.append((push, push.model.name)) }
            }
        }
        return out
    }

    /// Replays the settings' models under each platform over the same users (one comparison per
    /// platform, every model its own row: a row's figures do not depend on the others in its run),
    /// then keeps per platform the freshest at or under the budget (else the cheapest).
    public static func replay(
        _ report: ComparisonReport, policies: [any FetchPolicy], request: ComparisonRequest,
        batches: HistoryBatches, names: [UserID], progress: (any WorkProgress)?
    ) throws -> [HeadlinePlatform] {
        guard let budget = report.headline?.budget else { return [] }
        var ios = request.settings.platform
        ios.kind = .ios
        let wanted = settings(for: report, policies: policies, ios: ios)
        guard !wanted.isEmpty else { return [] }
        var runs: [(kind: PlatformKind, settings: [(PlatformSetting, String)], run: ComparisonRun)] = []
        for kind in [PlatformKind.ios, .android] {
            let mine = wanted.filter { $0.translation.platform == kind }
            let models = mine.map(\.translation.model)
            let kept = mine.map { ($0.translation.setting, $0.carries) }
            guard !models.isEmpty else { continue }
            var settings = request.settings
            settings.platform.kind = kind
            var simulator = Simulator(evaluation: request.evaluation, settings: settings)
            simulator.perUser = false
            simulator.recordStorage = FileRecordStorage()
            var run = simulator.comparison(policies: models)
            run.seed = request.bootstrapSeed
            run.resamples = request.resamples
            if let given = request.budgets, let first = given.first {
                run.budgets = Array(Set(BudgetSettings.standardBudgets + given)).sorted()
                run.headlineBudget = first
            }
            runs.append((kind, kept, run))
        }
        progress?.begin(total: names.count)
        try batches.forEach(names) { batch in
            for k in runs.indices { runs[k].run.add(batch) }
            for _ in batch { progress?.advance() }
        }
        progress?.end()
        var lines: [HeadlinePlatform] = []
        for r in runs {
            let replayed = r.run.report()
            try r.run.recordStorage.check()
            let tau = replayed.primaryTauIndex
            let candidates = zip(r.settings, replayed.policies).map {
                HeadlinePlatform(setting: $0.0.0, carries: $0.0.1, replayed: $0.1, tau: tau)
            }
            let within = candidates.filter { $0.fetchesPerAppDay <= budget + 1e-9 }
            let best =
                within.isEmpty
                ? candidates.min { $0.fetchesPerAppDay < $1.fetchesPerAppDay }
                : within.max { $0.fresh < $1.fresh }
            if let best { lines.append(best) }
        }
        return lines
    }
}
