import FetchLabCore
import FetchLabResults

/// Clairvoyant: a fetch at the time of every scored launch that is not already fresh at the
/// primary τ (by an earlier oracle fetch or, when launches refresh, the previous launch).
public struct OraclePolicy: FetchPolicy {
    public init() {}
    public var name: String { "oracle" }
    public var family: String { "oracle" }
    /// Reads the launches to come.
    public var signals: Set<PolicySignal> { [.ownLaunches, .future] }
    public var role: PolicyRole { .bound }
    public var summary: String {
        "clairvoyant: a fetch at every scored launch not already fresh at τ (knows the future launches)"
    }

    public func fetchTimes(for pair: PairContext) -> [Instant] {
        // `PairContext.isFresh` over the launches' buffer, the last fetch kept at hand.
        let tau = pair.evaluation.primaryTau
        let refreshes = pair.evaluation.launchRefreshes
        let w = pair.window
        var out: [Instant] = []
        pair.launches.withUnsafeBufferPointer { l in
            var hasFetch = false
            var lastFetch = Instant.epoch
            for i in 0..<l.count {
                let t = l[i]
                guard w.isScored(t) else { continue }
                if hasFetch, lastFetch <= t, t - lastFetch <= tau { continue }
                if refreshes, i > 0, t - l[i - 1] <= tau { continue }
                out.append(t)
                hasFetch = true
                lastFetch = t
            }
        }
        return out
    }
}

extension OraclePolicy: PolicyFamily {
    public static let familyNames = ["oracle"]
    public static let form = "oracle"
    public static func parse(_ arguments: [String], raw: String) throws(PolicyRegistry.ParseError) -> [any FetchPolicy]
    {
        try PolicyRegistry.Arguments.none(arguments, raw: raw, family: "oracle")
        return [OraclePolicy()]
    }
}
