import FetchLabCore
import FetchLabResults

/// The battery energy of every fetch of one user's runs, as `CostModel.energy(of:)` computes it
/// for the same fetches (the pairs' fetches in pair order, then time order; a fetch as long as its
/// app's fetch, or the platform's budget when it expired), with the same arithmetic in the same
/// order, so the joules are the same to the bit. The pairs' runs, each ascending, are merged by a
/// heap and each fetch's joules finished as the merge goes (``streamed(runs:total:user:cost:fetchBudget:)``);
/// runs not in time order are sorted radio by radio (a stable merge of their ascending stretches).
enum RadioEnergy {
    /// One fetch on one radio: its start, how long it transfers, and its place in the input.
    struct Use {
        var start: Microseconds
        var duration: Microseconds
        var index: Int
    }

    /// The joules of each fetch of `runs`, in pair order and, within a pair, in the run's order.
    static func joules(runs: [PairRun], user: UserSetup, cost: CostModel, fetchBudget: Microseconds) -> [Double] {
        var total = 0
        var ascending = true
        for run in runs {
            total += run.fetches.count
            if ascending {
                for k in run.fetches.indices.dropFirst() where run.fetches[k].time < run.fetches[k - 1].time {
                    ascending = false
                    break
                }
            }
        }
        guard total > 0 else { return [] }
        if ascending { return streamed(runs: runs, total: total, user: user, cost: cost, fetchBudget: fetchBudget) }
        var wifi: [Use] = []
        var cellular: [Use] = []
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

    /// One fetch as the merge reads it: its start, how long it transfers, and its radio.
    struct Flat {
        var start: Microseconds
        var duration: Microseconds
        var cellular: Bool
    }

    /// ``joules(runs:user:cost:fetchBudget:)`` when every run is ascending: the runs merged by a
    /// heap over the pairs (start, then pair: the input order at equal starts), each fetch's
    /// joules finished when the next fetch on its radio starts (its tail) or at the end, with the
    /// same arithmetic as `CostModel.energy(of:)`.
    static func streamed(
        runs: [PairRun], total: Int, user: UserSetup, cost: CostModel, fetchBudget: Microseconds
    ) -> [Double] {
        var flat: [Flat] = []
        flat.reserveCapacity(total)
        var bounds: [Int] = [0]
        bounds.reserveCapacity(runs.count + 1)
        for (p, run) in runs.enumerated() {
            let duration = user.fetchCosts[p].duration
            let ran = min(duration, fetchBudget)
            for f in run.fetches {
                // `.none` is costed as Wi-Fi (`RadioUse`).
                flat.append(
                    Flat(start: f.time, duration: f.expired ? ran : duration, cellular: f.state.network == .cellular))
            }
            bounds.append(flat.count)
        }
        let radios = [cost.radio(.wifi), cost.radio(.cellular)]
        let promotions = radios.map { $0.promotion.inSeconds * $0.promotionWatts }
        var out = [Double](repeating: 0, count: total)
        // The heap of the pairs with fetches left, by (next start, pair); `cursor[p]`: pair p's next.
        var cursor = Array(bounds.dropLast())
        var heap: [(start: Microseconds, pair: Int)] = []
        heap.reserveCapacity(runs.count)
        flat.withUnsafeBufferPointer { f in
            out.withUnsafeMutableBufferPointer { joules in
                @inline(__always) func before(_ a: (start: Microseconds, pair: Int), _ b: (start: Microseconds, pair: Int))
                    -> Bool
                { a.start != b.start ? a.start < b.start : a.pair < b.pair }
                func siftDown(_ i: Int) {
                    var i = i
                    while true {
                        let l = 2 * i + 1
                        guard l < heap.count else { return }
                        var m = l
                        if l + 1 < heap.count, before(heap[l + 1], heap[l]) { m = l + 1 }
                        guard before(heap[m], heap[i]) else { return }
                        heap.swapAt(i, m)
                        i = m
                    }
                }
                for p in runs.indices where bounds[p] < bounds[p + 1] {
                    heap.append((f[bounds[p]].start, p))
                    var i = heap.count - 1
                    while i > 0, before(heap[i], heap[(i - 1) / 2]) {
                        heap.swapAt(i, (i - 1) / 2)
                        i = (i - 1) / 2
                    }
                }
                // Per radio: the end of its last transfer, and the fetch whose tail awaits the
                // next start (-1: none), its joules so far and its transfer's end.
                var busyUntil = [Microseconds.min, .min]
                var pending = [-1, -1]
                var pendingJoules = [0.0, 0.0]
                var pendingEnd: [Microseconds] = [0, 0]
                while !heap.isEmpty {
                    let p = heap[0].pair
                    let k = cursor[p]
                    cursor[p] = k + 1
                    if k + 1 < bounds[p + 1] {
                        heap[0] = (f[k + 1].start, p)
                    } else {
                        heap[0] = heap[heap.count - 1]
                        heap.removeLast()
                    }
                    siftDown(0)
                    let use = f[k]
                    let x = use.cellular ? 1 : 0
                    let r = radios[x]
                    // Tail until this transfer begins, at most the whole tail.
                    if pending[x] >= 0 {
                        let tail = min(r.tail, max(0, use.start - pendingEnd[x]))
                        joules[pending[x]] = pendingJoules[x] + tail.inSeconds * r.tailWatts
                    }
                    var j = use.duration.inSeconds * r.transferWatts
                    // Promotion unless the radio is still up (transferring or in its tail).
                    if busyUntil[x] == .min || use.start > busyUntil[x] + r.tail { j += promotions[x] }
                    let transferEnd = max(use.start + use.duration, busyUntil[x])
                    pending[x] = k
                    pendingJoules[x] = j
                    pendingEnd[x] = transferEnd
                    busyUntil[x] = transferEnd
                }
                for x in 0..<2 where pending[x] >= 0 {
                    joules[pending[x]] = pendingJoules[x] + radios[x].tail.inSeconds * radios[x].tailWatts
                }
            }
        }
        return out
    }

    /// Writes the joules of one radio's fetches (in input order) at their indices.
    static func add(
        _ uses: inout [Use], radio r: CostModel.Radio, scratch: inout [Use], into out: UnsafeMutableBufferPointer<Double>
    ) {
        guard !uses.isEmpty else { return }
        sortByStart(&uses, scratch: &scratch)
        let promotion = r.promotion.inSeconds * r.promotionWatts
        uses.withUnsafeBufferPointer { order in
            var busyUntil = Microseconds.min  // end of the last transfer on this radio
            for n in 0..<order.count {
                let f = order[n]
                let end = f.start + f.duration
                var joules = f.duration.inSeconds * r.transferWatts
                // Promotion unless the radio is still up (transferring or in its tail).
                if busyUntil == .min || f.start > busyUntil + r.tail { joules += promotion }
                // Tail until the next transfer on this radio begins, at most the whole tail.
                let transferEnd = max(end, busyUntil)
                var tail = r.tail
                if n + 1 < order.count { tail = min(tail, max(0, order[n + 1].start - transferEnd)) }
                joules += tail.inSeconds * r.tailWatts
                busyUntil = transferEnd
                out[f.index] = joules
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
