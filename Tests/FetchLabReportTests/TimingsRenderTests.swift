import FetchLabReport
import FetchLabResults
import Testing

/// `compare --timings`: CPU seconds by family in the order replayed, the rate the benchmark reads,
/// and a total over every policy.
@Suite struct TimingsRenderTests {
    static let timings = ReplayTimings(
        families: ["never", "fixed", "fixed", "oracle", "fixed"], cpuSeconds: [0.5, 1, 2, 0, 1],
        launches: 2_000_000)

    @Test func familiesAreGroupedInTheOrderFirstReplayed() {
        let t = Self.timings
        #expect(t.families.map(\.name) == ["never", "fixed", "oracle"])
        #expect(t.families.map(\.policies) == [1, 3, 1])
        #expect(t.families.map(\.cpuSeconds) == [0.5, 4, 0])
        // The families account for every policy and every second.
        #expect(t.families.reduce(0) { $0 + $1.policies } == t.policies)
        #expect(t.families.reduce(0) { $0 + $1.cpuSeconds } == t.cpuSeconds)
    }

    @Test func theLinesGiveMillionsOfLaunchPolicyStepsPerCPUSecond() {
        #expect(
            CompareRenderer.timings(Self.timings) == [
                "timings: 2000000 launches of evaluated pairs; CPU seconds summed over threads",
                "  never: 1 policy, 0.500 s, 4.0 M launch·policy steps/s",
                "  fixed: 3 policies, 4.000 s, 1.5 M launch·policy steps/s",
                // No CPU time measured: no rate, not infinity.
                "  oracle: 1 policy, 0.000 s, 0.0 M launch·policy steps/s",
                "  total: 5 policies, 4.500 s, 2.2 M launch·policy steps/s",
            ])
    }
}
