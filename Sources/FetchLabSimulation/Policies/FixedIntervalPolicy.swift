import FetchLabCore

/// Fetches every `interval` from the user's first event: t0 + n·T, up to E. Under a platform
/// whose own scheduler decides (iOS) each of these times is a request that the scheduler may or
/// may not act on (``requestedMinimumInterval(for:)``).
public struct FixedIntervalPolicy: FetchPolicy {
    public var interval: Microseconds

    /// The shortest interval a name may ask for: 5 minutes, well past a fetch and the radio's tail,
    /// so that without a platform the replay is the closed form (time and memory in proportion to
    /// the launches, whatever the interval); both platforms allow no less than 15 minutes anyway.
    /// (`fixed(1s)` took 4.4 GB for one user of 90 days.) The baseline's grid starts here too.
    public static let shortest: Microseconds = .minutes(5)

    public init(interval: Microseconds) {
        precondition(interval > 0)
        self.interval = interval
    }

    public var name: String { "fixed(\(Self.durationName(interval)))" }
    public var family: String { "fixed" }
    public var parameters: [String: Double] { ["interval_minutes": interval.inMinutes] }
    public var summary: String { "a fetch every \(Self.durationName(interval)) from the user's first event" }

    /// `setMinimumBackgroundFetchInterval(T)`: a floor, not a timer, where the platform decides.
    public func requestedMinimumInterval(for pair: PairInfo) -> Microseconds? { interval }

    public func fetchTimes(for pair: PairContext) -> [Microseconds] {
        let w = pair.window
        var out: [Microseconds] = []
        out.reserveCapacity(Int((w.end - w.firstEvent) / interval) + 1)
        var t = w.firstEvent
        while t <= w.end {
            out.append(t)
            t += interval
        }
        return out
    }

    /// `15m`, `1h`, `24h`, `90s`: the largest whole unit up to hours.
    static func durationName(_ us: Microseconds) -> String {
        if us % .perHour == 0 { return "\(us / .perHour)h" }
        if us % .perMinute == 0 { return "\(us / .perMinute)m" }
        if us % .perSecond == 0 { return "\(us / .perSecond)s" }
        return Quantity.format(duration: us)
    }
}
