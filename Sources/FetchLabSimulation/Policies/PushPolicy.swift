import FetchLabCore
import FetchLabResults

/// Silent push: the server sends a push (`content-available: 1`) when new content for the app
/// appears, limiting itself to `rate` pushes an hour: an update less than 60/rate minutes after the
/// last push sent is held back and sent when that spacing has passed (one push then covers every
/// update held back). Pushes the platform refuses still count as sent (the server does not know).
/// With no content updates it sends nothing; it runs only when content updates are known.
public struct PushPolicy: FetchPolicy {
    /// Pushes per hour at most.
    public var rate: Double

    public init(rate: Double = 3) {
        precondition(rate > 0 && rate.isFinite)
        self.rate = rate
    }

    /// The least time between two pushes.
    public var spacing: Microseconds { Microseconds((Double(Microseconds.perHour) / rate).rounded()) }

    public var name: String { "push(\(PolicyRegistry.Arguments.numberName(rate)))" }
    public var family: String { "push" }
    /// The app's server pushes on its own content updates.
    public var signals: Set<PolicySignal> { [.contentUpdates] }
    public var parameters: [String: Double] { ["rate_per_hour": rate] }
    public var needsContentUpdates: Bool { true }
    public var summary: String {
        "silent push on every content update, at most \(PolicyRegistry.Arguments.numberName(rate)) an hour (later updates wait)"
    }

    public func makeScheduler(_ pair: PairInfo) -> (any FetchScheduler)? { PushScheduler(spacing: spacing) }
}

extension PushPolicy: PolicyFamily {
    public static let familyNames = ["push", "silent-push", "silent_push"]
    public static let form = "push(rate per hour) (e.g. push(3))"
    public static func parse(_ arguments: [String], raw: String) throws(PolicyRegistry.ParseError) -> [any FetchPolicy]
    {
        guard !arguments.isEmpty else { return [PushPolicy()] }
        return try arguments.map { (a: String) throws(PolicyRegistry.ParseError) -> any FetchPolicy in
            PushPolicy(rate: try PolicyRegistry.Arguments.number(a, raw: raw, what: "rate per hour", in: 0.01...3_600))
        }
    }
}

struct PushScheduler: FetchScheduler {
    /// Pushes follow content updates alone.
    var observedEvents: ObservedEvents { .ownApp }
    let spacing: Microseconds
    var lastPush: Instant? = nil
    private(set) var nextWake: Instant? = nil

    mutating func observe(_ event: UsageEvent, state: DeviceState) -> FetchRequest? { nil }

    mutating func observe(_ update: ContentUpdate, state: DeviceState) -> FetchRequest? {
        if let last = lastPush, update.time - last < spacing {
            nextWake = last + spacing
            return nil
        }
        lastPush = update.time
        nextWake = nil
        return .push
    }

    mutating func wake(at time: Instant, state: DeviceState) -> FetchRequest? {
        lastPush = time
        nextWake = nil
        return .push
    }
}
