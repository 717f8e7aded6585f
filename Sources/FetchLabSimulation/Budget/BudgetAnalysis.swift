import FetchLabCore
import FetchLabResults

/// What one user adds to the budget figures: the clairvoyant bound's pairs, fixed(T) in closed
/// form over the baseline's intervals, and each policy's fresh launches and fetches per day (for
/// the bootstrap over users).
struct UserBudgetSums: Sendable, Codable {
    var scored = 0
    var free = 0
    var pairs = 0
    /// Per policy: fresh launches at the primary τ, and fetches per day summed over the user's pairs.
    var fresh: [Int]
    var fetchesPerDay: [Double]
    /// Per baseline interval: fresh launches, and fetches in [S, E] of one pair (the same for all
    /// the user's pairs), kept as the run keeps them (one user's ``FixedColumns``: 8 kB over the
    /// 2,012 intervals for most users), so that users read from a partial, waiting to be merged in
    /// order, cost what they will cost in the run.
    var fixed = FixedColumns()
    /// Pairs / scored days: fetches per day summed over the user's pairs = this × fixed fetches.
    var pairsPerDay = 0.0
    var bound = ClairvoyantBound()
    /// The bound restricted to the moments of each signal set (per-signal ceilings).
    var ceilings = SignalCeilingSums()

    /// The sums of one replayed user.
    init(
        user: UserSetup, outcomes: [[PairOutcome]], primary: Int, tau: Microseconds, launchRefreshes: Bool,
        intervals: [Microseconds]
    ) {
        fresh = outcomes.map { $0.reduce(0) { $0 + $1.fresh[primary] } }
        fetchesPerDay = outcomes.map { $0.reduce(0) { $0 + $1.fetchesPerDay } }
        let w = user.window
        var covered = [Int](repeating: 0, count: intervals.count)
        for pair in user.pairs {
            let (targets, scored) = ClairvoyantBound.targets(
                launches: pair.launches, window: w, tau: tau, launchRefreshes: launchRefreshes)
            self.scored += scored
            free += scored - targets.count
            pairs += 1
            bound.add(
                ClairvoyantBound.Pair(targets: targets, days: w.scoredDays, tau: tau), scored: scored,
                freeFresh: scored - targets.count)
            FixedBaseline.addCovered(targets: targets, t0: w.firstEvent, tau: tau, intervals: intervals, into: &covered)
        }
        ceilings = SignalCeilingSums(
            history: user.history, window: w, pairs: user.pairs.map { ($0.app, $0.launches) }, tau: tau,
            launchRefreshes: launchRefreshes, keepPairs: true)
        let free = self.free
        fixed.append(
            fresh: covered.map { Int32($0 + free) },
            fetches: intervals.map { Int32(clamping: FixedBaseline.fetchesInSpan(interval: $0, window: w)) })
        pairsPerDay = w.scoredDays > 0 ? Double(pairs) / w.scoredDays : 0
    }

    /// These sums without what ``BudgetAnalysis/record(_:)`` holds (the per-policy sums and the
    /// fixed-baseline figures): the counts and the bound's and ceilings' pairs.
    var withoutRecordFigures: UserBudgetSums {
        var kept = self
        kept.fresh = []
        kept.fetchesPerDay = []
        kept.fixed = FixedColumns()
        return kept
    }

    /// The user's fixed-baseline figures, 32 bits each (as a partial writes them).
    var fixedFigures: (fresh: [Int32], fetches: [Int32]) {
        fixed.count == 1 ? fixed.figures(of: 0) : ([], [])
    }

    enum CodingKeys: String, CodingKey {
        case scored, free, pairs, fresh, fetchesPerDay, fixedFresh, fixedFetches, pairsPerDay, bound, ceilings
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(scored, forKey: .scored)
        try c.encode(free, forKey: .free)
        try c.encode(pairs, forKey: .pairs)
        try c.encode(fresh, forKey: .fresh)
        try c.encode(fetchesPerDay, forKey: .fetchesPerDay)
        let figures = fixedFigures
        try c.encode(figures.fresh, forKey: .fixedFresh)
        try c.encode(figures.fetches, forKey: .fixedFetches)
        try c.encode(pairsPerDay, forKey: .pairsPerDay)
        try c.encode(bound, forKey: .bound)
        try c.encode(ceilings, forKey: .ceilings)
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        scored = try c.decode(Int.self, forKey: .scored)
        free = try c.decode(Int.self, forKey: .free)
        pairs = try c.decode(Int.self, forKey: .pairs)
        fresh = try c.decode([Int].self, forKey: .fresh)
        fetchesPerDay = try c.decode([Double].self, forKey: .fetchesPerDay)
        let fixedFresh = try c.decode([Int32].self, forKey: .fixedFresh)
        let fixedFetches = try c.decode([Int32].self, forKey: .fixedFetches)
        guard fixedFresh.count == fixedFetches.count else {
            throw DecodingError.dataCorruptedError(
                forKey: .fixedFetches, in: c, debugDescription: "fixed fetches and fresh launches differ in count")
        }
        if !fixedFresh.isEmpty { fixed.append(fresh: fixedFresh, fetches: fixedFetches) }
        pairsPerDay = try c.decode(Double.self, forKey: .pairsPerDay)
        bound = try c.decode(ClairvoyantBound.self, forKey: .bound)
        ceilings = try c.decode(SignalCeilingSums.self, forKey: .ceilings)
    }
}

