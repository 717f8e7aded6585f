import FetchLabCore

/// The clairvoyant bound (DOMAIN.md, "Evaluation protocol"): at a budget of B fetches per app per
/// day (averaged over pairs), the most launches any clairvoyant scheduler could make fresh.
///
/// Per pair p with D_p scored days, c_p(k) is the most targets k fetches placed anywhere in [S, E]
/// can make fresh (a fetch at f makes fresh the targets in [f, f + τ]); ĉ_p is its concave hull. A
/// fetch in pair p costs 1/(P·D_p) of the average, P the number of pairs. The bound is
/// max Σ_p ĉ_p(k_p) over real k_p ≥ 0 with Σ_p k_p/(P·D_p) ≤ B, plus the launches fresh without
/// fetches, over all scored launches: a fractional relaxation, so no policy spending at most B is
/// fresher.
///
/// Computed by Lagrangian relaxation: for a penalty λ per unit of the average, each pair's best
/// k (maximising c_p(k) − λ·k/(P·D_p)) follows from one linear pass over its targets; the
/// penalties bracketing the budget give two vertices of the aggregate hull, joined linearly.
public struct ClairvoyantBound: PairedBound, Sendable, Hashable, Codable {
    /// One pair's targets, as the index of the first target a fetch at each target no longer
    /// covers, and its scored days.
    public struct Pair: Sendable, Hashable, Codable {
        /// `next[i]`: the first target later than `targets[i] + τ` (targets ascending; for a ceiling,
        /// later than the fetch moment of target i + τ); empty for a unit pair (where it would be i + 1).
        var next: [Int32]
        /// The number of targets.
        public private(set) var targets: Int
        var days: Double
        /// No fetch covers two targets (always so with launch refreshes on: targets are more than τ
        /// apart), so c(k) = min(k, targets) and the pair needs no pass over its targets.
        var unit: Bool

        /// Targets `times` (ascending) of a pair with `days` scored days, at `tau`.
        public init(targets times: [Instant], days: Double, tau: Microseconds) {
            self.init(targets: times, fetchMoments: times, days: days, tau: tau)
        }

        /// Targets `times` (ascending) that fetches only at some moments can cover: `moments[i]` is
        /// the latest such moment at or before `times[i]` (at most τ before it, non-decreasing), where
        /// a fetch covering target i as its earliest is best (per-signal ceilings); the bound's own
        /// pairs fetch at the targets themselves.
        init(targets times: [Instant], fetchMoments moments: [Instant], days: Double, tau: Microseconds) {
            precondition(moments.count == times.count, "one fetch moment per target")
            var next = [Int32](repeating: 0, count: times.count)
            var j = 0
            for i in times.indices {
                if j < i { j = i }
                while j < times.count, times[j] <= moments[i] + tau { j += 1 }
                next[i] = Int32(j)
            }
            self.days = days
            targets = times.count
            unit = next.indices.allSatisfy { Int(next[$0]) == $0 + 1 }
            self.next = unit ? [] : next
        }
    }

    public private(set) var pairs: [Pair] = []
    /// Scored launches fresh without any fetch (the previous launch refreshed them).
    public private(set) var freeFresh = 0
    /// All scored launches of the evaluated pairs.
    public private(set) var scored = 0

    public init() {}

    /// Adds one evaluated pair: its scored launches, those fresh without a fetch and the targets.
    public mutating func add(_ pair: Pair, scored: Int, freeFresh: Int) {
        pairs.append(pair)
        self.scored += scored
        self.freeFresh += freeFresh
    }

    public mutating func add(_ other: ClairvoyantBound) {
        pairs += other.pairs
        scored += other.scored
        freeFresh += other.freeFresh
    }

