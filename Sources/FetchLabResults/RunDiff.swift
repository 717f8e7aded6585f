import FetchLabCore

/// Two stored comparison runs side by side (`fetchlab runs diff A B`): for each policy present in
/// both, fresh at the primary τ, fetches per app per day and energy per user per day in each run
/// and the difference B − A; each difference has a 95 % bootstrap interval over users when both
/// runs hold per-user figures (`compare --per-user`), and none otherwise (never an invented one).
public struct RunDiff: Sendable, Hashable, Encodable {
    /// The figures of one policy in one run (or their difference).
    public struct Figures: Sendable, Hashable, Encodable {
        public var fresh: Double
        public var fetchesPerAppDay: Double
        public var energyJoulesPerDay: Double

        enum CodingKeys: String, CodingKey {
            case fresh, fetchesPerAppDay = "fetches_per_app_day", energyJoulesPerDay = "energy_j_per_day"
        }

        public static func - (b: Figures, a: Figures) -> Figures {
            Figures(
                fresh: b.fresh - a.fresh, fetchesPerAppDay: b.fetchesPerAppDay - a.fetchesPerAppDay,
                energyJoulesPerDay: b.energyJoulesPerDay - a.energyJoulesPerDay)
        }
    }

    /// One policy present in both runs.
    public struct Row: Sendable, Hashable, Encodable {
        public var name: String
        public var a: Figures
        public var b: Figures
        public var difference: Figures
        /// 95 % bootstrap intervals of the differences (B − A) in fresh, fetches per app per day and
        /// energy per user per day; nil without per-user figures.
        public var freshDifferenceInterval: ConfidenceInterval?
        public var fetchesDifferenceInterval: ConfidenceInterval? = nil
        public var energyDifferenceInterval: ConfidenceInterval? = nil

        enum CodingKeys: String, CodingKey {
            case name, a, b, difference, freshDifferenceInterval = "fresh_difference_ci"
            case fetchesDifferenceInterval = "fetches_difference_ci", energyDifferenceInterval = "energy_difference_ci"
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(name, forKey: .name)
            try c.encode(a, forKey: .a)
            try c.encode(b, forKey: .b)
            try c.encode(difference, forKey: .difference)
            try c.encode(freshDifferenceInterval, forKey: .freshDifferenceInterval)
            try c.encode(fetchesDifferenceInterval, forKey: .fetchesDifferenceInterval)
            try c.encode(energyDifferenceInterval, forKey: .energyDifferenceInterval)
        }
    }

    public var runA: Int64
    public var runB: Int64
    /// The primary τ of each run, a span (JSON: minutes).
    public var tauA: Microseconds
    public var tauB: Microseconds
    /// The settings that differ between the runs, one phrase each (`τ 15 min vs 30 min`).
    public var differingSettings: [String]
    /// Why there is no interval, when there is none (`no interval: runs stored without per-user figures`).
    public var intervalNote: String?
    /// Whether the interval resamples the same users in both runs (paired) or each run's own.
    public var pairedUsers: Bool
    public var policies: [Row]
    public var onlyInA: [String]
    public var onlyInB: [String]

    enum CodingKeys: String, CodingKey {
        case runA = "run_a", runB = "run_b", tauA = "tau_minutes_a", tauB = "tau_minutes_b"
        case differingSettings = "differing_settings", intervalNote = "interval_note", pairedUsers = "paired_users"
        case policies, onlyInA = "only_in_a", onlyInB = "only_in_b"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(runA, forKey: .runA)
        try c.encode(runB, forKey: .runB)
        try c.encode(tauA.inMinutes, forKey: .tauA)
        try c.encode(tauB.inMinutes, forKey: .tauB)
        try c.encode(differingSettings, forKey: .differingSettings)
        try c.encode(intervalNote, forKey: .intervalNote)
        try c.encode(pairedUsers, forKey: .pairedUsers)
        try c.encode(policies, forKey: .policies)
        try c.encode(onlyInA, forKey: .onlyInA)
        try c.encode(onlyInB, forKey: .onlyInB)
    }