/// The budget figures of a comparison: per policy its gain over the fixed-interval baseline and
/// share of the possible gain, and the budget curve (DOMAIN.md, "Freshness at a budget").
struct BudgetAnalysis: Sendable {
    var policies: [any FetchPolicy]
    var intervals: [Microseconds]
    /// What each user adds to the sums the bootstrap resamples (its counts, per-policy sums and
    /// fixed-baseline figures: 8 kB or more a user), one record a user in the order added
    /// (``add(_:)``), on disk: the run's memory does not grow by them, and every estimate reads
    /// them in one pass (``sums(weights:)``).
    private var records = SpilledRecords()
    /// The users added.
    var users: Int { records.count }
    /// The clairvoyant bound's pairs, and each restricted signal set's (the ceilings), on disk.
    private(set) var bound = SpilledBound()
    private(set) var ceilingBounds = (0..<SignalCeilingSums.restricted.count).map { _ in SpilledBound() }
    /// The ceilings' counts (their pairs are in ``ceilingBounds``).
    private(set) var ceilingSums = SignalCeilingSums()
    /// The primary τ and whether launches refresh (what the ceilings say they were read at).
    var tau: Microseconds = .minutes(15)
    var launchRefreshes = true
    var resamples = 1_000
    var seed: UInt64 = 1

    init(policies: [any FetchPolicy], intervals: [Microseconds]) {
        self.policies = policies
        self.intervals = intervals
    }

    /// The resamples drawn: as asked, but no more than about 10⁹ weighted sums in all (users ×
    /// (baseline intervals + policies) per resample), and no fewer than 200 (nor than asked).
    var effectiveResamples: Int {
        let perDraw = max(1, users * (intervals.count + policies.count))
        return min(resamples, max(min(200, resamples), 1_000_000_000 / perDraw))
    }

    /// Bytes of users' records on disk and in memory (for tests).
    var recordBytes: (onDisk: Int, inMemory: Int) { records.bytes }

    /// Adds the next user's sums (users are added in the order one run takes them); `record`,
    /// when given, is their ``record(_:)``, made before the sums let its figures go.
    mutating func add(_ u: UserBudgetSums, record: [UInt8]? = nil) {
        bound.add(u.bound)
        var ceilings = u.ceilings
        for s in ceilingBounds.indices {
            ceilingBounds[s].add(ceilings.bounds[s])
            ceilings.bounds[s] = ClairvoyantBound()
        }
        ceilingSums.merge(ceilings)
        records.append(record ?? Self.record(u))
    }

