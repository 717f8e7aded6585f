/// A span of time in microseconds (a duration, an offset, a lead, τ): FetchLab keeps every
/// duration in this one unit, and the constants and constructors below are the only place the
/// conversion factors are written. A moment is an ``Instant``: the difference of two instants is a
/// span, an instant plus a span is an instant, and the sum of two instants does not compile.
///
/// A span is not a count either: spans add and subtract; a span times or divided by a number is a
/// span; a span divided by a span is a number (how many fit); a span times a span does not compile.
/// Converting to a number is explicit (`Double(span)`, `Int(span)`, ``value``, ``inMinutes``), and
/// an integer literal is a number of microseconds (`260_000`, `0`). The layout is one `Int64`.
@frozen public struct Microseconds: Hashable, Comparable, Sendable, ExpressibleByIntegerLiteral, CustomStringConvertible
{
    /// The number of microseconds.
    public var value: Int64

    @inlinable @inline(__always) public init(_ value: Int64) { self.value = value }
    @inlinable @inline(__always) public init(integerLiteral value: Int64) { self.value = value }
    /// `n` microseconds (a count read from elsewhere: an `Int`, a `UInt64` draw).
    @inlinable @inline(__always) public init(_ n: Int) { value = Int64(n) }
    @inlinable @inline(__always) public init(_ n: UInt64) { value = Int64(n) }
    /// `x` microseconds, truncated towards zero as `Int64(x)` does (round first for the nearest).
    @inlinable @inline(__always) public init(_ x: Double) { value = Int64(x) }

    @inlinable @inline(__always) public static func == (a: Self, b: Self) -> Bool { a.value == b.value }
    @inlinable @inline(__always) public static func < (a: Self, b: Self) -> Bool { a.value < b.value }
    @inlinable public func hash(into hasher: inout Hasher) { hasher.combine(value) }
    @inlinable @inline(__always) public static func + (a: Self, b: Self) -> Self { Self(a.value + b.value) }
    @inlinable @inline(__always) public static func - (a: Self, b: Self) -> Self { Self(a.value - b.value) }
    @inlinable @inline(__always) public static prefix func - (a: Self) -> Self { Self(-a.value) }
    @inlinable @inline(__always) public static func += (a: inout Self, b: Self) { a.value += b.value }
    @inlinable @inline(__always) public static func -= (a: inout Self, b: Self) { a.value -= b.value }
    /// `n` times the span.
    @inlinable @inline(__always) public static func * (a: Self, n: Int64) -> Self { Self(a.value * n) }
    @inlinable @inline(__always) public static func * (n: Int64, a: Self) -> Self { Self(n * a.value) }
    /// The span divided into `n` parts (rounding towards zero).
    @inlinable @inline(__always) public static func / (a: Self, n: Int64) -> Self { Self(a.value / n) }
    /// How many times `b` fits in `a` (rounding towards zero).
    @inlinable @inline(__always) public static func / (a: Self, b: Self) -> Int64 { a.value / b.value }
    /// What is left of `a` after whole `b`s (the sign of `a`, as `%`).
    @inlinable @inline(__always) public static func % (a: Self, b: Self) -> Self { Self(a.value % b.value) }

    /// The shortest and longest spans 64 bits hold.
    @inlinable public static var min: Self { Self(Int64.min) }
    @inlinable public static var max: Self { Self(Int64.max) }

    /// The number, as `Int64` prints it (`"\(span)"` writes what it did when spans were `Int64`).
    public var description: String { value.description }
}

/// A span is written as its number of microseconds (a JSON number).
extension Microseconds: Codable {
    public init(from decoder: any Decoder) throws { value = try decoder.singleValueContainer().decode(Int64.self) }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(value)
    }
}

/// The length of a span, whichever way it points.
@inlinable public func abs(_ s: Microseconds) -> Microseconds { Microseconds(Swift.abs(s.value)) }

extension Double {
    /// A span's number of microseconds.
    @inlinable @inline(__always) public init(_ s: Microseconds) { self = Double(s.value) }
}

extension Int {
    /// A span's number of microseconds.
    @inlinable @inline(__always) public init(_ s: Microseconds) { self = Int(s.value) }
}

extension Int64 {
    /// A span's number of microseconds.
    @inlinable @inline(__always) public init(_ s: Microseconds) { self = s.value }
}

