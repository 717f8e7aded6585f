import FetchLabCore

/// The fixed-interval baseline (DOMAIN.md, "Evaluation protocol"): fixed(T) over a dense grid of
/// intervals, and any interval the run holds, in closed form. `fixed(T)` fetches at t0 + n·T; a
/// target launch L (one only a background fetch can make fresh) is fresh when a fetch falls in
/// [L − τ, L], i.e. when (L − t0) mod T ≤ τ; the fetches in [S, E] are counted by arithmetic.
/// The baseline at B is the best of these spending at most B fetches per app per day, joined
/// linearly between neighbouring intervals (an even mix across apps achieves any point between two).
public enum FixedBaseline {
    /// The dense grid: every minute from 5 min to 1 h, every 5 min to 4 h, every 10 min to 24 h,
    /// every hour to 7 days (356 intervals).
    public static let grid: [Microseconds] = {
        var minutes: [Int64] = Array(5...60)
        minutes += stride(from: 65, through: 240, by: 5)
        minutes += stride(from: 250, through: 1_440, by: 10)
        minutes += stride(from: 1_500, through: 10_080, by: 60)
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
        for (k, interval) in intervals.enumerated() {
            var n = 0
            if interval <= tau {
                n = targets.count
            } else {
                for t in targets where (t - t0) % interval <= tau { n += 1 }
            }
            covered[k] += n
        }
    }
}
