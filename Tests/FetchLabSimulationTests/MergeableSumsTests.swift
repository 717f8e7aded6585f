import FetchLabCore
import FetchLabResults
import Foundation
import Testing

@testable import FetchLabSimulation

/// A comparison's sums do not depend on how its pairs are grouped: users one at a time, or shards
/// of users summed apart and then merged, give the same figures to the last digit (what merging
/// `compare --shard` runs needs).
@Suite struct MergeableSumsTests {
    func outcomes(seed: UInt64, count: Int) -> [PairOutcome] {
        var rng = SplitMix64(seed: seed)
        func unit() -> Double { Double(rng.next() >> 11) * 0x1p-53 }
        return (0..<count).map { _ in
            let scored = Int(rng.next() % 60)
            var o = PairOutcome(
                scored: scored, fresh: [0, 1, 2].map { _ in Int(rng.next() % UInt64(scored + 1)) },
                fetches: Int(rng.next() % 90), days: 1 + unit() * 40)
            o.staleness = (0..<scored).map { _ in .seconds(Int64(rng.next() % 200_000)) }
            o.leads = (0..<Int(rng.next() % 10)).map { _ in .seconds(Int64(rng.next() % 5_000)) }
            o.batteryJoules = unit() * 900
            o.cellularBytes = (unit() * 3e7).rounded()
            o.stated = (0..<Int(rng.next() % 40)).map { _ in (unit(), rng.next() % 3 == 0) }
            o.wasted = Int(rng.next() % 5)
            return o
        }
    }

    func metrics(_ s: MetricSums) throws -> Data {
        var s = s
        s.costUnits = 7
        let m = s.metrics(taus: [5, 15, 60].map { .minutes(fractional: $0) }, primary: 1, batteryJoules: 43_200)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return try encoder.encode(m)
    }

    @Test func pairsSummedInAnyGroupingGiveTheSameMetrics() throws {
        let all = outcomes(seed: 9, count: 600)
        var oneByOne = MetricSums(taus: 3)
        for o in all { oneByOne.add(o) }
        // Shards: every third pair, summed apart, merged in another order.
        var shards = (0..<3).map { _ in MetricSums(taus: 3) }
        for (k, o) in all.enumerated() { shards[k % 3].add(o) }
        var merged = MetricSums(taus: 3)
        for shard in shards.reversed() { merged.add(shard) }
        // And the pairs in reverse order.
        var reversed = MetricSums(taus: 3)
        for o in all.reversed() { reversed.add(o) }
        let expected = try metrics(oneByOne)
        #expect(try metrics(merged) == expected)
        #expect(try metrics(reversed) == expected)
        #expect(merged.daily == oneByOne.daily)
        #expect(merged.reliability?.bins.map(\.meanStated) == oneByOne.reliability?.bins.map(\.meanStated))
    }
}