/// A moment in time: a number of microseconds since 1970-01-01T00:00:00Z (UTC). An event's time,
/// a fetch's, a day's midnight. The layout is one `Int64`, so an array of instants is an array of
/// 64-bit integers and the replay's searches over them cost what they did on bare integers.
@frozen public struct Instant: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The span from 1970-01-01T00:00:00Z to this moment (negative before it).
    public var sinceEpoch: Microseconds

    @inlinable @inline(__always) public init(sinceEpoch: Microseconds) { self.sinceEpoch = sinceEpoch }

    /// The moment `seconds` whole seconds after 1970-01-01T00:00:00Z.
    @inlinable @inline(__always) public init(secondsSince1970 seconds: Int64) { sinceEpoch = .seconds(seconds) }

    /// 1970-01-01T00:00:00Z.
    @inlinable public static var epoch: Instant { Instant(sinceEpoch: 0) }
    /// Earlier and later than any instant a log holds: the bounds of "no time yet" and "never".
    @inlinable public static var distantPast: Instant { Instant(sinceEpoch: Microseconds.min) }
    @inlinable public static var distantFuture: Instant { Instant(sinceEpoch: Microseconds.max) }

    @inlinable @inline(__always) public static func == (a: Instant, b: Instant) -> Bool { a.sinceEpoch == b.sinceEpoch }
    @inlinable @inline(__always) public static func < (a: Instant, b: Instant) -> Bool { a.sinceEpoch < b.sinceEpoch }
    @inlinable public func hash(into hasher: inout Hasher) { hasher.combine(sinceEpoch) }
    /// The span from `b` to `a`.
    @inlinable @inline(__always) public static func - (a: Instant, b: Instant) -> Microseconds {
        a.sinceEpoch - b.sinceEpoch
    }
    @inlinable @inline(__always) public static func + (a: Instant, span: Microseconds) -> Instant {
        Instant(sinceEpoch: a.sinceEpoch + span)
    }
    @inlinable @inline(__always) public static func + (span: Microseconds, a: Instant) -> Instant {
        Instant(sinceEpoch: span + a.sinceEpoch)
    }
    @inlinable @inline(__always) public static func - (a: Instant, span: Microseconds) -> Instant {
        Instant(sinceEpoch: a.sinceEpoch - span)
    }
    @inlinable @inline(__always) public static func += (a: inout Instant, span: Microseconds) { a.sinceEpoch += span }
    @inlinable @inline(__always) public static func -= (a: inout Instant, span: Microseconds) { a.sinceEpoch -= span }

    /// Whole seconds since 1970, rounding towards minus infinity.
    @inlinable @inline(__always) public var wholeSeconds: Int64 { sinceEpoch.wholeSeconds }

    /// ISO-8601 in UTC, to the millisecond (`2024-03-20T05:50:00.000Z`).
    public var description: String { ISO8601.string(self, offset: 0, style: .record) }
}

/// An instant is written as its microseconds since 1970 (a JSON number), as before it had a type.
extension Instant: Codable {
    public init(from decoder: any Decoder) throws {
        sinceEpoch = try decoder.singleValueContainer().decode(Microseconds.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(sinceEpoch)
    }
}

extension Microseconds {
    /// Microseconds in one second, minute, hour and day.
    @inlinable public static var perSecond: Microseconds { 1_000_000 }
    @inlinable public static var perMinute: Microseconds { 60_000_000 }
    @inlinable public static var perHour: Microseconds { 3_600_000_000 }
    @inlinable public static var perDay: Microseconds { 86_400_000_000 }

    /// A span of whole seconds, minutes, hours or days, in microseconds.
    @inlinable @inline(__always) public static func seconds(_ n: Int64) -> Microseconds { n * perSecond }
    @inlinable @inline(__always) public static func minutes(_ n: Int64) -> Microseconds { n * perMinute }
    @inlinable @inline(__always) public static func hours(_ n: Int64) -> Microseconds { n * perHour }
    @inlinable @inline(__always) public static func days(_ n: Int64) -> Microseconds { n * perDay }

    /// The longest span a duration may be: about 100,000 years, far inside what 64 bits of
    /// microseconds hold, so that sums and products of a few durations cannot overflow either.
    public static let longestSpan: Microseconds = 100_000 * 365 * perDay

    /// `seconds` rounded to the microsecond, nil when it is not a number, infinite, or longer
    /// (either way) than ``longestSpan``: the checked conversion of a duration someone typed.
    public static func checked(seconds: Double) -> Microseconds? {
        checked(seconds, per: perSecond, within: Double(longestSpan))
    }

    /// A span of fractional minutes, rounded to the microsecond.
    @inlinable @inline(__always) public static func minutes(fractional x: Double) -> Microseconds {
        Microseconds((x * Double(perMinute)).rounded())
    }

    /// `x` minutes, nil when that is not a number or beyond ±2⁶² µs (about 146,000 years): for
    /// values read from files, which must not trap.
    public static func minutes(checked x: Double) -> Microseconds? { checked(x, per: perMinute) }

    /// `x` units of `unit` (``perSecond``, ``perMinute``, ``perHour``, ``perDay``), rounded to the
    /// microsecond; nil when that is not a number or beyond ±2⁶² µs, as ``minutes(checked:)``.
    public static func checked(_ x: Double, per unit: Microseconds) -> Microseconds? {
        checked(x, per: unit, within: 0x1p62)
    }

