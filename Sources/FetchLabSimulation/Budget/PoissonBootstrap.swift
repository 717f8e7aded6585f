import FetchLabCore
import Foundation

/// The bootstrap over users as sums that merge (DOMAIN.md, "Intervals"). In resample r each user
/// weighs a Poisson(1) draw made from a hash of (seed, the user's name, r), not a multinomial
/// draw over the run's users: a user's weight does not depend on which other users the run has.
/// So each shard sums its own users' weighted figures per resample, and the shards' sums add up
/// (integers and ``ExactSum``, exact in any order) to the sums one run over all the users makes.
/// Their size is resamples × policies, whatever the users.
///
/// Row 0 is the point estimate's sums (every user weighs 1); rows 1…``resamples`` the draws.
struct PoissonBootstrap: Sendable, Hashable {
    let resamples: Int
    let policies: Int
    /// Per row: scored launches, launches fresh without a fetch, pairs.
    private(set) var counts: [Int64]
    /// Per row, per policy: fresh launches at the primary τ.
    private(set) var fresh: [Int64]
    /// Per row, per policy: fetches per day summed over the pairs.
    private(set) var fetchesPerDay: [ExactSum]

    init(resamples: Int, policies: Int) {
        self.resamples = max(0, resamples)
        self.policies = policies
        let rows = self.resamples + 1
        counts = [Int64](repeating: 0, count: 3 * rows)
        fresh = [Int64](repeating: 0, count: rows * policies)
        fetchesPerDay = [ExactSum](repeating: ExactSum(), count: rows * policies)
    }

    /// P(K ≤ k) for K ~ Poisson(1), k = 0…19, from e⁻¹ written out (not `exp`, whose last bit may
    /// differ between C libraries) and IEEE divisions and additions: the same on every platform.
    static let cumulative: [Double] = {
        var p = 0.36787944117144233
        var sum = p
        var out = [sum]
        for k in 1..<20 {
            p /= Double(k)
            sum += p
            out.append(sum)
        }
        return out
    }()

    /// The weights of the user named `name` in resamples 1…`count`: Poisson(1) draws, the r-th
    /// from the r-th value of a SplitMix64 stream seeded by `seed` and the FNV-1a hash of the
    /// name's UTF-8 bytes (not Swift's `Hasher`, which each process seeds at random). Resample r's
    /// weight does not depend on `count`.
    static func weights(seed: UInt64, user name: String, count: Int) -> [UInt32] {
        var start = SplitMix64(seed: seed ^ 0x5851_F42D_4C95_7F2D)
        var rng = SplitMix64(seed: start.next() ^ UserShard.hash(name))
        let table = cumulative
        return (0..<max(0, count)).map { _ in
            let u = Double(rng.next() >> 11) * 0x1p-53
            var k = 0
            while k < table.count && u >= table[k] { k += 1 }
            return UInt32(k)
        }
    }

    /// Adds one user's figures, weighted 1 in row 0 and by its draws in the others.
    mutating func add(user name: String, _ u: UserBudgetSums, seed: UInt64) {
        precondition(u.fresh.count == policies && u.fetchesPerDay.count == policies, "sums for other policies")
        let weights = [1] + Self.weights(seed: seed, user: name, count: resamples)
        let perDay = u.fetchesPerDay.map { ExactSum($0) }
        let (scored, free, pairs) = (Int64(u.scored), Int64(u.free), Int64(u.pairs))
        let p = policies
        counts.withUnsafeMutableBufferPointer { c in
            fresh.withUnsafeMutableBufferPointer { f in
                fetchesPerDay.withUnsafeMutableBufferPointer { g in
                    for (r, w) in weights.enumerated() where w > 0 {
                        let w64 = Int64(w)
                        c[3 * r] &+= w64 &* scored
                        c[3 * r + 1] &+= w64 &* free
                        c[3 * r + 2] &+= w64 &* pairs
                        for i in 0..<p {
                            f[r * p + i] &+= w64 &* Int64(u.fresh[i])
                            g[r * p + i] += w == 1 ? perDay[i] : perDay[i].times(w)
                        }
                    }
                }
            }
        }
    }

