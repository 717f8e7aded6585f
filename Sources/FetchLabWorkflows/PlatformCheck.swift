import FetchLabCore
import FetchLabResults
import FetchLabSimulation

/// The tuned setting and the best fixed interval as iOS and Android settings, each replayed under
/// its platform's rules (`tune`'s platform check).
public enum PlatformCheck {
    /// The recommendation and the best fixed interval as iOS and Android settings, each replayed
    /// under its platform's rules on the last fold's held-out part (the launches the choice's own
    /// held-out figures come from), on a sample of its users when they are many
    /// (`Tuner.platformSampleEvery(heldOutUsers:)`); each with what those users' logs hold for
    /// the platforms' device rules.
    public static func run(
        on heldOut: Tuner.HeldOutPart, heldOutUsers: Int, progress: (any WorkProgress)? = nil,
        batches: (([UserHistory]) -> Void) throws -> Void
    ) throws -> [PlatformOutcome] {
        guard !heldOut.measured.isEmpty else { return [] }
        var ios = heldOut.simulator.settings.platform
        ios.kind = .ios
        var settings: [PlatformTranslation] = []
        for policy in heldOut.measured {
            for t in PlatformTranslation.translate(policy, ios: ios)
            where !settings.contains(where: { $0.setting == t.setting }) {
                settings.append(t)
            }
        }
        // Whether a silent push schedule would serve better: replayed with the iOS settings, kept
        // only when the data has content-update times to push on.
        settings.append(PlatformTranslation.silentPush())
        var out: [PlatformOutcome] = []
        for kind in [PlatformKind.ios, .android] {
            let translations = settings.filter { $0.platform == kind }
            var mine = translations.map(\.setting)
            let models = translations.map(\.model)
            guard !models.isEmpty else { continue }
            var simulator = heldOut.simulator
            simulator.settings.platform.kind = kind
            var run = simulator.comparison(policies: models, budgetFigures: false)
            let every = Tuner.platformSampleEvery(heldOutUsers: heldOutUsers)
            var counted = PlatformInputs()
            try batches { batch in
                let kept = batch.filter { heldOut.includes($0.user) && Tuner.inRung($0.user.name, every: every) }
                for _ in kept.count..<batch.count { progress?.advance() }
                counted.add(kept)
                run.add(kept) { progress?.advance() }
            }
            let report = run.report()
            let users = report.settings.users
            let part =
                heldOut.label
                + (every > 1
                    ? ", \(users) of \(heldOutUsers) users (1 in \(every), by a hash of the name)"
                    : ", \(users) users")
            let primary = report.primaryTauIndex
            var policies = report.policies
            if kind == .ios, report.settings.pairsWithContentUpdates == 0 {
                mine.removeLast()
                policies.removeLast()
            }
            for (s, p) in zip(mine, policies) {
                out.append(
                    PlatformOutcome(
                        setting: s, fresh: p.metrics.fresh(at: primary),
                        fetchesPerAppDay: p.metrics.fetchesPerAppDay, joulesPerDay: p.metrics.energyJoulesPerDay,
                        skipped: p.metrics.skipped,
                        skips: Dictionary(uniqueKeysWithValues: p.metrics.skips.map { ($0.key.rawValue, $0.value) }),
                        inputs: counted, part: part, users: users))
            }
        }
        return out
    }
}
