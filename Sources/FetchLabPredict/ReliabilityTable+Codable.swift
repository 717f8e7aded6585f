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