    /// The name of the first figure that adding `other` would overflow, or why it cannot be
    /// added (another shape), or nil: fit to add.
    func problemAdding(_ other: PoissonBootstrap) -> String? {
        guard other.resamples == resamples, other.policies == policies else {
            return "\(other.resamples) resamples of \(other.policies) policies, not \(resamples) of \(policies)"
        }
        if zip(counts, other.counts).contains(where: { $0.addingReportingOverflow($1).overflow }) { return "counts" }
        if zip(fresh, other.fresh).contains(where: { $0.addingReportingOverflow($1).overflow }) { return "fresh" }
        if zip(fetchesPerDay, other.fetchesPerDay).contains(where: { $0.overflowsAdding($1) }) {
            return "fetchesPerDay"
        }
        return nil
    }

    /// Adds another shard's sums (of the same shape: ``problemAdding(_:)``).
    mutating func add(_ other: PoissonBootstrap) {
        precondition(other.resamples == resamples && other.policies == policies, "another bootstrap's shape")
        for k in counts.indices { counts[k] &+= other.counts[k] }
        for k in fresh.indices {
            fresh[k] &+= other.fresh[k]
            fetchesPerDay[k] += other.fetchesPerDay[k]
        }
    }

    /// Row `r`'s sums (0: the point; 1…``resamples``: draw r).
    func sums(row r: Int) -> BudgetAnalysis.Sums {
        var s = BudgetAnalysis.Sums(policies: policies)
        s.scored = Double(counts[3 * r])
        s.free = Double(counts[3 * r + 1])
        s.pairs = Double(counts[3 * r + 2])
        for i in 0..<policies {
            s.fresh[i] = Double(fresh[r * policies + i])
            s.fetchesPerDay[i] = fetchesPerDay[r * policies + i].value
        }
        return s
    }
}

extension PoissonBootstrap: Codable {
    enum CodingKeys: String, CodingKey { case resamples, policies, counts, fresh, fetchesPerDay }

    /// The sums as little-endian 64-bit words, in base 64 (a fetches-per-day sum is two words).
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(resamples, forKey: .resamples)
        try c.encode(policies, forKey: .policies)
        try c.encode(Self.data(counts.map { UInt64(bitPattern: $0) }), forKey: .counts)
        try c.encode(Self.data(fresh.map { UInt64(bitPattern: $0) }), forKey: .fresh)
        try c.encode(
            Self.data(fetchesPerDay.flatMap { [UInt64(bitPattern: $0.words.whole), $0.words.fraction] }),
            forKey: .fetchesPerDay)
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let resamples = try c.decode(Int.self, forKey: .resamples)
        let policies = try c.decode(Int.self, forKey: .policies)
        guard (0...PartialLimits.resamples).contains(resamples), (1...PartialLimits.policies).contains(policies) else {
            throw DecodingError.dataCorruptedError(
                forKey: .resamples, in: c, debugDescription: "\(resamples) resamples of \(policies) policies")
        }
        self.init(resamples: resamples, policies: policies)
        func words(_ key: CodingKeys, _ count: Int) throws -> [UInt64] {
            let data = try c.decode(Data.self, forKey: key)
            guard data.count == 8 * count else {
                throw DecodingError.dataCorruptedError(
                    forKey: key, in: c, debugDescription: "\(data.count) bytes, not \(8 * count)")
            }
            return data.withUnsafeBytes { b in
                (0..<count).map { UInt64(littleEndian: b.loadUnaligned(fromByteOffset: 8 * $0, as: UInt64.self)) }
            }
        }
        counts = try words(.counts, counts.count).map { Int64(bitPattern: $0) }
        fresh = try words(.fresh, fresh.count).map { Int64(bitPattern: $0) }
        let pairs = try words(.fetchesPerDay, 2 * fetchesPerDay.count)
        fetchesPerDay = fetchesPerDay.indices.map {
            ExactSum(whole: Int64(bitPattern: pairs[2 * $0]), fraction: pairs[2 * $0 + 1])
        }
        guard counts.allSatisfy({ $0 >= 0 }), fresh.allSatisfy({ $0 >= 0 }),
            !fetchesPerDay.contains(where: \.isNegative)
        else { throw DecodingError.dataCorruptedError(forKey: .counts, in: c, debugDescription: "a negative sum") }
    }

    private static func data(_ words: [UInt64]) -> Data {
        var data = Data(capacity: 8 * words.count)
        for w in words { withUnsafeBytes(of: w.littleEndian) { data.append(contentsOf: $0) } }
        return data
    }
}
