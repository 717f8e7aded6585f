import FetchLabCore
import FetchLabResults

/// What one user adds to the budget figures: the clairvoyant bound's pairs, each policy's fresh
/// launches and fetches per day (for the bootstrap over users), and the same by scored day (for the
/// bootstrap over days, while the run has fewer than `BudgetSettings.fewUsers` users).
struct UserBudgetSums: Sendable, Codable {
    var scored = 0
    var free = 0
    var pairs = 0
    /// Per policy: fresh launches at the primary τ, and fetches per day summed over the user's pairs.
    var fresh: [Int]
    var fetchesPerDay: [Double]
    /// The same by scored local day (nil: let go, the run having users enough to resample them).
    var days: DayFigures?
    var bound = ClairvoyantBound()
    /// The bound restricted to the moments of each signal set (per-signal ceilings).
    var ceilings = SignalCeilingSums()

    /// The sums of one replayed user.
    init(user: UserSetup, outcomes: [[PairOutcome]], primary: Int, tau: Microseconds, launchRefreshes: Bool) {
        fresh = outcomes.map { $0.reduce(0) { $0 + $1.fresh[primary] } }
        fetchesPerDay = outcomes.map { $0.reduce(0) { $0 + $1.fetchesPerDay } }
        let w = user.window
        var targetsByPair: [[Instant]] = []
        for pair in user.pairs {
            let (targets, scored) = ClairvoyantBound.targets(
                launches: pair.launches, window: w, tau: tau, launchRefreshes: launchRefreshes)
            self.scored += scored
            free += scored - targets.count
            pairs += 1
            bound.add(
                ClairvoyantBound.Pair(targets: targets, days: w.scoredDays, tau: tau), scored: scored,
                freeFresh: scored - targets.count)
            targetsByPair.append(targets)
        }
        days = DayFigures(
            window: w, launches: user.pairs.map(\.launches), targets: targetsByPair, outcomes: outcomes, tau: tau)
        ceilings = SignalCeilingSums(
            history: user.history, window: w, pairs: user.pairs.map { ($0.app, $0.launches) }, tau: tau,
            launchRefreshes: launchRefreshes, keepPairs: true)
    }

    /// These sums without what ``BudgetAnalysis/record(_:)`` holds (the per-policy sums and the
    /// days): the counts and the bound's and ceilings' pairs.
    var withoutRecordFigures: UserBudgetSums {
        var kept = self
        kept.fresh = []
        kept.fetchesPerDay = []
        kept.days = nil
        return kept
    }
}

/// The budget figures of a comparison: per policy its gain over the fixed-interval baseline and
/// share of the possible gain, and the budget curve (DOMAIN.md, "Freshness at a budget").
struct BudgetAnalysis: Sendable {
    var policies: [any FetchPolicy]
    /// The bootstrap over users, as sums per resample (row 0 the point estimate's), created with
    /// the first user at ``resamples``: what every estimate reads.
    private(set) var bootstrap: PoissonBootstrap?
    /// While the run has fewer than `BudgetSettings.fewUsers` users, what each user adds to the
    /// bootstrap over days (its counts, per-policy sums and days), one record a user in the order
    /// added (``add(_:record:)``); let go when the run reaches as many users, as it is then
    /// resampled by user.
    private var records: StoredRecords
    /// The users added.
    private(set) var users = 0
    /// The clairvoyant bound's pairs, and each restricted signal set's (the ceilings), on disk.
    private(set) var bound: SpilledBound
    private(set) var ceilingBounds: [SpilledBound]
    /// The ceilings' counts (their pairs are in ``ceilingBounds``).
    private(set) var ceilingSums = SignalCeilingSums()
    /// The primary τ and whether launches refresh (what the ceilings say they were read at).
    var tau: Microseconds = .minutes(15)
    var launchRefreshes = true
    var resamples = 1_000
    var seed: UInt64 = 1

    /// Where the records and the bounds' pairs are kept (set before users are added).
    var storage: any RecordStorage {
        didSet {
            precondition(users == 0, "storage set after users were added")
            (records, bound, ceilingBounds) = Self.empty(in: storage)
        }
    }

