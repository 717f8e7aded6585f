import FetchLabCore

/// In the tests, and only there, an integer literal where an instant is expected is that many
/// microseconds since 1970 (`UsageEvent(time: 3_600_000_000, …)`, `[0, 5, 9]` as launch times):
/// the fixtures write moments as numbers, as the logs do. The library's modules do not import this module,
/// so an instant there is always made explicitly (`Instant(sinceEpoch:)`, `.epoch + span`).
extension Instant: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int64) { self.init(sinceEpoch: Microseconds(value)) }
}

extension Instant {
    /// In the tests: `n` seconds, minutes, hours or days after 1970-01-01T00:00:00Z, where an
    /// instant is expected (`ContextSample(time: .hours(1))`). Where either an instant or a span
    /// would do (`t - .minutes(5)`), the compiler asks which: write `Microseconds.minutes(5)`.
    public static func seconds(_ n: Int64) -> Instant { .epoch + .seconds(n) }
    public static func minutes(_ n: Int64) -> Instant { .epoch + .minutes(n) }
    public static func hours(_ n: Int64) -> Instant { .epoch + .hours(n) }
    public static func days(_ n: Int64) -> Instant { .epoch + .days(n) }
}
