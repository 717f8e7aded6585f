import FetchLabCore
import FetchLabResults

/// No background fetch at all: only launches refresh (when they do).
public struct NeverPolicy: FetchPolicy {
    public init() {}
    public var name: String { "never" }
    public var family: String { "never" }
    public var role: PolicyRole { .floor }
    /// Reads nothing.
    public var signals: Set<PolicySignal> { [] }
    public var summary: String { "no background fetch; content is only as fresh as the launches make it" }
    public func fetchTimes(for pair: PairContext) -> [Instant] { [] }
}

extension NeverPolicy: PolicyFamily {
    public static let familyNames = ["never", "none"]
    public static let form = "never"
    public static func parse(_ arguments: [String], raw: String) throws(PolicyRegistry.ParseError) -> [any FetchPolicy]
    {
        try PolicyRegistry.Arguments.none(arguments, raw: raw, family: "never")
        return [NeverPolicy()]
    }
}