    init(policies: [any FetchPolicy], storage: any RecordStorage = MemoryRecordStorage()) {
        self.policies = policies
        self.storage = storage
        (records, bound, ceilingBounds) = Self.empty(in: storage)
    }

    private static func empty(in storage: any RecordStorage) -> (StoredRecords, SpilledBound, [SpilledBound]) {
        (
            StoredRecords(in: storage), SpilledBound(in: storage),
            (0..<SignalCeilingSums.restricted.count).map { _ in SpilledBound(in: storage) }
        )
    }

    /// What the intervals resample: the users, or with fewer than `BudgetSettings.fewUsers` users
    /// each user's scored days (an interval over two users would be their own two values).
    var intervalOver: IntervalBasis { users < BudgetSettings.fewUsers ? .days : .users }

    /// Whether a user added now keeps its days in its record: only while they may be resampled.
    var keepsDays: Bool { users < BudgetSettings.fewUsers }

    /// The resamples drawn: none without anything to resample (one user over users, no user);
    /// else as asked, but no more than about 10⁹ weighted sums in all (users × policies per
    /// resample), and no fewer than 200 (nor than asked).
    var effectiveResamples: Int {
        guard intervalOver == .days ? users > 0 : users > 1 else { return 0 }
        let perDraw = max(1, users * policies.count)
        return min(resamples, max(min(200, resamples), 1_000_000_000 / perDraw))
    }

    /// Bytes of users' records on disk and in memory (for tests).
    var recordBytes: (onDisk: Int, inMemory: Int) { records.bytes }

    /// The bootstrap's sums, empty, at ``resamples``.
    var emptyBootstrap: PoissonBootstrap { PoissonBootstrap(resamples: resamples, policies: policies.count) }

    /// Adds user `name`'s figures to the bootstrap's sums (the replay of a user; a merge adds each
    /// partial's sums whole, ``addBootstrap(_:)``).
    mutating func addBootstrap(user name: String, _ u: UserBudgetSums) {
        if bootstrap == nil { bootstrap = emptyBootstrap }
        precondition(bootstrap?.resamples == resamples, "resamples set after users were added")
        bootstrap?.add(user: name, u, seed: seed)
    }

    /// Adds a partial's bootstrap sums (checked with ``PoissonBootstrap/problemAdding(_:)``).
    mutating func addBootstrap(_ sums: PoissonBootstrap) {
        if bootstrap == nil { bootstrap = emptyBootstrap }
        bootstrap?.add(sums)
    }

    /// Adds the next user's bound, ceilings and (while ``keepsDays``) record, users being added in
    /// the order one run takes them; `record`, when given, is their ``record(_:days:)``, made
    /// before the sums let its figures go. Its bootstrap sums are added apart (``addBootstrap(user:_:)``).
    mutating func add(_ u: UserBudgetSums, record: [UInt8]? = nil) {
        bound.add(u.bound)
        var ceilings = u.ceilings
        for s in ceilingBounds.indices {
            ceilingBounds[s].add(ceilings.bounds[s])
            ceilings.bounds[s] = ClairvoyantBound()
        }
        ceilingSums.merge(ceilings)
        if keepsDays {
            records.append(record ?? Self.record(u, days: true))
        } else if users == BudgetSettings.fewUsers {
            records = StoredRecords(in: storage)
        }
        users += 1
    }

    /// One user's record: scored, free and pairs (64-bit integers), its days (0: not kept) and
    /// (E − S) in days, per policy its fresh launches (64-bit) then its fetches per day, then with
    /// `days` its ``DayFigures`` (32 bits each).
    static func record(_ u: UserBudgetSums, days: Bool = true) -> [UInt8] {
        let d = days ? u.days : nil
        var record = RecordWriter(capacity: 40 + 16 * u.fresh.count + 4 * (d?.figures.count ?? 0))
        record.put(Int64(u.scored))
        record.put(Int64(u.free))
        record.put(Int64(u.pairs))
        record.put(Int64(d?.count ?? 0))
        record.put(d?.span ?? 0)
        for f in u.fresh { record.put(Int64(f)) }
        record.put(contentsOf: u.fetchesPerDay)
        if let d { record.put(contentsOf: d.figures) }
        return record.bytes
    }