    /// `x` units of `unit`, rounded to the microsecond; nil when that is not a number or its
    /// magnitude passes `limit` microseconds. The one checked conversion: the two above differ
    /// only in their limit.
    private static func checked(_ x: Double, per unit: Microseconds, within limit: Double) -> Microseconds? {
        let us = (x * Double(unit)).rounded()
        guard us.isFinite, abs(us) <= limit else { return nil }
        return Microseconds(us)
    }

    /// This span in (fractional) seconds, minutes, hours or days.
    @inlinable @inline(__always) public var inSeconds: Double { Double(self) / Double(Self.perSecond) }
    @inlinable @inline(__always) public var inMinutes: Double { Double(self) / Double(Self.perMinute) }
    @inlinable @inline(__always) public var inHours: Double { Double(self) / Double(Self.perHour) }
    @inlinable @inline(__always) public var inDays: Double { Double(self) / Double(Self.perDay) }

    /// Whole seconds, rounding towards minus infinity (so that instants before 1970 floor too).
    @inlinable @inline(__always) public var wholeSeconds: Int64 {
        self >= 0 ? self / Self.perSecond : (self - Self.perSecond + 1) / Self.perSecond
    }
}

/// Seconds on a wall clock or in a UTC offset: civil arithmetic is done in whole seconds.
public enum Seconds {
    public static let perMinute: Int64 = 60
    public static let perHour: Int64 = 3_600
    public static let perDay: Int64 = 86_400
}

/// A proleptic Gregorian calendar date. Days are counted from 1970-01-01 (day 0, a Thursday).
public struct CivilDate: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public var year: Int
    public var month: Int
    public var day: Int

    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// The date of a day count since 1970-01-01 (H. Hinnant's algorithm).
    public init(daysSince1970 days: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        day = doy - (153 * mp + 2) / 5 + 1
        month = mp < 10 ? mp + 3 : mp - 9
        year = yoe + era * 400 + (month <= 2 ? 1 : 0)
    }

    /// Parses `YYYY-MM-DD` (a real date: 2023-02-29 is nil).
    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]),
            (1...12).contains(m), (1...Self.daysInMonth(year: y, month: m)).contains(d)
        else { return nil }
        self.init(year: y, month: m, day: d)
    }

    /// Days since 1970-01-01.
    @inline(__always) public var daysSince1970: Int { Self.days(year: year, month: month, day: day) }

    /// Days since 1970-01-01 of a date given by its parts (H. Hinnant's algorithm).
    @inline(__always) public static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    @inline(__always) public static func isLeap(_ year: Int) -> Bool {
        (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    }

    @inline(__always) public static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// `YYYY-MM-DD`.
    public var description: String {
        func pad(_ n: Int, _ width: Int) -> String {
            let s = String(n)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
    }

    public static func < (a: Self, b: Self) -> Bool { a.daysSince1970 < b.daysSince1970 }
}

/// Local days and times on a user's wall clock. A local time is UTC plus the UTC offset the log
/// gave; a local day is a day count since 1970 on that clock.
public enum LocalCalendar {
    /// The local day (days since 1970, rounding down) of seconds on a wall clock.
    @inline(__always) public static func day(localSeconds s: Int64) -> Int {
        Int(s >= 0 ? s / Seconds.perDay : (s - Seconds.perDay + 1) / Seconds.perDay)
    }

    /// Seconds on the wall clock at `offset` of an instant.
    @inline(__always) public static func localSeconds(_ time: Instant, offset: Int32) -> Int64 {
        time.wholeSeconds + Int64(offset)
    }

    /// The local day of an instant on a clock at `offset`.
    @inline(__always) public static func day(_ time: Instant, offset: Int32) -> Int {
        day(localSeconds: localSeconds(time, offset: offset))
    }

    /// Day of the week of a local day: 1 = Sunday … 7 = Saturday (1970-01-01 was a Thursday).
    @inline(__always) public static func weekday(_ day: Int) -> Int { ((day % 7) + 7 + 4) % 7 + 1 }

    /// Saturday or Sunday.
    @inline(__always) public static func isWeekend(_ day: Int) -> Bool {
        let w = weekday(day)
        return w == 1 || w == 7
    }

    /// The local midnight that starts `day` on a clock at `offset`.
    @inline(__always) public static func midnight(of day: Int, offset: Int32) -> Instant {
        Instant(sinceEpoch: .seconds(Int64(day) * Seconds.perDay - Int64(offset)))
    }

    /// The first local midnight strictly after `time` on a clock at `offset`.
    @inline(__always) public static func midnight(after time: Instant, offset: Int32) -> Instant {
        midnight(of: day(time, offset: offset) + 1, offset: offset)
    }
}