    public static let noPerUserNote = "no interval: runs stored without per-user figures"

    /// The diff of run `a` (id `idA`) and run `b`; `resamples` draws of users for the interval.
    public init(_ a: ComparisonReport, id idA: Int64, _ b: ComparisonReport, id idB: Int64, resamples: Int = 1_000) {
        runA = idA
        runB = idB
        tauA = a.settings.tau
        tauB = b.settings.tau
        differingSettings = Self.differences(a.settings, b.settings)
        let namesA = a.policies.map(\.name)
        let namesB = b.policies.map(\.name)
        onlyInA = namesA.filter { !namesB.contains($0) }
        onlyInB = namesB.filter { !namesA.contains($0) }
        let tauA = a.primaryTauIndex
        let tauB = b.primaryTauIndex
        func figures(_ p: PolicyResult, tau: Int) -> Figures {
            Figures(
                fresh: p.metrics.fresh(at: tau),
                fetchesPerAppDay: p.metrics.fetchesPerAppDay, energyJoulesPerDay: p.metrics.energyJoulesPerDay)
        }
        let withUsers = { (r: ComparisonReport) in r.policies.contains { !($0.perUser ?? []).isEmpty } }
        let perUser = withUsers(a) && withUsers(b)
        var paired = false
        var rows: [Row] = []
        for pa in a.policies {
            guard let pb = b.policies.first(where: { $0.name == pa.name }) else { continue }
            let fa = figures(pa, tau: tauA)
            let fb = figures(pb, tau: tauB)
            var row = Row(name: pa.name, a: fa, b: fb, difference: fb - fa, freshDifferenceInterval: nil)
            if perUser, let ua = pa.perUser, let ub = pb.perUser, !ua.isEmpty, !ub.isEmpty {
                let sums = { (users: [GroupResult], tau: Int) in
                    Dictionary(
                        users.map { u -> (String, UserSums) in
                            let m = u.metrics
                            let fresh = (m.fresh(at: tau) * Double(m.scoredLaunches)).rounded()
                            return (
                                u.name,
                                [fresh, Double(m.scoredLaunches), m.fetchesPerAppDay, 1, m.energyJoulesPerDay, 1]
                            )
                        }, uniquingKeysWith: { x, _ in x })
                }
                let sa = sums(ua, tauA)
                let sb = sums(ub, tauB)
                let samePeople = Set(sa.keys) == Set(sb.keys)
                paired = samePeople
                let intervals = Self.bootstrap(sa, sb, paired: samePeople, resamples: resamples)
                row.freshDifferenceInterval = intervals[0]
                // Per-user rows weigh users equally; the run's fetches per app per day weighs pairs (and
                // its energy, users with scored launches), so these two intervals are the bootstrap's
                // spread about the users' difference, placed on the run's difference.
                let centre = Self.ratioDifference(sa, sb)
                let shifted = { (k: Int, point: Double) in
                    intervals[k].map {
                        ConfidenceInterval(low: point + $0.low - centre[k], high: point + $0.high - centre[k])
                    }
                }
                row.fetchesDifferenceInterval = shifted(1, row.difference.fetchesPerAppDay)
                row.energyDifferenceInterval = shifted(2, row.difference.energyJoulesPerDay)
            }
            rows.append(row)
        }
        policies = rows
        pairedUsers = paired
        intervalNote = perUser ? nil : Self.noPerUserNote
    }