    /// The targets of one pair: scored launches not fresh without a fetch (with launch refreshes,
    /// those more than τ after the app's previous launch, scored or not; without, every scored launch).
    public static func targets(
        launches: [Instant], window: UserWindow, tau: Microseconds, launchRefreshes: Bool
    ) -> (targets: [Instant], scored: Int) {
        var targets: [Instant] = []
        var scored = 0
        for (i, t) in launches.enumerated() where window.isScored(t) {
            scored += 1
            if launchRefreshes, i > 0, t - launches[i - 1] <= tau { continue }
            targets.append(t)
        }
        return (targets, scored)
    }

    /// The pairs as the solver reads them, in the order added.
    func forEachPair(_ body: (PairView) -> Void) {
        for pair in pairs {
            pair.next.withUnsafeBufferPointer {
                body(PairView(targets: pair.targets, days: pair.days, unit: pair.unit, next: $0))
            }
        }
    }

    var pairCount: Int { pairs.count }

    /// The most targets any fetches averaging `budget` per app per day can make fresh (the
    /// aggregate concave hull at that budget).
    public func coveredTargets(atBudget budget: Double) -> Double { hullCovered(atBudgets: [budget])[0] }

    /// ``coveredTargets(atBudget:)`` at each of `budgets`, sharing the pass every budget starts
    /// from (every target covered) and the scratch space.
    public func coveredTargets(atBudgets budgets: [Double]) -> [Double] { hullCovered(atBudgets: budgets) }

    /// The bound's fresh rate at `budget` fetches per app per day.
    public func fresh(atBudget budget: Double) -> Double { hullFresh(atBudgets: [budget])[0] }

    /// The bound's fresh rate at each of `budgets`.
    public func fresh(atBudgets budgets: [Double]) -> [Double] { hullFresh(atBudgets: budgets) }

    /// Fetches per app per day with which a clairvoyant scheduler makes every launch fresh.
    public var saturation: Double { hullSaturation }
}

/// One pair of a bound as its solver reads it (``ClairvoyantBound/Pair``, or a record on disk).
struct PairView {
    var targets: Int
    var days: Double
    var unit: Bool
    /// Empty for a unit pair.
    var next: UnsafeBufferPointer<Int32>
}

/// The clairvoyant bound's Lagrangian over any store of pairs (in memory, ``ClairvoyantBound``, or
/// on disk, ``SpilledBound``): the same passes over the same pairs in the same order give the
/// same figures, to the last bit.
protocol PairedBound {
    var pairCount: Int { get }
    var scored: Int { get }
    var freeFresh: Int { get }
    /// Calls `body` with each pair, in the order added.
    func forEachPair(_ body: (PairView) -> Void)
}

extension PairedBound {
    /// Fetches per app per day averaged over the pairs, and targets made fresh, at penalty `lambda`
    /// (per unit of the average); ties go to fewer fetches.
    func solve(lambda: Double, scratch: inout [Double], counts: inout [Int32]) -> (cost: Double, covered: Double) {
        let p = Double(pairCount)
        var cost = 0.0
        var covered = 0.0
        forEachPair { pair in
            let n = pair.targets
            guard n > 0, pair.days > 0 else { return }
            let penalty = lambda / (p * pair.days)
            if pair.unit {
                // Every target alone: all of them when a fetch pays (ties: none).
                if penalty < 1 {
                    cost += Double(n) / (p * pair.days)
                    covered += Double(n)
                }
                return
            }
            if scratch.count < n + 1 {
                scratch = [Double](repeating: 0, count: n + 1)
                counts = [Int32](repeating: 0, count: n + 1)
            }
            scratch[n] = 0
            counts[n] = 0
            // best[i]: the most (covered − penalty·fetches) from target i on; fetches start at targets.
            let next = pair.next
            scratch.withUnsafeMutableBufferPointer { best in
                counts.withUnsafeMutableBufferPointer { k in
                    var i = n - 1
                    while i >= 0 {
                        let j = Int(next[i])
                        let take = Double(j - i) - penalty + best[j]
                        if take > best[i + 1] {
                            best[i] = take
                            k[i] = k[j] + 1
                        } else {
                            best[i] = best[i + 1]
                            k[i] = k[i + 1]
                        }
                        i -= 1
                    }
                }
            }
            let fetches = Double(counts[0])
            cost += fetches / (p * pair.days)
            covered += scratch[0] + penalty * fetches
        }
        return (cost, covered)
    }