    /// Per-policy points and `never`, with each user (or each user's day) weighted (a bootstrap
    /// draw); the fixed-interval baseline is the closed form at `never`.
    struct Estimate {
        var points: [(x: Double, y: Double)]
        var never: Double
        var tau: Microseconds

        /// The fixed-interval baseline at `budget` fetches per app per day (``FixedBaselineLine``).
        func fixed(at budget: Double) -> Double {
            FixedBaselineLine.fresh(never: never, budget: budget, tau: tau)
        }
    }

    /// The users' figures summed with each user weighted.
    struct Sums {
        var scored = 0.0
        var free = 0.0
        var pairs = 0.0
        var fresh: [Double]
        var fetchesPerDay: [Double]

        init(policies: Int) {
            fresh = [Double](repeating: 0, count: policies)
            fetchesPerDay = fresh
        }

        /// Adds one user's figures, weighted `w`.
        mutating func add(
            weight w: Double, scored: Double, free: Double, pairs: Double, fresh: [Double], fetchesPerDay: [Double]
        ) {
            self.scored += w * scored
            self.free += w * free
            self.pairs += w * pairs
            self.fresh.withUnsafeMutableBufferPointer { f in
                self.fetchesPerDay.withUnsafeMutableBufferPointer { g in
                    for i in f.indices {
                        f[i] += w * fresh[i]
                        g[i] += w * fetchesPerDay[i]
                    }
                }
            }
        }
    }

    /// The sums under each of `weights` (each a weight per user's scored day, the users' days one
    /// after another, each user keeping its place), from one pass over the users' records: a user
    /// adds its days' figures so weighted, its fetches per day over its days' weighted lengths,
    /// and its pairs once.
    func sums(days weights: [[Double]]) -> [Sums] {
        let p = policies.count
        var out = weights.map { _ in Sums(policies: p) }
        var dayFresh = [Double](repeating: 0, count: p)
        var dayFetches = dayFresh
        var firstDay = 0
        records.forEach { bytes in
            var record = RecordReader(bytes)
            record.skip(Int64.self, count: 2)  // scored, free
            let pairs = Double(record.read(Int64.self))
            let days = Int(record.read(Int64.self))
            let span = record.read(Double.self)
            record.skip(Int64.self, count: p)  // fresh
            record.skip(Double.self, count: p)  // fetches per day
            let stride = 2 + 2 * p
            record.withFields(Int32.self, count: days * stride) { figures in
                for r in weights.indices {
                    let w = weights[r]
                    precondition(days > 0, "a user's days are resampled, but its record does not keep them")
                    var (s, f, length) = (0.0, 0.0, 0.0)
                    for i in 0..<p { (dayFresh[i], dayFetches[i]) = (0, 0) }
                    for d in 0..<days {
                        let wd = w[firstDay + d]
                        guard wd > 0 else { continue }
                        func figure(_ k: Int) -> Double { Double(figures[d * stride + k]) }
                        s += wd * figure(0)
                        f += wd * figure(1)
                        length += wd * (d == days - 1 ? span - Double(d) : 1)
                        for i in 0..<p {
                            dayFresh[i] += wd * figure(2 + i)
                            dayFetches[i] += wd * figure(2 + p + i)
                        }
                    }
                    for i in 0..<p { dayFetches[i] = length > 0 ? dayFetches[i] / length : 0 }
                    out[r].add(weight: 1, scored: s, free: f, pairs: pairs, fresh: dayFresh, fetchesPerDay: dayFetches)
                }
            }
            firstDay += days
        }
        return out
    }

    /// Each user's scored days kept in its record, in the users' order.
    var dayCounts: [Int] {
        var out: [Int] = []
        records.forEach { bytes in
            var record = RecordReader(bytes)
            record.skip(Int64.self, count: 3)  // scored, free, pairs
            out.append(Int(record.read(Int64.self)))
        }
        return out
    }

