import FetchLabCore

/// Codable by hand: the JSON carries the derived figures (mean stated, observed, gap, the gap chance
/// explains and whether the gap exceeds it, count, max gap, bins beyond chance) for readers, and
/// decoding rebuilds the sums from them.
extension ReliabilityTable.Bin {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        lower = try c.decode(Double.self, forKey: .lower)
        upper = try c.decode(Double.self, forKey: .upper)
        count = try c.decode(Int.self, forKey: .count)
        tooSmall = try c.decode(Bool.self, forKey: .tooSmall)
        statedSum = ExactSum((try c.decodeIfPresent(Double.self, forKey: .meanStated) ?? 0) * Double(count))
        observedSum = (try c.decodeIfPresent(Double.self, forKey: .observed) ?? 0) * Double(count)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(lower, forKey: .lower)
        try c.encode(upper, forKey: .upper)
        try c.encode(count, forKey: .count)
        try c.encodeIfPresent(meanStated, forKey: .meanStated)
        try c.encodeIfPresent(observed, forKey: .observed)
        try c.encodeIfPresent(gap, forKey: .gap)
        try c.encodeIfPresent(chanceGap, forKey: .chanceGap)
        if count > 0 { try c.encode(beyondChance, forKey: .beyondChance) }
        try c.encode(tooSmall, forKey: .tooSmall)
    }
}

extension ReliabilityTable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        bins = try c.decode([Bin].self, forKey: .bins)
        minimumCount = try c.decode(Int.self, forKey: .minimumCount)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(bins, forKey: .bins)
        try c.encode(minimumCount, forKey: .minimumCount)
        try c.encode(count, forKey: .count)
        try c.encodeIfPresent(maxGap, forKey: .maxGap)
        try c.encode(binsBeyondChance, forKey: .binsBeyondChance)
    }
}

extension ReliabilityTable {
    /// The table's sums exactly as kept (the stated sums to their last bit), for a comparison's
    /// mergeable partial: a table read back from it merges with others as if never written.
    public struct Exact: Sendable, Hashable, Codable {
        public var table: ReliabilityTable

        public init(_ table: ReliabilityTable) { self.table = table }

        enum Keys: String, CodingKey {
            case minimumCount = "minimum_count"
            case lower, upper, count
            case stated, observed
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: Keys.self)
            let lower = try c.decode([Double].self, forKey: .lower)
            let upper = try c.decode([Double].self, forKey: .upper)
            let count = try c.decode([Int].self, forKey: .count)
            let stated = try c.decode([ExactSum].self, forKey: .stated)
            let observed = try c.decode([Double].self, forKey: .observed)
            guard [upper.count, count.count, stated.count, observed.count].allSatisfy({ $0 == lower.count }),
                !lower.isEmpty
            else {
                throw DecodingError.dataCorruptedError(
                    forKey: .count, in: c, debugDescription: "a reliability table's bins disagree in number")
            }
            var table = ReliabilityTable(
                binCount: lower.count, minimumCount: try c.decode(Int.self, forKey: .minimumCount))
            for i in lower.indices {
                table.bins[i] = Bin(lower: lower[i], upper: upper[i])
                table.bins[i].count = count[i]
                table.bins[i].statedSum = stated[i]
                table.bins[i].observedSum = observed[i]
                table.bins[i].tooSmall = count[i] < table.minimumCount
            }
            self.table = table
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(table.minimumCount, forKey: .minimumCount)
            try c.encode(table.bins.map(\.lower), forKey: .lower)
            try c.encode(table.bins.map(\.upper), forKey: .upper)
            try c.encode(table.bins.map(\.count), forKey: .count)
            try c.encode(table.bins.map(\.statedSum), forKey: .stated)
            try c.encode(table.bins.map(\.observedSum), forKey: .observed)
        }
    }
}
