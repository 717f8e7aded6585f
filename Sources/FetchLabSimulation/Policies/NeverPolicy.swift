import FetchLabCore

/// No background fetch at all: only launches refresh (when they do).
public struct NeverPolicy: FetchPolicy {
    public init() {}
    public var name: String { "never" }
    public var family: String { "never" }
    public var summary: String { "no background fetch; content is only as fresh as the launches make it" }
    public func fetchTimes(for pair: PairContext) -> [Microseconds] { [] }
}
