import FetchLabCore

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
    public var parameters: [String: Double] { ["k": Double(budget)] }
    public var isClairvoyant: Bool { true }
    public var summary: String {
        "clairvoyant: at most \(budget) fetch\(budget == 1 ? "" : "es") a day, placed at launches to cover the most"
    }

    public func fetchTimes(for pair: PairContext) -> [Microseconds] {
        let tau = pair.evaluation.primaryTau
        let w = pair.window
        var out: [Microseconds] = []
        var i = pair.launches.firstIndex { w.isScored($0) } ?? pair.launches.count
        while i < pair.launches.count, w.isScored(pair.launches[i]) {
            let day = LocalCalendar.day(pair.launches[i], offset: w.offset)
            var j = i
            var stale: [Microseconds] = []
            while j < pair.launches.count, w.isScored(pair.launches[j]),
                LocalCalendar.day(pair.launches[j], offset: w.offset) == day
            {
                if !pair.isFresh(j, lastFetch: out.last, tau: tau) { stale.append(pair.launches[j]) }
                j += 1
            }
            out += Self.bestCover(stale, k: budget, tau: tau)
            i = j
        }
        return out
    }

    /// At most `k` fetch times, each one of `points` (ascending), covering the most points, a
    /// fetch at p covering [p, p + τ]. Exact; deterministic: among equally good choices the earliest
    /// launches get the fetches (which fixes fresh@τ at the other τ too).
    public static func bestCover(_ points: [Microseconds], k: Int, tau: Microseconds) -> [Microseconds] {
        let n = points.count
        guard n > 0, k > 0 else { return [] }
        var next = [Int](repeating: n, count: n)
        var m = 0
        for i in 0..<n {
            if m < i { m = i }
            while m < n, points[m] - points[i] <= tau { m += 1 }
            next[i] = m
        }
        let kk = min(k, n)
        // best[j * (n + 1) + i]: the most points among points[i...] covered with j fetches.
        let width = n + 1
        var best = [Int](repeating: 0, count: (kk + 1) * width)
        best.withUnsafeMutableBufferPointer { b in
            for j in 1...kk {
                let row = j * width
                let up = (j - 1) * width
                for i in stride(from: n - 1, through: 0, by: -1) {
                    b[row + i] = max(b[row + i + 1], next[i] - i + b[up + next[i]])
                }
            }
        }
        var out: [Microseconds] = []
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
        return out
    }
}
