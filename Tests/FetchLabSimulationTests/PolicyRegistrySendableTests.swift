import FetchLabSimulation
import Testing

@Suite struct PolicyRegistrySendableTests {
    /// The registry's families are shared by every thread as they are (their metatypes are
    /// Sendable), not through `nonisolated(unsafe)`: this does not compile otherwise.
    @Test func policyFamiliesAreSendable() {
        func sendable<T: Sendable>(_ value: T) -> T { value }
        #expect(sendable(PolicyRegistry.families).count == PolicyRegistry.families.count)
    }
}