    /// Resample `r`'s weights over each user's days: a multinomial draw of each user's days within
    /// the user, from its own seeded stream, so the draws do not depend on the order the cores
    /// take them in.
    static func weights(resample r: Int, seed: UInt64, days: [Int]) -> [Double] {
        var rng = SplitMix64(seed: seed &+ UInt64(r) &* 0x9e37_79b9_7f4a_7c15)
        var weights = [Double](repeating: 0, count: days.reduce(0, +))
        var first = 0
        for d in days {
            for _ in 0..<d { weights[first + Int(rng.next() % UInt64(d))] += 1 }
            first += d
        }
        return weights
    }

    func estimate(_ s: Sums) -> Estimate {
        func rate(_ n: Double) -> Double { s.scored > 0 ? n / s.scored : 0 }
        func perPair(_ n: Double) -> Double { s.pairs > 0 ? n / s.pairs : 0 }
        return Estimate(
            points: zip(s.fetchesPerDay, s.fresh).map { (perPair($0.0), rate($0.1)) }, never: rate(s.free),
            tau: tau)
    }

    /// The families whose front is read at each budget: causal, neither `never` nor `fixed`.
    var familyIndices: [(family: String, indices: [Int])] {
        var order: [String] = []
        var byFamily: [String: [Int]] = [:]
        for (i, p) in policies.enumerated()
        where p.role.isReadAtBudget {
            if byFamily[p.family] == nil { order.append(p.family) }
            byFamily[p.family, default: []].append(i)
        }
        return order.map { ($0, byFamily[$0]!) }
    }

    /// A family's front (with `never` at no cost) read at `budget`, and its best setting at or under it.
    static func family(
        _ indices: [Int], in e: Estimate, at budget: Double
    ) -> (fresh: Double, best: Int?) {
        let front = Frontier([(0, e.never)] + indices.map { e.points[$0] })
        var best: Int? = nil
        for i in indices where e.points[i].x <= budget + 1e-12 {
            if best.map({ e.points[i].y > e.points[$0].y }) ?? true { best = i }
        }
        return (front.value(at: budget) ?? e.never, best)
    }

    struct Result {
        /// Per policy: interval of fresh@τ (primary), gain over fixed at its own cost and its
        /// interval, share of the possible gain.
        var freshIntervals: [ConfidenceInterval?]
        var gains: [Double]
        var gainIntervals: [ConfidenceInterval?]
        var shares: [Double?]
        var curve: [BudgetPoint]
        var fixedCurve: [[Double]]
        var boundCurve: [[Double]]
        var saturation: Double
        var ceilings: SignalCeilings
    }

    /// The share of the possible gain, nil when the bound is less than 2 points above the baseline.
    static func share(fresh: Double, fixed: Double, bound: Double) -> Double? {
        bound - fixed >= 0.02 ? (fresh - fixed) / (bound - fixed) : nil
    }

