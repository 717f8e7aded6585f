import Foundation

/// ISO-8601 text of moments: FetchLab's one writer of them. A ``Style`` says how UTC and the
/// fraction of a second are written, where the outputs differ: the JSON of the commands writes UTC
/// as `+00:00` and milliseconds when there are any; the generated log files write UTC as `Z`, to
/// whole seconds; the records of when an import or a run happened write `Z` and milliseconds.
public enum ISO8601 {
    /// How a moment is written.
    public struct Style: Sendable, Hashable {
        /// How a clock at UTC is written.
        public enum UTC: Sendable, Hashable {
            /// `Z`.
            case z
            /// `+00:00`, as any other offset.
            case offset
        }

        /// How the fraction of a second is written.
        public enum Fraction: Sendable, Hashable {
            /// Whole seconds (the fraction is dropped).
            case none
            /// Always three digits of milliseconds (`.000`).
            case milliseconds
            /// Milliseconds only when there are any (`07:50:00.250`, `07:50:00`).
            case millisecondsWhenAny
        }

        public var utc: UTC
        public var fraction: Fraction

        public init(utc: UTC, fraction: Fraction) {
            self.utc = utc
            self.fraction = fraction
        }

        /// `2024-03-20T07:50:00+02:00`, `07:50:00.250+00:00`: every command's JSON.
        public static let json = Style(utc: .offset, fraction: .millisecondsWhenAny)
        /// `2024-03-31T12:00:05+02:00`, `12:00:05Z`: the generated log files.
        public static let logFile = Style(utc: .z, fraction: .none)
        /// `2026-11-25T16:38:39.123Z`: when an import or a run happened.
        public static let record = Style(utc: .z, fraction: .milliseconds)
    }

    /// Appends moment `t` on a clock `offset` seconds east of UTC, in `style`,
    /// to `out` as UTF-8 (offsets to the minute; times before 1970 count back from it).
    public static func append(_ t: Instant, offset: Int, style: Style, to out: inout [UInt8]) {
        @inline(__always) func two(_ n: Int) {
            out.append(UInt8(48 + n / 10))
            out.append(UInt8(48 + n % 10))
        }
        let local = t.sinceEpoch + Int64(offset) * Microseconds.perSecond
        let seconds = local.wholeSeconds
        let millis = Int((local - seconds * Microseconds.perSecond) / 1_000)
        let day = LocalCalendar.day(localSeconds: seconds)
        let of = Int(seconds - Int64(day) * Seconds.perDay)
        let date = CivilDate(daysSince1970: day)
        two(date.year / 100)
        two(date.year % 100)
        out.append(UInt8(ascii: "-"))
        two(date.month)
        out.append(UInt8(ascii: "-"))
        two(date.day)
        out.append(UInt8(ascii: "T"))
        two(of / 3_600)
        out.append(UInt8(ascii: ":"))
        two(of / 60 % 60)
        out.append(UInt8(ascii: ":"))
        two(of % 60)
        if style.fraction == .milliseconds || (style.fraction == .millisecondsWhenAny && millis != 0) {
            out.append(UInt8(ascii: "."))
            out.append(UInt8(48 + millis / 100))
            two(millis % 100)
        }
        if offset == 0, style.utc == .z {
            out.append(UInt8(ascii: "Z"))
            return
        }
        out.append(UInt8(ascii: offset < 0 ? "-" : "+"))
        let minutes = abs(offset) / 60
        two(minutes / 60)
        out.append(UInt8(ascii: ":"))
        two(minutes % 60)
    }

    /// Moment `t` on a clock `offset` seconds east of UTC, in `style`.
    public static func string(_ t: Instant, offset: Int, style: Style) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(29)
        append(t, offset: offset, style: style, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// `2026-11-25T16:38:39.123Z`: the moment in UTC, to the millisecond (``Style/record``).
    public static func utc(_ date: Date) -> String {
        // To the nearest microsecond first: the double's last bits must not take a millisecond off.
        string(
            Instant(sinceEpoch: Microseconds((date.timeIntervalSince1970 * 1_000_000).rounded())), offset: 0,
            style: .record)
    }

    /// `2024-03-20T07:50:00+02:00`: moment `t` on a clock `offset` seconds east
    /// of UTC, with milliseconds when it has any (`07:50:00.250+02:00`) (``Style/json``). What every
    /// command's JSON gives for a time, next to the microseconds (`…_us`).
    public static func local(_ t: Instant, offset: Int) -> String {
        string(t, offset: offset, style: .json)
    }
}