    /// One user's record: scored, free and pairs (64-bit integers), pairs per day, per policy its
    /// fresh launches (64-bit) then its fetches per day, then its fixed-baseline figures as
    /// ``FixedColumns`` keeps them.
    static func record(_ u: UserBudgetSums) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32 + 16 * u.fresh.count + 8 + 8 * u.fixed.width)
        func put<T: BitwiseCopyable>(_ v: T) { withUnsafeBytes(of: v) { bytes.append(contentsOf: $0) } }
        put(Int64(u.scored))
        put(Int64(u.free))
        put(Int64(u.pairs))
        put(u.pairsPerDay)
        for f in u.fresh { put(Int64(f)) }
        for f in u.fetchesPerDay { put(f) }
        if u.fixed.count > 0 { u.fixed.appendRecord(of: 0, to: &bytes) }
        return bytes
    }

    /// Per-policy points, the fixed curve and `never`, with each user weighted (a bootstrap draw).
    struct Estimate {
        var points: [(x: Double, y: Double)]
        var fixed: Frontier
        var never: Double
    }

    /// The users' figures summed with each user weighted.
    struct Sums {
        var scored = 0.0
        var free = 0.0
        var pairs = 0.0
        var fresh: [Double]
        var fetchesPerDay: [Double]
        var fixedFresh: [Double]
        var fixedFetchesPerDay: [Double]

        init(policies: Int, intervals: Int) {
            fresh = [Double](repeating: 0, count: policies)
            fetchesPerDay = fresh
            fixedFresh = [Double](repeating: 0, count: intervals)
            fixedFetchesPerDay = fixedFresh
        }

        /// Adds one user's figures (its fixed-baseline ones as a record), weighted `w`.
        mutating func add(
            weight w: Double, scored: Double, free: Double, pairs: Double, fresh: [Double], fetchesPerDay: [Double],
            pairsPerDay: Double, fixed: UnsafeRawBufferPointer
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
            FixedColumns.accumulate(
                record: fixed, weight: w, perFetch: w * pairsPerDay, fresh: &fixedFresh, fetches: &fixedFetchesPerDay)
        }
    }

    /// The sums under each of `weights` (one weight per user, in the users' order), from one pass
    /// over the users' records: each sum adds the users in order, as one pass per weighting would.
    func sums(weights: [[Double]]) -> [Sums] {
        let p = policies.count
        var out = weights.map { _ in Sums(policies: p, intervals: intervals.count) }
        var fresh = [Double](repeating: 0, count: p)
        var fpd = [Double](repeating: 0, count: p)
        var u = 0
        records.forEach { record in
            let scored = Double(record.loadUnaligned(fromByteOffset: 0, as: Int64.self))
            let free = Double(record.loadUnaligned(fromByteOffset: 8, as: Int64.self))
            let pairs = Double(record.loadUnaligned(fromByteOffset: 16, as: Int64.self))
            let pairsPerDay = record.loadUnaligned(fromByteOffset: 24, as: Double.self)
            for i in 0..<p {
                fresh[i] = Double(record.loadUnaligned(fromByteOffset: 32 + 8 * i, as: Int64.self))
                fpd[i] = record.loadUnaligned(fromByteOffset: 32 + 8 * (p + i), as: Double.self)
            }
            let fixed = UnsafeRawBufferPointer(rebasing: record[(32 + 16 * p)...])
            for r in weights.indices {
                let w = weights[r][u]
                guard w > 0 else { continue }
                out[r].add(
                    weight: w, scored: scored, free: free, pairs: pairs, fresh: fresh, fetchesPerDay: fpd,
                    pairsPerDay: pairsPerDay, fixed: fixed)
            }
            u += 1
        }
        return out
    }

    func estimate(_ s: Sums) -> Estimate {
        func rate(_ n: Double) -> Double { s.scored > 0 ? n / s.scored : 0 }
        func perPair(_ n: Double) -> Double { s.pairs > 0 ? n / s.pairs : 0 }
        let never = rate(s.free)
        // Longer intervals fetch less for every user, so the intervals from the longest are in order of cost.
        var byCost: [(x: Double, y: Double)] = [(0, never)]
        byCost.reserveCapacity(intervals.count + 1)
        for k in intervals.indices.reversed() {
            byCost.append((perPair(s.fixedFetchesPerDay[k]), rate(s.fixedFresh[k])))
        }
        let fixed = Frontier(sortedByCost: byCost)
        return Estimate(
            points: zip(s.fetchesPerDay, s.fresh).map { (perPair($0.0), rate($0.1)) }, fixed: fixed, never: never)
    }

    /// The families whose front is read at each budget: causal, neither `never` nor `fixed`.
    var familyIndices: [(family: String, indices: [Int])] {
        var order: [String] = []
        var byFamily: [String: [Int]] = [:]
        for (i, p) in policies.enumerated()
        where !p.isClairvoyant && PolicyRole(family: p.family).isReadAtBudget {
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
        let point = estimate(sums(weights: [[Double](repeating: 1, count: users)])[0])
        let families = familyIndices
        // Bootstrap over users: multinomial draws of the users, resample r from its own seeded
        // stream (so the draws do not depend on the order the cores take them in).
        struct Draw: Sendable {
            var fresh: [Double]
            var gain: [Double]
            var fixed: [Double]
            var families: [[Double]]
        }
        let count = users > 1 ? effectiveResamples : 0
        let seed = self.seed
        let userCount = users
        let analysis = self
        // Resamples in groups, each group's sums from one pass over the users' records; a group's
        // weights hold at most 2²¹ figures (16 MB).
        let group = max(1, min(32, (1 << 21) / max(1, userCount)))
        let groups = stride(from: 0, to: count, by: group).map { $0..<min(count, $0 + group) }
        let draws = ParallelMap.map(groups) { resamples -> [Draw] in
            let weights = resamples.map { r in
                var rng = SplitMix64(seed: seed &+ UInt64(r) &* 0x9e37_79b9_7f4a_7c15)
                var weights = [Double](repeating: 0, count: userCount)
                for _ in 0..<userCount { weights[Int(rng.next() % UInt64(userCount))] += 1 }
                return weights
            }
            return analysis.sums(weights: weights).map { sums in
                let e = analysis.estimate(sums)
                var d = Draw(fresh: [], gain: [], fixed: [], families: [])
                for p in e.points {
                    d.fresh.append(p.y)
                    d.gain.append(p.y - (e.fixed.value(at: p.x) ?? e.never))
                }
                for budget in budgets {
                    let fixed = e.fixed.value(at: budget) ?? e.never
                    d.fixed.append(fixed)
                    d.families.append(families.map { Self.family($0.indices, in: e, at: budget).fresh })
                }
                return d
            }
        }.flatMap { $0 }
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
            let fixed = point.fixed.value(at: x) ?? point.never
            gains.append(y - fixed)
            shares.append(Self.share(fresh: y, fixed: fixed, bound: boundFresh(x)))
        }
        let curve = budgets.enumerated().map { b, budget -> BudgetPoint in
            let fixed = point.fixed.value(at: budget) ?? point.never
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
            fixedCurve: point.fixed.points.map { [$0.x, $0.y] }, boundCurve: boundCurve, saturation: saturation,
            ceilings: ceilings)
    }
}