    func result(budgets: [Double]) -> Result {
        let bootstrap = self.bootstrap ?? emptyBootstrap
        let point = estimate(bootstrap.sums(row: 0))
        let families = familyIndices
        struct Draw: Sendable {
            var fresh: [Double]
            var gain: [Double]
            var fixed: [Double]
            var families: [[Double]]
        }
        let count = effectiveResamples
        let seed = self.seed
        let analysis = self
        let draw: @Sendable (Sums) -> Draw = { sums in
            let e = analysis.estimate(sums)
            var d = Draw(fresh: [], gain: [], fixed: [], families: [])
            for p in e.points {
                d.fresh.append(p.y)
                d.gain.append(p.y - e.fixed(at: p.x))
            }
            for budget in budgets {
                d.fixed.append(e.fixed(at: budget))
                d.families.append(families.map { Self.family($0.indices, in: e, at: budget).fresh })
            }
            return d
        }
        let draws: [Draw]
        if intervalOver == .days {
            let days = dayCounts
            // Resamples in groups, each group's sums from one pass over the users' records; a
            // group's weights hold at most 2²¹ figures (16 MB).
            let group = max(1, min(32, (1 << 21) / max(1, days.reduce(0, +))))
            let groups = stride(from: 0, to: count, by: group).map { $0..<min(count, $0 + group) }
            draws = ParallelMap.map(groups) { resamples -> [Draw] in
                analysis.sums(days: resamples.map { Self.weights(resample: $0, seed: seed, days: days) }).map(draw)
            }.flatMap { $0 }
        } else {
            // Resample r is row r + 1 of the bootstrap's sums: the first `count` of those summed.
            draws = ParallelMap.map(Array(0..<count)) { draw(bootstrap.sums(row: $0 + 1)) }
        }
        let freshDraws = policies.indices.map { i in draws.map { $0.fresh[i] } }
        let gainDraws = policies.indices.map { i in draws.map { $0.gain[i] } }
        let fixedDraws = budgets.indices.map { b in draws.map { $0.fixed[b] } }
        var familyDraws = [[String: (fresh: [Double], gain: [Double])]](repeating: [:], count: budgets.count)
        for b in budgets.indices {
            for (f, family) in families.enumerated() {
                familyDraws[b][family.family] = (
                    draws.map { $0.families[b][f] }, draws.map { $0.families[b][f] - $0.fixed[b] }
                )
            }
        }
        // The bound for the chart: from no fetch to saturation, denser where it bends.
        let saturation = bound.hullSaturation
        var xs: [Double] = [0]
        if saturation > 0 {
            var x = min(0.02, saturation)
            while x < saturation {
                xs.append(x)
                x *= 1.25
            }
            xs.append(saturation)
        }
        // The bound at every cost read below (policies, budgets, the chart), in one pass.
        let wanted = Array(Set(point.points.map(\.x) + budgets + xs)).sorted()
        let boundAt = Dictionary(uniqueKeysWithValues: zip(wanted, bound.hullFresh(atBudgets: wanted)))
        func boundFresh(_ x: Double) -> Double { boundAt[x]! }
        var gains: [Double] = []
        var shares: [Double?] = []
        for (x, y) in point.points {
            let fixed = point.fixed(at: x)
            gains.append(y - fixed)
            shares.append(Self.share(fresh: y, fixed: fixed, bound: boundFresh(x)))
        }
        let curve = budgets.enumerated().map { b, budget -> BudgetPoint in
            let fixed = point.fixed(at: budget)
            let top = boundFresh(budget)
            var byFamily: [String: FamilyAtBudget] = [:]
            for (name, indices) in families {
                let (fresh, best) = Self.family(indices, in: point, at: budget)
                let draws = familyDraws[b][name]
                byFamily[name] = FamilyAtBudget(
                    fresh: fresh, policy: best.map { policies[$0].name },
                    freshInterval: draws.flatMap { ConfidenceInterval.percentile($0.fresh) },
                    gainVsFixed: fresh - fixed,
                    gainInterval: draws.flatMap { ConfidenceInterval.percentile($0.gain) },
                    shareOfPossible: Self.share(fresh: fresh, fixed: fixed, bound: top))
            }
            return BudgetPoint(
                budget: budget, fixed: fixed, fixedInterval: ConfidenceInterval.percentile(fixedDraws[b]), bound: top,
                never: point.never, families: byFamily)
        }
        let boundCurve = xs.map { [$0, $0 == 0 ? point.never : boundFresh($0)] }
        let ceilingBounds = self.ceilingBounds
        let ceilings = ceilingSums.ceilings(
            budgets: budgets, anywhere: budgets.map(boundFresh), tau: tau, launchRefreshes: launchRefreshes,
            covered: { ceilingBounds[$0].hullCovered(atBudgets: $1) })
        return Result(
            freshIntervals: freshDraws.map { ConfidenceInterval.percentile($0) }, gains: gains,
            gainIntervals: gainDraws.map { ConfidenceInterval.percentile($0) }, shares: shares, curve: curve,
            fixedCurve: [[0, point.never], [FixedBaselineLine.saturation(tau: point.tau), 1]],
            boundCurve: boundCurve, saturation: saturation,
            ceilings: ceilings)
    }
}