    /// The settings of the evaluation protocol that differ, as phrases.
    static func differences(_ a: ComparisonSettings, _ b: ComparisonSettings) -> [String] {
        func minutes(_ m: Double) -> String { m == m.rounded() ? "\(Int(m)) min" : "\(m) min" }
        var out: [String] = []
        if a.tau != b.tau { out.append("τ \(minutes(a.tau.inMinutes)) vs \(minutes(b.tau.inMinutes))") }
        if a.launchRefreshes != b.launchRefreshes {
            out.append("launch refreshes \(a.launchRefreshes ? "on" : "off") vs \(b.launchRefreshes ? "on" : "off")")
        }
        if a.warmUpDays != b.warmUpDays { out.append("warm-up \(a.warmUpDays) vs \(b.warmUpDays) days") }
        if a.minLaunches != b.minLaunches { out.append("min launches \(a.minLaunches) vs \(b.minLaunches)") }
        if a.platform != b.platform { out.append("platform \(a.platform) vs \(b.platform)") }
        if a.contextDefaults != b.contextDefaults { out.append("context defaults differ") }
        if a.cost != b.cost { out.append("cost model differs") }
        if a.platformRules != b.platformRules { out.append("platform rules differ") }
        return out
    }

    /// One user's figures as (numerator, denominator) pairs, one pair per statistic: fresh launches
    /// and scored launches; fetches per app per day and 1; energy per day and 1.
    typealias UserSums = [Double]

    /// Each statistic's Σ numerator / Σ denominator in B minus the same in A, over all users.
    static func ratioDifference(_ a: [String: UserSums], _ b: [String: UserSums]) -> [Double] {
        let total = { (users: [String: UserSums]) -> UserSums in
            users.keys.sorted().reduce(into: UserSums(repeating: 0, count: users.values.first?.count ?? 0)) {
                for (i, v) in users[$1]!.enumerated() { $0[i] += v }
            }
        }
        let (ta, tb) = (total(a), total(b))
        func ratio(_ t: UserSums, _ i: Int) -> Double { t[i + 1] > 0 ? t[i] / t[i + 1] : 0 }
        return stride(from: 0, to: min(ta.count, tb.count), by: 2).map { (i: Int) -> Double in
            ratio(tb, i) - ratio(ta, i)
        }
    }

    /// For each statistic of ``UserSums``, the 2.5th and 97.5th percentiles of its difference
    /// B − A over `resamples` draws of users with replacement (the same draw in both runs when
    /// `paired`); nil with fewer than two users a side.
    static func bootstrap(
        _ a: [String: UserSums], _ b: [String: UserSums], paired: Bool, resamples: Int, seed: UInt64 = 1
    ) -> [ConfidenceInterval?] {
        let names = a.keys.sorted()
        let usersA = names.map { a[$0]! }
        let usersB = paired ? names.map { b[$0]! } : b.keys.sorted().map { b[$0]! }
        let width = min(usersA.first?.count ?? 0, usersB.first?.count ?? 0)
        let statistics = width / 2
        guard usersA.count >= 2, usersB.count >= 2, resamples >= 2, statistics > 0 else {
            return [ConfidenceInterval?](repeating: nil, count: max(statistics, 1))
        }
        var rng = SplitMix64(seed: seed)
        var diffs = [[Double]](repeating: [], count: statistics)
        for _ in 0..<resamples {
            var sa = [Double](repeating: 0, count: width)
            var sb = [Double](repeating: 0, count: width)
            for _ in usersA.indices {
                let k = Int(rng.next() % UInt64(usersA.count))
                for i in 0..<width { sa[i] += usersA[k][i] }
                if paired { for i in 0..<width { sb[i] += usersB[k][i] } }
            }
            if !paired {
                for _ in usersB.indices {
                    let u = usersB[Int(rng.next() % UInt64(usersB.count))]
                    for i in 0..<width { sb[i] += u[i] }
                }
            }
            for s in 0..<statistics where sa[2 * s + 1] > 0 && sb[2 * s + 1] > 0 {
                diffs[s].append(sb[2 * s] / sb[2 * s + 1] - sa[2 * s] / sa[2 * s + 1])
            }
        }
        return diffs.map { d -> ConfidenceInterval? in
            guard d.count >= 2 else { return nil }
            let d = d.sorted()
            let at = { (q: Double) in d[min(d.count - 1, max(0, Int((q * Double(d.count - 1)).rounded())))] }
            return ConfidenceInterval(low: at(0.025), high: at(0.975))
        }
    }
}
