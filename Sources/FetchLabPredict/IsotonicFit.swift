/// An isotonic map kept up to date as samples arrive one at a time, at a cost that does not grow
/// with their number: the samples are counted in cells of raw probability ``cellWidth`` wide
/// (each cell keeps its lowest and highest raw value, its weight and its sum), and a refit pools
/// the cells, not the samples.
///
/// The map is the one `ProbabilityCalibrator(fitting:…)` fits on the same samples except that
/// samples in one cell are pooled as if their raw values were equal, so a step of the map can only
/// begin at a cell's edge (0.001 apart: far finer than any step, which rests on at least 30
/// samples and a frequency known to within 0.025). A learned scheduler refits its map of stated
/// probabilities every ten resolved fetches; pooling every fetch each time cost O(n²) in all.
package struct IsotonicFit: Sendable {
    /// The width of a cell of raw probability.
    package static let cellWidth = 0.001
    private static let cellCount = Int((1 / cellWidth).rounded()) + 1

    /// The cells (none until the first sample; a cell of weight 0 holds none), and the indices
    /// of those that hold some, increasing.
    private var cells: [ProbabilityCalibrator.Block] = []
    private var occupied: [Int16] = []
    /// How many samples, and how many of them happened.
    package private(set) var count = 0
    private var hits = 0
    /// The pool-adjacent-violators blocks of the last refit, and the position in `occupied` of
    /// each block's first cell; `dirty` is the lowest position whose cell changed since (or was
    /// inserted), `Int.max` when none. A refit pools again only from the block holding it: the
    /// blocks before it were never pooled with a later cell, so they are what a pool of all the
    /// cells gives there too (and a cell's counts are whole numbers, so the sums are exact in any
    /// order), and the stack at that block's first cell was those blocks alone.
    private var stack: [ProbabilityCalibrator.Block] = []
    private var stackStarts: [Int] = []
    private var dirty = Int.max

    package init() {}

    /// Counts one sample.
    package mutating func add(_ s: CalibrationSample) {
        count += 1
        if s.outcome { hits += 1 }
        let p = min(1, max(0, s.stated))
        let k = Int(p / Self.cellWidth)
        let one = ProbabilityCalibrator.Block(low: p, high: p, weight: 1, sum: s.outcome ? 1 : 0)
        if cells.isEmpty {
            cells = Array(repeating: .init(low: 0, high: 0, weight: 0, sum: 0), count: Self.cellCount)
        }
        // The position of the first occupied cell after k (a binary search).
        var i = 0
        var j = occupied.count
        while i < j {
            let m = (i + j) / 2
            if Int(occupied[m]) > k { j = m } else { i = m + 1 }
        }
        if cells[k].weight > 0 {
            cells[k].absorb(one)
            dirty = min(dirty, i - 1)
            return
        }
        cells[k] = one
        occupied.insert(Int16(k), at: i)
        dirty = min(dirty, i)
    }

    /// The pool-adjacent-violators blocks of the cells, pooled again from the first block that
    /// holds a cell changed since the last call.
    mutating func pooled() -> [ProbabilityCalibrator.Block] {
        guard dirty != Int.max else { return stack }
        // Keep the blocks that end before the first changed position (positions before it did
        // not move: a cell inserted there moved only those after it).
        var kept = 0
        while kept < stack.count, (kept + 1 < stackStarts.count ? stackStarts[kept + 1] : Int.max) <= dirty {
            kept += 1
        }
        let from = kept < stackStarts.count ? stackStarts[kept] : 0
        stack.removeSubrange(kept...)
        stackStarts.removeSubrange(kept...)
        cells.withUnsafeBufferPointer { cells in
            for position in from..<occupied.count {
                var b = cells[Int(occupied[position])]
                var start = position
                while let top = stack.last, top.pools(with: b) {
                    b.absorb(top)
                    stack.removeLast()
                    start = stackStarts.removeLast()
                }
                stack.append(b)
                stackStarts.append(start)
            }
        }
        dirty = Int.max
        return stack
    }

    /// The pool-adjacent-violators blocks of every cell, pooled from the first (what
    /// ``pooled()`` must equal).
    var pooledFromScratch: [ProbabilityCalibrator.Block] {
        var stack: [ProbabilityCalibrator.Block] = []
        stack.reserveCapacity(occupied.count)
        cells.withUnsafeBufferPointer { cells in
            for k in occupied { ProbabilityCalibrator.push(cells[Int(k)], onto: &stack) }
        }
        return stack
    }

    /// The map fitted on the samples counted.
    package mutating func calibrator(
        minimumSamples: Int = 30, minimumBlock: Int = 30, maximumStandardError: Double = 0.025
    ) -> ProbabilityCalibrator {
        ProbabilityCalibrator(
            count: count, hits: hits, pooled: pooled(), minimumSamples: minimumSamples,
            minimumBlock: minimumBlock, maximumStandardError: maximumStandardError)
    }
}
