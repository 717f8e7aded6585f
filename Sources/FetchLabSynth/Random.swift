import FetchLabCore
import Foundation

/// xoshiro256** seeded through SplitMix64: fast, small, and the same sequence on every platform,
/// so a seed always gives the same population.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var s0: UInt64, s1: UInt64, s2: UInt64, s3: UInt64

    public init(seed: UInt64) {
        var seeds = SplitMix64(seed: seed)
        s0 = seeds.next()
        s1 = seeds.next()
        s2 = seeds.next()
        s3 = seeds.next()
    }

    /// An independent stream for a part of the simulation (a user, an app), by name and index.
    public init(seed: UInt64, stream: String, index: Int = 0) {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325  // FNV-1a, stable across runs (unlike Hasher)
        for byte in stream.utf8 {
            h ^= UInt64(byte)
            h = h &* 0x100_0000_01B3
        }
        self.init(seed: seed ^ h ^ (UInt64(bitPattern: Int64(index)) &* 0x9E37_79B9_7F4A_7C15))
    }

    public mutating func next() -> UInt64 {
        let result = ((s1 &* 5) << 7 | (s1 &* 5) >> 57) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = s3 << 45 | s3 >> 19
        return result
    }

    /// Uniform in [0, 1).
    public mutating func uniform() -> Double { Double(next() >> 11) * 0x1.0p-53 }

    public mutating func uniform(_ a: Double, _ b: Double) -> Double { a + (b - a) * uniform() }

    public mutating func int(_ a: Int, _ b: Int) -> Int { a + Int(next() % UInt64(b - a + 1)) }

    public mutating func chance(_ p: Double) -> Bool { uniform() < p }

    /// Standard normal (Box–Muller).
    public mutating func normal(mean: Double = 0, sd: Double = 1) -> Double {
        let u1 = max(uniform(), 1e-300)
        let u2 = uniform()
        return mean + sd * (-2 * Foundation.log(u1)).squareRoot() * cos(2 * .pi * u2)
    }

    public mutating func exponential(mean: Double) -> Double { -mean * Foundation.log(1 - uniform()) }

    /// Poisson (Knuth for small means, a rounded normal for large ones).
    public mutating func poisson(_ mean: Double) -> Int {
        guard mean > 0 else { return 0 }
        if mean > 30 { return max(0, Int(normal(mean: mean, sd: mean.squareRoot()).rounded())) }
        let limit = Foundation.exp(-mean)
        var k = 0
        var p = uniform()
        while p > limit {
            k += 1
            p *= uniform()
        }
        return k
    }

    /// An element chosen with probability proportional to its weight.
    public mutating func weighted<T>(_ items: [(T, Double)]) -> T {
        let total = items.reduce(0) { $0 + $1.1 }
        var r = uniform() * total
        for (item, w) in items {
            if r < w { return item }
            r -= w
        }
        return items[items.count - 1].0
    }

    public mutating func shuffled<T>(_ items: [T]) -> [T] {
        var a = items
        if a.count > 1 {
            for i in stride(from: a.count - 1, to: 0, by: -1) { a.swapAt(i, int(0, i)) }
        }
        return a
    }
}
