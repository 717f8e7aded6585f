import FetchLabCore

/// The fixed-interval baseline (DOMAIN.md, "Evaluation protocol"): fixed(T) over a dense grid of
/// intervals, and any interval the run holds, in closed form. `fixed(T)` fetches at t0 + n·T; a
/// target launch L (one only a background fetch can make fresh) is fresh when a fetch falls in
/// [L − τ, L], i.e. when (L − t0) mod T ≤ τ; the fetches in [S, E] are counted by arithmetic.
/// The baseline at B is the best of these spending at most B fetches per app per day, joined
/// linearly between neighbouring intervals (an even mix across apps achieves any point between two).
public enum FixedBaseline {
    /// The dense grid: every minute from 5 min to 24 h, then every 15 min to 7 days (2,012
    /// intervals): fixed(T)'s fresh rate is jagged in T (habits resonate with some intervals).
    public static let grid: [Microseconds] = {
        var minutes: [Int64] = Array(5...1_440)
        minutes += stride(from: 1_455, through: 10_080, by: 15)
        return minutes.map { .minutes($0) }
    }()

    /// The grid with `extra` intervals (the run's own fixed intervals) merged in, ascending.
    public static func intervals(adding extra: [Microseconds]) -> [Microseconds] {
        Array(Set(grid + extra.filter { $0 > 0 })).sorted()
    }

    /// Fetches of fixed(T) in [S, E].
    @inline(__always) static func fetchesInSpan(interval: Microseconds, window w: UserWindow) -> Int64 {
        let first = max(0, (w.start - w.firstEvent + interval - 1) / interval)
        let last = (w.end - w.firstEvent) / interval
        return max(0, last - first + 1)
    }

    /// Per interval, the targets fixed(T) makes fresh among `targets` (ascending) of a user whose
    /// first event is `t0`, added into `covered`.
    static func addCovered(
        targets: [Microseconds], t0: Microseconds, tau: Microseconds, intervals: [Microseconds],
        into covered: inout [Int]
    ) {
        // In doubles: times since t0 (below 2⁵³ µs) and their quotients are exact integers, so the
        // remainder is exact once the rounded quotient is corrected by one. The quotient is
        // truncated (a conversion, where rounding down calls `floor`): below zero it is one too
        // many, which the correction takes back as it would a rounding error.
        let since = targets.map { Double($0 - t0) }
        let limit = Double(tau)
        since.withUnsafeBufferPointer { xs in
            for (k, interval) in intervals.enumerated() {
                if interval <= tau {
                    covered[k] += xs.count
                    continue
                }
                let period = Double(interval)
                let inverse = 1 / period
                var n = 0
                for x in xs {
                    var r = x - Double(Int64(x * inverse)) * period
                    if r < 0 { r += period } else if r >= period { r -= period }
                    if r <= limit { n += 1 }
                }
                covered[k] += n
            }
        }
    }
}
