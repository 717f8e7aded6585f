import Testing

@testable import FetchLabCore

@Suite struct ExactSumTests {
    /// Terms of the kinds summed (rates, joules, bytes, probabilities), some negative.
    func terms(_ seed: UInt64, count: Int) -> [Double] {
        var rng = SplitMix64(seed: seed)
        return (0..<count).map { k in
            let u = Double(rng.next() >> 11) * 0x1p-53
            switch k % 4 {
            case 0: return u  // a probability
            case 1: return u * 1_000  // joules per day
            case 2: return (u * 5e7).rounded() / 7  // bytes per day
            default: return (u - 0.5) * 30  // either sign
            }
        }
    }

    @Test func oneTermIsItself() {
        for t in terms(1, count: 400) + [0, 1, -1, 0.1, 0.001, 123_456.789, -0.75] {
            #expect(ExactSum(t).value == t, "\(t)")
        }
        // A term's bits below 2⁻⁶⁴ are all it loses.
        #expect(abs(ExactSum(1e-9).value - 1e-9) < 0x1p-64)
    }

    /// Summed in any order or grouping, the sum is the same to the last bit; a double sum is not.
    @Test func anyOrderAndGroupingGiveTheSameSum() {
        let xs = terms(2, count: 2_000)
        let forward = ExactSum(xs)
        let backward = ExactSum(xs.reversed())
        var grouped = ExactSum()
        var start = 0
        var rng = SplitMix64(seed: 3)
        while start < xs.count {
            let end = min(xs.count, start + 1 + Int(rng.next() % 50))
            grouped += ExactSum(xs[start..<end])
            start = end
        }
        #expect(forward == backward && forward == grouped)
        #expect(forward.value == backward.value)
        // The plain sums differ in their last bits (why this type exists), and agree to rounding.
        let plain = xs.reduce(0, +)
        #expect(xs.reversed().reduce(0, +) != plain)
        #expect(abs(forward.value - plain) < 1e-9 * xs.map(abs).reduce(0, +))
    }

    @Test func aNonFiniteTermCountsAsZero() {
        var s = ExactSum(2.5)
        s += .nan
        s += .infinity
        #expect(s.value == 2.5)
    }
}
