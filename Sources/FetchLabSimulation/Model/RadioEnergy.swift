import FetchLabCore
import FetchLabResults

/// The battery energy of every fetch of one user's runs, as `CostModel.energy(of:)` computes it
/// for the same fetches (the pairs' fetches in pair order, then time order; a fetch as long as its
/// app's fetch, or the platform's budget when it expired), with the same arithmetic in the same
/// order, so the joules are the same to the bit. Each radio's fetches are put in start order by
/// merging the runs already in order (each pair's fetches are ascending), not by a general sort
/// over an array of tuples.
enum RadioEnergy {
    /// One fetch on one radio: its start, how long it transfers, and its place in the input.
    struct Use {
        var start: Instant
        var duration: Microseconds
        var index: Int
    }

    /// The joules of each fetch of `runs`, in pair order and, within a pair, in the run's order.
    static func joules(runs: [PairRun], user: UserSetup, cost: CostModel, fetchBudget: Microseconds) -> [Double] {
        var total = 0
        for run in runs { total += run.fetches.count }
        guard total > 0 else { return [] }
        var wifi: [Use] = []
        var cellular: [Use] = []
        wifi.reserveCapacity(total)
        cellular.reserveCapacity(total)
        var index = 0
        for (p, run) in runs.enumerated() {
            let duration = user.fetchCosts[p].duration
            let ran = min(duration, fetchBudget)
            for f in run.fetches {
                let use = Use(start: f.time, duration: f.expired ? ran : duration, index: index)
                // `.none` is costed as Wi-Fi (`RadioUse`).
                if f.state.network == .cellular { cellular.append(use) } else { wifi.append(use) }
                index += 1
            }
        }
        var out = [Double](repeating: 0, count: total)
        var scratch: [Use] = []
        out.withUnsafeMutableBufferPointer { joules in
            add(&wifi, radio: cost.radio(.wifi), scratch: &scratch, into: joules)
            add(&cellular, radio: cost.radio(.cellular), scratch: &scratch, into: joules)
        }
        return out
    }

    /// Writes the joules of one radio's fetches (in input order) at their indices.
    static func add(
        _ uses: inout [Use], radio r: CostModel.Radio, scratch: inout [Use],
        into out: UnsafeMutableBufferPointer<Double>
    ) {
        guard !uses.isEmpty else { return }
        sortByStart(&uses, scratch: &scratch)
        uses.withUnsafeBufferPointer { order in
            r.coalescedJoules(count: order.count, start: { order[$0].start }, duration: { order[$0].duration }) {
                out[order[$0].index] = $1
            }
        }
    }

    /// Sorts `uses` (given in index order) by start, ties in index order: a stable merge of its
    /// ascending runs.
    static func sortByStart(_ uses: inout [Use], scratch: inout [Use]) {
        let n = uses.count
        // The ends of the ascending runs.
        var ends: [Int] = []
        for i in 1..<max(n, 1) where uses[i].start < uses[i - 1].start { ends.append(i) }
        guard !ends.isEmpty else { return }
        ends.append(n)
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: uses)
        // Owned outright (no copy on the first write).
        var src = uses
        uses = []
        var dst = scratch
        scratch = []
        while ends.count > 1 {
            var merged: [Int] = []
            var from = 0
            var r = 0
            src.withUnsafeBufferPointer { a in
                dst.withUnsafeMutableBufferPointer { b in
                    while r < ends.count {
                        let mid = ends[r]
                        let hi = r + 1 < ends.count ? ends[r + 1] : mid
                        // Merge a[from..<mid] and a[mid..<hi] into b (left first on ties).
                        var i = from
                        var j = mid
                        var o = from
                        while i < mid, j < hi {
                            if a[j].start < a[i].start {
                                b[o] = a[j]
                                j += 1
                            } else {
                                b[o] = a[i]
                                i += 1
                            }
                            o += 1
                        }
                        while i < mid {
                            b[o] = a[i]
                            i += 1
                            o += 1
                        }
                        while j < hi {
                            b[o] = a[j]
                            j += 1
                            o += 1
                        }
                        merged.append(hi)
                        from = hi
                        r += 2
                    }
                }
            }
            ends = merged
            swap(&src, &dst)
        }
        uses = src
        scratch = dst
    }
}
