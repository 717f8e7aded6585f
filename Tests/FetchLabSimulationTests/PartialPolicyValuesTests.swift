import FetchLabCore
import FetchLabResults
import Testing

@testable import FetchLabSimulation

/// A partial names its policies; they are read once, where the partial is read (`merge`), into
/// the values the merged run replays, and a name that does not read back as written is refused.
@Suite struct PartialPolicyValuesTests {
    static func configuration(_ policies: [any FetchPolicy]) -> ComparisonPartial.Configuration {
        Simulator().comparison(policies: policies).partial(shard: nil, source: "test").configuration
    }

    @Test func aPartialsPoliciesReadBackAsTheValuesWritten() throws {
        let written: [any FetchPolicy] = [NeverPolicy(), FixedIntervalPolicy(interval: .hours(1)), OraclePolicy()]
        let read = try Self.configuration(written).policyValues().get()
        #expect(read.map(\.name) == written.map(\.name))
        #expect(read.map(\.role) == [.floor, .baseline, .bound])
    }

    @Test func namesThatDoNotReadBackAreRefused() {
        var c = Self.configuration([NeverPolicy()])
        c.policies = ["never", "sometimes(1h)"]
        guard case .failure(let unknown) = c.policyValues() else {
            Issue.record("an unknown family was read")
            return
        }
        #expect("\(unknown)".hasPrefix("its policies cannot be read: unknown policy 'sometimes(1h)'"))
        // fixed(60m) reads as fixed(1h): not the name a FetchLab writes.
        c.policies = ["never", "fixed(60m)"]
        guard case .failure(let renamed) = c.policyValues() else {
            Issue.record("a name that reads back as another was taken")
            return
        }
        #expect("\(renamed)" == "its policies do not read back as written")
    }
}
