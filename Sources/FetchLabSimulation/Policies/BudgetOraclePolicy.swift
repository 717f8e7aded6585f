import FetchLabCore
import FetchLabResults

/// Clairvoyant with a daily budget: day by day (local days of the user's clock), over the scored
/// launches of that day not already fresh at the primary τ, at most `k` fetches, each placed at a
/// launch time, chosen to cover the most launches (a fetch at a launch covers it and the launches
/// within τ after it). The choice is exact (dynamic programming over the sorted launches), not
/// greedy. Fetches of earlier days carry over into the next day's "already fresh".
public struct BudgetOraclePolicy: FetchPolicy {
    public var budget: Int

    public init(budget: Int) {
        precondition(budget >= 0)
        self.budget = budget
    }

    public var name: String { "budget-oracle(\(budget))" }
    public var family: String { "budget-oracle" }
    /// Reads the launches to come.
    public var signals: Set<PolicySignal> { [.ownLaunches, .future] }
    public var parameters: [String: Double] { ["k": Double(budget)] }
    public var role: PolicyRole { .clairvoyant }
    public var summary: String {
        "clairvoyant: at most \(budget) fetch\(budget == 1 ? "" : "es") a day, placed at launches to cover the most"
    }

    public func fetchTimes(for pair: PairContext) -> [Instant] {
        let tau = pair.evaluation.primaryTau
        let w = pair.window
        var out: [Instant] = []
        var scratch = CoverScratch()
        var stale: [Instant] = []
        let refreshes = pair.evaluation.launchRefreshes
        pair.launches.withUnsafeBufferPointer { l in
            var i = 0
            while i < l.count, !w.isScored(l[i]) { i += 1 }
            while i < l.count, w.isScored(l[i]) {
                let day = LocalCalendar.day(l[i], offset: w.offset)
                let nextMidnight = LocalCalendar.midnight(of: day + 1, offset: w.offset)
                // `PairContext.isFresh` over the buffer: the last fetch is the same all day.
                let lastFetch = out.last
                var j = i
                stale.removeAll(keepingCapacity: true)
                while j < l.count, w.isScored(l[j]), l[j] < nextMidnight {
                    let t = l[j]
                    let byFetch = lastFetch.map { $0 <= t && t - $0 <= tau } ?? false
                    let byLaunch = refreshes && j > 0 && t - l[j - 1] <= tau
                    if !byFetch && !byLaunch { stale.append(t) }
                    j += 1
                }
                Self.bestCover(stale, k: budget, tau: tau, scratch: &scratch, into: &out)
                i = j
            }
        }
        return out
    }

    /// Buffers reused from one day to the next.
    struct CoverScratch {
        var next: [Int] = []
        var best: [Int] = []
    }

    /// At most `k` fetch times, each one of `points` (ascending), covering the most points, a
    /// fetch at p covering [p, p + τ]. Exact; deterministic: among equally good choices the earliest
    /// launches get the fetches (which fixes fresh@τ at the other τ too).
    public static func bestCover(_ points: [Instant], k: Int, tau: Microseconds) -> [Instant] {
        var scratch = CoverScratch()
        var out: [Instant] = []
        bestCover(points, k: k, tau: tau, scratch: &scratch, into: &out)
        return out
    }

    /// ``bestCover(_:k:tau:)`` appending to `out`.
    static func bestCover(
        _ points: [Instant], k: Int, tau: Microseconds, scratch: inout CoverScratch, into out: inout [Instant]
    ) {
        let n = points.count
        guard n > 0, k > 0 else { return }
        // next[i]: the first point a fetch at points[i] does not cover.
        scratch.next.removeAll(keepingCapacity: true)
        var m = 0
        for i in 0..<n {
            if m < i { m = i }
            while m < n, points[m] - points[i] <= tau { m += 1 }
            scratch.next.append(m)
        }
        let next = scratch.next
        // When k fetches can cover every point, the earliest-first cover is the answer (taking a
        // point then never loses, and the rule prefers taking).
        var needed = 0
        var g = 0
        while g < n, needed <= k {
            needed += 1
            g = next[g]
        }
        if needed <= k {
            var i = 0
            while i < n {
                out.append(points[i])
                i = next[i]
            }
            return
        }
        let kk = min(k, n)
        // best[j * (n + 1) + i]: the most points among points[i...] covered with j fetches.
        let width = n + 1
        scratch.best.removeAll(keepingCapacity: true)
        scratch.best.append(contentsOf: repeatElement(0, count: (kk + 1) * width))
        scratch.best.withUnsafeMutableBufferPointer { b in
            for j in 1...kk {
                let row = j * width
                let up = (j - 1) * width
                for i in stride(from: n - 1, through: 0, by: -1) {
                    b[row + i] = max(b[row + i + 1], next[i] - i + b[up + next[i]])
                }
            }
        }
        let best = scratch.best
        var i = 0
        var j = kk
        while i < n, j > 0 {
            if next[i] - i + best[(j - 1) * width + next[i]] >= best[j * width + i + 1] {
                out.append(points[i])
                i = next[i]
                j -= 1
            } else {
                i += 1
            }
        }
    }
}

extension BudgetOraclePolicy: PolicyFamily {
    public static let familyNames = ["budget-oracle", "budgetoracle", "budget_oracle"]
    public static let form = "budget-oracle(k) (e.g. budget-oracle(1,2,4))"
    public static func parse(_ arguments: [String], raw: String) throws(PolicyRegistry.ParseError) -> [any FetchPolicy]
    {
        guard !arguments.isEmpty else {
            throw PolicyRegistry.ParseError(
                message: "policy '\(raw)': budget-oracle needs a daily budget, e.g. budget-oracle(4)")
        }
        return try arguments.map { (a: String) throws(PolicyRegistry.ParseError) -> any FetchPolicy in
            BudgetOraclePolicy(
                budget: try PolicyRegistry.Arguments.integer(a, raw: raw, what: "daily budget", in: 1...10_000))
        }
    }
}
