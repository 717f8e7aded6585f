import FetchLabCore

/// How well stated probabilities match what happened: the stated probabilities in equal-width
/// bins over 0…1, and per bin how many there were, their mean and the observed frequency of the
/// event. Bins with fewer than `minimumCount` cases are kept but flagged as too small to judge;
/// each bin's gap is also set against the gap chance leaves in a bin of its size (``Bin/chanceGap``).
///
/// Built at once from samples or one case at a time (``record(stated:outcome:)``, ``merge(_:)``);
/// pure and deterministic. Its JSON has snake_case keys.
public struct ReliabilityTable: Sendable, Hashable, Codable {
    /// One bin: cases whose stated probability is in [lower, upper) (the last bin includes 1).
    public struct Bin: Sendable, Hashable, Codable {
        public var lower: Double
        public var upper: Double
        public var count = 0
        /// Sums of the stated probabilities and of the outcomes (1 for each event).
        var statedSum = ExactSum()
        var observedSum = 0.0
        /// Whether the bin has too few cases to judge (set against the table's minimum).
        public internal(set) var tooSmall = true

        init(lower: Double, upper: Double) {
            self.lower = lower
            self.upper = upper
        }

        /// Equal when they state the same: the stated sum as a double (a table read back from its
        /// JSON has the sum its mean gives, not the exact sum's lowest bits).
        public static func == (a: Bin, b: Bin) -> Bool {
            a.lower == b.lower && a.upper == b.upper && a.count == b.count && a.statedSum.value == b.statedSum.value
                && a.observedSum == b.observedSum && a.tooSmall == b.tooSmall
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(lower)
            hasher.combine(upper)
            hasher.combine(count)
            hasher.combine(statedSum.value)
            hasher.combine(observedSum)
            hasher.combine(tooSmall)
        }

        /// The mean stated probability (nil when empty).
        public var meanStated: Double? { count > 0 ? statedSum.value / Double(count) : nil }
        /// The share of cases in which the event happened (nil when empty).
        public var observed: Double? { count > 0 ? observedSum / Double(count) : nil }
        /// |mean stated − observed| (nil when empty).
        public var gap: Double? { meanStated.flatMap { s in observed.map { abs(s - $0) } } }
        /// The gap that chance alone leaves in 95 % of bins like this one when the statements are
        /// calibrated: 1.96 binomial standard errors of `count` cases at the mean stated
        /// probability (nil when empty). A gap within it says the bin is too small to tell a
        /// calibrated predictor from a miscalibrated one by that much.
        public var chanceGap: Double? {
            meanStated.map { s in
                let q = min(1, max(0, s))
                return 1.96 * (q * (1 - q) / Double(count)).squareRoot()
            }
        }
        /// Whether the gap exceeds ``chanceGap``: a miscalibration the bin's size resolves.
        public var beyondChance: Bool {
            guard let gap, let chanceGap else { return false }
            return gap > chanceGap
        }

        enum CodingKeys: String, CodingKey {
            case lower, upper, count, gap, observed
            case meanStated = "mean_stated"
            case tooSmall = "too_small"
            case chanceGap = "chance_gap"
            case beyondChance = "beyond_chance"
        }
    }

    public internal(set) var bins: [Bin]
    /// Bins with fewer cases are too small to judge.
    public let minimumCount: Int

    enum CodingKeys: String, CodingKey {
        case bins
        case minimumCount = "minimum_count"
        case count
        case maxGap = "max_gap"
        case binsBeyondChance = "bins_beyond_chance"
    }

    /// An empty table of `binCount` equal-width bins.
    public init(binCount: Int = 10, minimumCount: Int = 30) {
        let n = max(1, binCount)
        bins = (0..<n).map { Bin(lower: Double($0) / Double(n), upper: Double($0 + 1) / Double(n)) }
        self.minimumCount = minimumCount
    }

    /// The table of `samples`.
    public init(_ samples: [CalibrationSample], binCount: Int = 10, minimumCount: Int = 30) {
        self.init(binCount: binCount, minimumCount: minimumCount)
        for s in samples { record(stated: s.stated, outcome: s.outcome) }
    }

    /// Adds one case (a stated probability outside 0…1 is counted in the nearest end bin).
    public mutating func record(stated p: Double, outcome: Bool) {
        let i = p.isNaN ? 0 : min(bins.count - 1, max(0, Int(p * Double(bins.count))))
        bins[i].count += 1
        bins[i].statedSum += p.isNaN ? 0 : p
        bins[i].observedSum += outcome ? 1 : 0
        bins[i].tooSmall = bins[i].count < minimumCount
    }

    /// Adds another table's cases (same bins).
    public mutating func merge(_ other: ReliabilityTable) {
        precondition(other.bins.count == bins.count, "reliability tables with different bins")
        for i in bins.indices {
            bins[i].count += other.bins[i].count
            bins[i].statedSum += other.bins[i].statedSum
            bins[i].observedSum += other.bins[i].observedSum
            bins[i].tooSmall = bins[i].count < minimumCount
        }
    }

    /// All cases.
    public var count: Int { bins.reduce(0) { $0 + $1.count } }
    /// The bins with enough cases to judge.
    public var judged: [Bin] { bins.filter { !$0.tooSmall } }
    /// The largest |mean stated − observed| over the bins with enough cases (nil when none has).
    public var maxGap: Double? { judged.compactMap(\.gap).max() }
    /// How many of the judged bins have a gap beyond chance (``Bin/beyondChance``).
    public var binsBeyondChance: Int { judged.filter(\.beyondChance).count }
}

extension ReliabilityTable {
    /// What makes a table read from a file impossible (nil: possible): a negative count or one
    /// above `maxCount`, sums that are not finite or outside 0 to the bin's count, bins that are not
    /// probabilities in order. For input that is not trusted (a partial).
    public func problem(maxCount: Int, maxMinimum: Int) -> String? {
        guard minimumCount >= 0, minimumCount <= maxMinimum else {
            return "minimum_count \(minimumCount) is impossible"
        }
        for (i, b) in bins.enumerated() {
            guard b.count >= 0, b.count <= maxCount else { return "bin \(i): count \(b.count) is impossible" }
            guard b.lower >= 0, b.upper <= 1, b.lower <= b.upper else {
                return "bin \(i): bounds \(b.lower) to \(b.upper) are not probabilities"
            }
            let stated = b.statedSum.value
            guard stated.isFinite, stated >= 0, stated <= Double(b.count) else {
                return "bin \(i): the stated sum \(stated) is outside 0 to its count \(b.count)"
            }
            guard b.observedSum.isFinite, b.observedSum >= 0, b.observedSum <= Double(b.count) else {
                return "bin \(i): the observed sum \(b.observedSum) is outside 0 to its count \(b.count)"
            }
        }
        return nil
    }

    /// Whether ``merge(_:)`` of `other` would overflow a bin's count.
    public func overflowsMerging(_ other: ReliabilityTable) -> Bool {
        guard other.bins.count == bins.count else { return true }
        return bins.indices.contains { bins[$0].count.addingReportingOverflow(other.bins[$0].count).overflow }
    }
}