    /// The most targets any fetches averaging each of `budgets` per app per day can make fresh
    /// (the aggregate concave hull at that budget), sharing the pass every budget starts from
    /// (every target covered) and the scratch space.
    func hullCovered(atBudgets budgets: [Double]) -> [Double] {
        guard pairCount > 0 else { return budgets.map { _ in 0 } }
        var scratch: [Double] = []
        var counts: [Int32] = []
        // λ = 0⁺: every target covered with the fewest fetches.
        let tiny = smallestPenalty
        let all = solve(lambda: tiny, scratch: &scratch, counts: &counts)
        // A fetch gains at most n_p targets: a penalty above max n_p·P·D_p buys nothing.
        var ceiling = 1.0
        let count = Double(pairCount)
        forEachPair { pair in ceiling = max(ceiling, Double(pair.targets + 1) * count * pair.days) }
        return budgets.map { budget in
            guard budget > 0 else { return 0 }
            if all.cost <= budget { return all.covered }
            return bisect(budget, from: (tiny, all), to: ceiling, scratch: &scratch, counts: &counts)
        }
    }
    /// The hull at `budget`, between the penalty of `start` (spending more than the budget) and
    /// `ceiling` (spending nothing).
    private func bisect(
        _ budget: Double, from start: (lambda: Double, point: (cost: Double, covered: Double)), to ceiling: Double,
        scratch: inout [Double], counts: inout [Int32]
    ) -> Double {
        var high = ceiling
        let all = start.point
        var low = start.lambda
        var lowPoint = all  // cost > budget
        var highPoint = (cost: 0.0, covered: 0.0)  // cost ≤ budget
        for _ in 0..<200 {
            let mid = (low + high) / 2
            guard mid > low, mid < high else { break }
            let s = solve(lambda: mid, scratch: &scratch, counts: &counts)
            if s.cost > budget {
                low = mid
                lowPoint = s
            } else {
                high = mid
                highPoint = s
            }
            // Adjacent vertices of the hull: the line through them is tangent at both penalties.
            if lowPoint.cost - highPoint.cost > 0 {
                let slope = (lowPoint.covered - highPoint.covered) / (lowPoint.cost - highPoint.cost)
                if slope <= high && slope >= low {
                    let check = solve(lambda: slope, scratch: &scratch, counts: &counts)
                    let onLine = highPoint.covered - slope * highPoint.cost
                    if check.covered - slope * check.cost <= onLine + 1e-9 * max(1, onLine) { break }
                }
            }
        }
        guard lowPoint.cost > highPoint.cost else { return highPoint.covered }
        let share = (budget - highPoint.cost) / (lowPoint.cost - highPoint.cost)
        return highPoint.covered + share * (lowPoint.covered - highPoint.covered)
    }

    /// The bound's fresh rate at each of `budgets` fetches per app per day.
    func hullFresh(atBudgets budgets: [Double]) -> [Double] {
        guard scored > 0 else { return budgets.map { _ in 0 } }
        return hullCovered(atBudgets: budgets).map { (Double(freeFresh) + $0) / Double(scored) }
    }

    /// Fetches per app per day with which a clairvoyant scheduler makes every launch fresh.
    var hullSaturation: Double {
        var scratch: [Double] = []
        var counts: [Int32] = []
        return pairCount == 0 ? 0 : solve(lambda: smallestPenalty, scratch: &scratch, counts: &counts).cost
    }

    /// A penalty small enough that covering every target still pays (at most 10⁻⁶ a fetch in any
    /// pair), large enough that ties go to fewer fetches.
    var smallestPenalty: Double {
        var least: Double? = nil
        forEachPair { pair in if pair.days > 0 { least = min(least ?? pair.days, pair.days) } }
        return 1e-6 * (least ?? 1) * Double(pairCount)
    }
}
