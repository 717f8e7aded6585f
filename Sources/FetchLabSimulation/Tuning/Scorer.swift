import FetchLabCore
import FetchLabResults

/// The training parts of every fold, replayed together: each setting on every part.
struct Training {
    var parts: [Scorer]

    /// Replays the policies not yet replayed on every part (see ``Scorer/score(_:alongside:)``).
    mutating func score(_ policies: [any FetchPolicy], alongside others: [any FetchPolicy] = []) throws {
        for i in parts.indices { try parts[i].score(policies, alongside: others) }
    }

    /// A policy's metrics on each part.
    func metrics(_ name: String) -> [PolicyMetrics] { parts.map { $0.metrics(name) } }

    /// `never`'s metrics on each part (nil: not replayed on every part).
    var nevers: [PolicyMetrics]? {
        let all = parts.compactMap(\.never)
        return all.count == parts.count ? all : nil
    }
}

/// Replays policies over the users of one split, each canonical name at most once.
struct Scorer {
    let simulator: Simulator
    let users: Tuner.UserBatches
    var include: (UserID) -> Bool
    /// The last local day the training part may see: each history is cut at the following local
    /// midnight before it is replayed, so no later event (nor its count of launches, which picks
    /// the evaluated apps) reaches selection.
    var cut: CivilDate? = nil
    /// The group of each user, by name (empty: no groups of users).
    var userGroups: [String: String] = [:]
    /// The launches per day that part light, moderate and heavy users (nil: users not grouped).
    var groupThresholds: (Double, Double)? = nil
    var cache: [String: PolicyResult] = [:]
    /// Users replayed (the last comparison's).
    var usersReplayed = 0
    /// Settings replayed (cache misses of counted rounds).
    var replays = 0
    var userReplayed: (@Sendable () -> Void)? = nil
    /// Users with a scored launch (the last comparison's).
    var scoredUsers = 0
    /// Keep each policy's ``UserTally`` figures (its fresh launches per τ) per user in ``tallies``.
    var keepsTallies = false
    /// With ``keepsTallies``: also per scored local day of each user (``Tally/days``).
    var tallyDays = false
    var tallies: [String: [Tally]] = [:]

    /// One user's figures under one policy: scored launches and, per τ, those fresh; per day when
    /// the scorer tallies days.
    struct Tally {
        var user: String
        var scored: Int
        var fresh: [Int]
        var days: [(day: Int, scored: Int, fresh: [Int])]
    }

    init(simulator: Simulator, users: @escaping Tuner.UserBatches, include: @escaping (UserID) -> Bool) {
        self.simulator = simulator
        self.users = users
        self.include = include
    }

    /// Replays the policies not yet in the cache, and the uncounted `others` (baselines) with them,
    /// all in one comparison (users loaded once); ``replays`` counts the first ones.
    mutating func score(_ policies: [any FetchPolicy], alongside others: [any FetchPolicy] = []) throws {
        let (missing, counted) = self.missing(policies, alongside: others)
        guard !missing.isEmpty else { return }
        var run = comparison(missing)
        try replay(into: &run)
        keep(run, missing: missing, counted: counted)
    }

    /// The policies not yet in the cache, each name once: `policies`' first (`counted` of them),
    /// then `others`'.
    func missing(_ policies: [any FetchPolicy], alongside others: [any FetchPolicy]) -> (
        missing: [any FetchPolicy], counted: Int
    ) {
        var missing: [any FetchPolicy] = []
        var names = Set<String>()
        for p in policies where cache[p.name] == nil && names.insert(p.name).inserted { missing.append(p) }
        let counted = missing.count
        for p in others where cache[p.name] == nil && names.insert(p.name).inserted { missing.append(p) }
        return (missing, counted)
    }

    /// The comparison that replays `policies` over this part, before any user is added.
    func comparison(_ policies: [any FetchPolicy]) -> ComparisonRun {
        // No tuning metric needs the budget figures (bound, baseline, bootstrap).
        var run = simulator.comparison(policies: policies, budgetFigures: false)
        run.tallyUsers = true
        run.tallyDays = keepsTallies && tallyDays
        if !userGroups.isEmpty { run.userGroups = userGroups }
        return run
    }

    /// Adds this part's users to `run`, each cut at ``cut`` when set.
    func replay(into run: inout ComparisonRun) throws {
        let include = self.include
        let cut = self.cut
        let userReplayed = self.userReplayed
        try users { batch in
            let kept = batch.filter { include($0.user) }
            for _ in kept.count..<batch.count { userReplayed?() }
            let prepare: (@Sendable (UserHistory) -> UserHistory)? =
                cut.map { day in { @Sendable history in Tuner.cut(history, at: day) } }
            run.add(kept, progress: userReplayed, prepare: prepare)
        }
    }

    /// Caches the figures of `run`, a comparison of `missing` over this part's users (replayed
    /// here, or merged from shards' partials), the first `counted` of them counted as replays.
    mutating func keep(_ run: ComparisonRun, missing: [any FetchPolicy], counted: Int) {
        let report = run.report()
        for (p, result) in zip(missing, report.policies) { cache[p.name] = result }
        usersReplayed = report.settings.users
        scoredUsers = run.scoredUsers
        if keepsTallies {
            for (i, p) in missing.enumerated() {
                tallies[p.name] = run.userTallies.map { u in
                    Tally(
                        user: u.user, scored: u.scored, fresh: u.fresh[i],
                        days: u.days.map { ($0.day, $0.scored, $0.fresh[i]) })
                }
            }
        }
        replays += counted
    }

    func metrics(_ name: String) -> PolicyMetrics { cache[name]!.metrics }

    /// `never`'s metrics on this part (nil: not replayed here).
    var never: PolicyMetrics? { cache[Tuner.neverName]?.metrics }

    /// A policy's metrics over one app or one group of users (nil: not in this part).
    func group(_ kind: GroupRecommendation.Kind, _ group: String, of name: String) -> PolicyMetrics? {
        guard let result = cache[name] else { return nil }
        let groups = kind == .app ? result.perApp : result.perGroup ?? []
        return groups.first { $0.name == group }?.metrics
    }
}
