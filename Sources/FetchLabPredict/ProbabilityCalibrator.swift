import FetchLabResults

/// Fitting the calibrator: isotonic regression (pool-adjacent-violators) on (raw p, outcome) pairs.
extension ProbabilityCalibrator {
    /// Fits the map on `samples`.
    /// - Parameters:
    ///   - samples: the stated probabilities (or scores) and what happened.
    ///   - minimumSamples: below this many samples, the map is the constant base rate (the
    ///     identity when there are none).
    ///   - minimumBlock: a step of the map rests on at least this many samples.
    ///   - maximumStandardError: and its frequency is known to within this standard error
    ///     (binomial, of the Laplace-smoothed frequency): the pooled blocks that miss either are
    ///     merged into the neighbour with the closer frequency, the least certain first. A map
    ///     meant to agree with what happens within 0.05 cannot rest on steps it cannot resolve;
    ///     with few samples this leaves a single step, the base rate.
    /// - Complexity: O(n log n) in the number of samples.
    public init(
        fitting samples: [CalibrationSample], minimumSamples: Int = 30, minimumBlock: Int = 30,
        maximumStandardError: Double = 0.025
    ) {
        let sorted = samples.sorted(by: { $0.stated < $1.stated })
        self.init(
            count: sorted.count, hits: sorted.reduce(0) { $0 + ($1.outcome ? 1 : 0) },
            pooled: Self.pooled(sorted: sorted), minimumSamples: minimumSamples, minimumBlock: minimumBlock,
            maximumStandardError: maximumStandardError)
    }

    /// The map of `count` samples, `hits` of which happened, whose pool-adjacent-violators blocks
    /// are `pooled` (computed only when there are `minimumSamples`; ``IsotonicFit`` keeps them as
    /// samples are added).
    init(
        count: Int, hits: Int, pooled: @autoclosure () -> [Block], minimumSamples: Int, minimumBlock: Int,
        maximumStandardError: Double
    ) {
        guard count > 0 else {
            self = .identity
            return
        }
        guard count >= minimumSamples else {
            self.init(raw: [0], calibrated: [Double(hits) / Double(count)], samples: count)
            return
        }
        var blocks = pooled()
        Self.mergeUncertain(&blocks, minimumWeight: Double(max(1, minimumBlock)), maximumError: maximumStandardError)
        var raw: [Double] = []
        var calibrated: [Double] = []
        for b in blocks {
            raw.append(b.low)
            calibrated.append(b.mean)
            if b.high > b.low {
                raw.append(b.high)
                calibrated.append(b.mean)
            }
        }
        self.init(raw: raw, calibrated: calibrated, samples: count)
    }

    /// A run of raw values pooled into one step: its range, weight and outcome sum.
    struct Block: Equatable {
        var low: Double
        var high: Double
        var weight: Double
        var sum: Double
        var mean: Double { sum / weight }
        /// The binomial standard error of the Laplace-smoothed frequency (not zero at 0 or 1).
        var standardError: Double {
            let p = (sum + 1) / (weight + 2)
            return (p * (1 - p) / weight).squareRoot()
        }

        /// Whether `next`, the block to the right, must be pooled with this one: its frequency is
        /// no higher. Weights and sums are whole numbers far below 2⁵³, so the cross products are
        /// exact (and order the frequencies as their quotients do).
        func pools(with next: Block) -> Bool { sum * next.weight >= next.sum * weight }

        mutating func absorb(_ o: Block) {
            low = min(low, o.low)
            high = max(high, o.high)
            weight += o.weight
            sum += o.sum
        }
    }

    /// Pool-adjacent-violators on samples in non-decreasing order of `stated`: equal raw values
    /// first, then adjacent blocks whose frequencies decrease, until the frequencies are
    /// non-decreasing in the raw value.
    static func pooled(sorted samples: [CalibrationSample]) -> [Block] {
        var stack: [Block] = []
        samples.withUnsafeBufferPointer { s in
            var i = 0
            let n = s.count
            while i < n {
                // Each run of equal raw values is one block.
                let value = s[i].stated
                var sum = 0.0
                var weight = 0.0
                repeat {
                    weight += 1
                    if s[i].outcome { sum += 1 }
                    i += 1
                } while i < n && s[i].stated == value
                push(Block(low: value, high: value, weight: weight, sum: sum), onto: &stack)
            }
        }
        return stack
    }

    /// Pushes the block to the right of `stack`'s blocks, absorbing the blocks below it while their
    /// frequency is no lower (a step of pool-adjacent-violators).
    static func push(_ block: Block, onto stack: inout [Block]) {
        var b = block
        while let top = stack.last, top.pools(with: b) {
            b.absorb(top)
            stack.removeLast()
        }
        stack.append(b)
    }

    /// Merges the blocks lighter than `minimumWeight` (the lightest first), then those whose
    /// frequency's standard error exceeds `maximumError` (the largest first), each into the
    /// neighbour with the closer frequency (which keeps the frequencies non-decreasing).
    static func mergeUncertain(_ blocks: inout [Block], minimumWeight: Double, maximumError: Double) {
        // Lighter blocks rank first (by weight), then by standard error; ties to the leftmost.
        func doubt(_ b: Block) -> Double? {
            if b.weight < minimumWeight { return 2 + 1 / b.weight }
            let error = b.standardError
            return error > maximumError ? error : nil
        }
        // Each block's doubt, kept beside it (a merge changes one block and removes another).
        var doubts = blocks.map(doubt)
        while blocks.count > 1 {
            // The most doubtful block, the leftmost of equals.
            var worst: (index: Int, doubt: Double)? = nil
            for (k, d) in doubts.enumerated() {
                if let d, worst.map({ d > $0.doubt }) ?? true { worst = (k, d) }
            }
            guard let i = worst?.index else { return }
            let left = i > 0 ? abs(blocks[i].mean - blocks[i - 1].mean) : .infinity
            let right = i + 1 < blocks.count ? abs(blocks[i + 1].mean - blocks[i].mean) : .infinity
            let j = left <= right ? i - 1 : i + 1
            blocks[min(i, j)].absorb(blocks[max(i, j)])
            blocks.remove(at: max(i, j))
            doubts[min(i, j)] = doubt(blocks[min(i, j)])
            doubts.remove(at: max(i, j))
        }
    }
}
