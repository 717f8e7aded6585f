import FetchLabCore
import FetchLabResults

/// One policy per app: each app's pairs run the policy named for the app, the others run the
/// fallback. This is how a tuner's per-app recommendation is replayed as a whole (the apps' fetches
/// share the radio as under any other policy). Not clairvoyant unless a part is.
public struct PerAppPolicy: FetchPolicy {
    /// App name → its policy.
    public var assignments: [String: any FetchPolicy]
    /// The policy of every app not named.
    public var fallback: any FetchPolicy

    public init(assignments: [String: any FetchPolicy], fallback: any FetchPolicy) {
        self.assignments = assignments
        self.fallback = fallback
    }

    /// `per-app(app=policy;…;*=fallback)`, apps in name order (apps on the fallback left out).
    public var name: String {
        let parts = assignments.filter { $0.value.name != fallback.name }.sorted { $0.key < $1.key }
            .map { "\($0.key)=\($0.value.name)" }
        return "per-app(" + (parts + ["*=\(fallback.name)"]).joined(separator: ";") + ")"
    }
    public var family: String { "per-app" }
    /// What any of its policies reads.
    public var signals: Set<PolicySignal> {
        assignments.values.reduce(fallback.signals) { $0.union($1.signals) }
    }
    public var summary: String { "a policy per app: \(name)" }
    /// A family of its own; one that assigns an oracle anywhere reads the future.
    public var role: PolicyRole {
        fallback.isClairvoyant || assignments.values.contains { $0.isClairvoyant } ? .clairvoyant : .family
    }
    public var needsContentUpdates: Bool {
        fallback.needsContentUpdates || assignments.values.contains { $0.needsContentUpdates }
    }

    func policy(of app: String) -> any FetchPolicy { assignments[app] ?? fallback }

    public func fetchTimes(for pair: PairContext) -> [Instant] {
        policy(of: pair.history.apps[Int(pair.app)].name).fetchTimes(for: pair)
    }

    public func makeScheduler(_ pair: PairInfo) -> (any FetchScheduler)? {
        policy(of: pair.appName.name).makeScheduler(pair)
    }

    public func requestedMinimumInterval(for pair: PairInfo) -> Microseconds? {
        policy(of: pair.appName.name).requestedMinimumInterval(for: pair)
    }
}
