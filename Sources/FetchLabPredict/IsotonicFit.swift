import FetchLabResults

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
        if cells[k].weight > 0 {
            cells[k].absorb(one)
            return
        }
        cells[k] = one
        var i = occupied.count
        while i > 0, occupied[i - 1] > k { i -= 1 }
        occupied.insert(Int16(k), at: i)
    }

    /// The pool-adjacent-violators blocks of the cells.
    var pooled: [ProbabilityCalibrator.Block] {
        var stack: [ProbabilityCalibrator.Block] = []
        stack.reserveCapacity(occupied.count)
        cells.withUnsafeBufferPointer { cells in
            for k in occupied { ProbabilityCalibrator.push(cells[Int(k)], onto: &stack) }
        }
        return stack
    }

    /// The map fitted on the samples counted.
    package func calibrator(minimumSamples: Int = 30, minimumBlock: Int = 30, maximumStandardError: Double = 0.025)
        -> ProbabilityCalibrator
    {
        ProbabilityCalibrator(
            count: count, hits: hits, pooled: pooled, minimumSamples: minimumSamples,
            minimumBlock: minimumBlock, maximumStandardError: maximumStandardError)
    }
}
