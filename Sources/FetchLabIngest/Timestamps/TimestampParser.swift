import FetchLabCore
import Foundation

/// The unit of numeric (epoch) timestamps.
public enum EpochUnit: String, Sendable, CaseIterable {
    /// Decide by magnitude: |v| < 1e11 → seconds, < 1e14 → milliseconds,
    /// < 1e17 → microseconds; larger values are an error.
    case auto
    case seconds
    case milliseconds
    case microseconds
}

/// A parsed instant.
public struct ParsedTimestamp: Sendable, Hashable {
    /// The instant.
    public var time: Instant
    /// The UTC offset of the local time as written, when known: the explicit offset
    /// (`0` for `Z`), or the offset of the parser's time zone at that instant for a
    /// local date-time. `nil` for epoch numbers and for local date-times read as UTC
    /// because the parser has no time zone.
    public var utcOffsetSeconds: Int32?

    /// Creates a parsed timestamp.
    public init(time: Instant, utcOffsetSeconds: Int32? = nil) {
        self.time = time
        self.utcOffsetSeconds = utcOffsetSeconds
    }
}

/// Why a timestamp could not be parsed. The message quotes the text (cut to 40 characters).
public struct TimestampError: FetchLabError, Hashable {
    public enum Code: String, Sendable, Hashable {
        /// The text is not a timestamp FetchLab reads (the importer records the row as rejected).
        case unreadable
    }

    public var code: Code { .unreadable }
    /// A one-line explanation, e.g. `timestamp "17x" is not ISO-8601 or epoch`.
    public var message: String
    /// Same as ``message``.
    public var description: String { message }

    /// Creates an error with `message`.
    public init(message: String) {
        self.message = message
    }
}

/// Parses timestamp fields: ISO-8601 date-times and epoch numbers.
///
/// Accepted forms (surrounding spaces, tabs, CR/LF and one pair of double quotes
/// are stripped first):
///
/// - `YYYY-MM-DDTHH:MM:SS[.f]` followed by `Z`, `±HH:MM`, `±HHMM` or `±HH`;
///   `T` may be a space (or `t`), `.` may be `,`, the fraction has 1–9 digits and
///   is truncated to microseconds; one space is allowed before the offset.
///   The seconds may be left out (`YYYY-MM-DD HH:MM`).
/// - The same without an offset: a local date-time, read in the parser's
///   `timeZone` (UTC when it is nil).
/// - Epoch numbers: optional `-`, digits, optional `.fraction` (truncated to
///   microseconds) in the ``EpochUnit`` given, or detected by magnitude. A
///   fraction is accepted in every unit (`1702991395131.5` ms = …131500 µs).
///
/// Not accepted: a date without a time (`2023-12-19`), years outside 0000–9999,
/// zone names or abbreviations (`UTC`, `CET`), exponents (`1.7e9`), a leading `+`
/// on epoch numbers, more than 9 fraction digits.
///
/// Ranges are validated (month 1–12, day within the month with leap years, hour
/// 0–23, minute 0–59, second 0–60, offset within ±18:00). A leap second (`:60`)
/// is clamped to `:59.999999` of the same minute, which keeps ordering.
///
/// Local times in a zone with daylight saving time:
/// - a time inside a spring-forward gap does not exist and is an error
///   (`local time 2024-03-10 02:30:00 does not exist in America/New_York (DST gap)`);
/// - a time repeated in a fall-back hour resolves to its **first** occurrence,
///   the earlier instant, still on daylight (summer) time.
///
/// Zone offsets are computed with Foundation once per local 15-minute slot and
/// cached (up to 65,536 slots, then the cache restarts), so per-row parsing does
/// not call Foundation. Parsing is hand-written byte code; no formatter or regex.
///
/// A parser is a value with a mutable cache: give each task its own copy.
public struct TimestampParser: Sendable {
    /// The zone for local date-times without offset; nil reads them as UTC.
    public let timeZone: TimeZone?
    /// How numeric timestamps are interpreted.
    public let epochUnit: EpochUnit
    /// The layout every timestamp is read with (`--date-format`); nil: detected per field.
    public var layout: DateLayout? = nil
    /// How many date-times without an offset this parser has read as UTC (it has no
    /// ``timeZone``): the import says so, naming `--timezone`.
    public private(set) var readAsUTC = 0

    /// Cache of zone offsets by local 15-minute slot; `Self.complexSlot` marks
    /// slots containing a transition (resolved exactly per call).
    private var slotOffsets: [Int64: Int32] = [:]
    private var lastSlot: Int64 = .min
    private var lastSlotOffset: Int32 = 0

    private static let slotSeconds: Int64 = 15 * Seconds.perMinute
    private static let maxCachedSlots = 65_536
    private static let complexSlot = Int32.min
    private static let microsecondsPerMillisecond = Microseconds.perSecond.value / 1_000

    /// Creates a parser.
    /// - Parameters:
    ///   - timeZone: how to read local date-times without offset; nil = UTC.
    ///   - epochUnit: the unit of epoch numbers, or `.auto` to detect it by magnitude.
    public init(timeZone: TimeZone? = nil, epochUnit: EpochUnit = .auto) {
        self.timeZone = timeZone
        self.epochUnit = epochUnit
    }

    /// Parses the UTF-8 bytes of one field.
    public mutating func parse(_ field: UnsafeRawBufferPointer) throws(TimestampError) -> ParsedTimestamp {
        guard var start = field.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            throw TimestampError(message: "empty timestamp")
        }
        var end = start + field.count
        // Strip blanks, one pair of double quotes, blanks again.
        while start < end && Self.isBlank(start[0]) { start += 1 }
        while end > start && Self.isBlank(end[-1]) { end -= 1 }
        if end - start >= 2 && start[0] == 0x22 && end[-1] == 0x22 {
            start += 1
            end -= 1
            while start < end && Self.isBlank(start[0]) { start += 1 }
            while end > start && Self.isBlank(end[-1]) { end -= 1 }
        }
        let n = end - start
        if n == 0 { throw TimestampError(message: "empty timestamp") }
        let p = UnsafePointer(start)
        if let layout {
            guard let (local, micros, offset) = layout.read(p, n) else {
                throw TimestampError(
                    message: "timestamp \(Self.quote(p, n)) does not match --date-format \"\(layout)\"")
            }
            return try instant(local: local, micros: micros, offset: offset)
        }
        if n >= 10 && p[4] == 0x2d && p[0] &- 0x30 < 10 {
            return try parseISO(p, n)
        }
        return try parseEpoch(p, n)
    }

    /// Parses `text` (convenience for tests and options).
    public mutating func parse(_ text: String) throws(TimestampError) -> ParsedTimestamp {
        var copy = text
        let result: Result<ParsedTimestamp, TimestampError> = copy.withUTF8 { buffer in
            do throws(TimestampError) {
                return .success(try parse(UnsafeRawBufferPointer(buffer)))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    // MARK: - ISO-8601

    @inline(__always) private static func isBlank(_ b: UInt8) -> Bool {
        b == 0x20 || b == 0x09 || b == 0x0d || b == 0x0a
    }

    /// Two decimal digits at `p[i]`, or -1.
    @inline(__always) private static func twoDigits(_ p: UnsafePointer<UInt8>, _ i: Int) -> Int {
        let a = p[i] &- 0x30, b = p[i + 1] &- 0x30
        if a > 9 || b > 9 { return -1 }
        return Int(a) * 10 + Int(b)
    }

    private mutating func parseISO(_ p: UnsafePointer<UInt8>, _ n: Int) throws(TimestampError) -> ParsedTimestamp {
        // YYYY-MM-DD
        let y1 = Self.twoDigits(p, 0), y2 = Self.twoDigits(p, 2)
        let month = Self.twoDigits(p, 5), day = Self.twoDigits(p, 8)
        guard y1 >= 0, y2 >= 0, month >= 0, day >= 0, p[7] == 0x2d else { throw notTimestamp(p, n) }
        let year = y1 * 100 + y2
        if n == 10 { throw TimestampError(message: "timestamp \(Self.quote(p, n)) has a date but no time of day") }
        // [T t space]HH:MM
        let sep = p[10]
        guard n >= 16, sep == 0x54 || sep == 0x20 || sep == 0x74, p[13] == 0x3a else { throw notTimestamp(p, n) }
        let hour = Self.twoDigits(p, 11), minute = Self.twoDigits(p, 14)
        guard hour >= 0, minute >= 0 else { throw notTimestamp(p, n) }
        var i = 16
        var second = 0
        var micros = 0
        if i < n && p[i] == 0x3a {
            guard i + 3 <= n else { throw notTimestamp(p, n) }
            second = Self.twoDigits(p, i + 1)
            guard second >= 0 else { throw notTimestamp(p, n) }
            i += 3
            if i < n && (p[i] == 0x2e || p[i] == 0x2c) {
                i += 1
                let fracStart = i
                var scale = Int(Microseconds.perSecond / 10)
                while i < n, case let d = p[i] &- 0x30, d < 10 {
                    micros += Int(d) * scale
                    scale /= 10
                    i += 1
                }
                let digits = i - fracStart
                if digits == 0 { throw notTimestamp(p, n) }
                if digits > 9 {
                    throw TimestampError(message: "timestamp \(Self.quote(p, n)) has more than 9 fractional digits")
                }
            }
        }
        // Offset.
        var offset: Int32? = nil
        if i < n && p[i] == 0x20 && i + 1 < n { i += 1 }
        if i < n {
            let c = p[i]
            if (c == 0x5a || c == 0x7a) && i + 1 == n {
                offset = 0
            } else if c == 0x2b || c == 0x2d {
                let rest = n - i - 1
                var oh = -1, om = 0
                if rest == 2 {
                    oh = Self.twoDigits(p, i + 1)
                } else if rest == 4 {
                    oh = Self.twoDigits(p, i + 1)
                    om = Self.twoDigits(p, i + 3)
                } else if rest == 5 && p[i + 3] == 0x3a {
                    oh = Self.twoDigits(p, i + 1)
                    om = Self.twoDigits(p, i + 4)
                }
                guard oh >= 0, om >= 0 else { throw notTimestamp(p, n) }
                let total = Int64(oh) * Seconds.perHour + Int64(om) * Seconds.perMinute
                if om > 59 || total > 18 * Seconds.perHour {
                    throw TimestampError(
                        message: "timestamp \(Self.quote(p, n)) has invalid UTC offset \(Self.text(p + i, n - i))")
                }
                offset = Int32(c == 0x2d ? -total : total)
            } else {
                throw notTimestamp(p, n)
            }
        }
        // Ranges.
        if month < 1 || month > 12 {
            throw TimestampError(message: "timestamp \(Self.quote(p, n)) has invalid month \(month)")
        }
        if day < 1 || day > CivilDate.daysInMonth(year: year, month: month) {
            throw TimestampError(
                message:
                    "timestamp \(Self.quote(p, n)) has invalid day \(day) for \(Self.pad(year, 4))-\(Self.pad(month, 2))"
            )
        }
        if hour > 23 { throw TimestampError(message: "timestamp \(Self.quote(p, n)) has invalid hour \(hour)") }
        if minute > 59 { throw TimestampError(message: "timestamp \(Self.quote(p, n)) has invalid minute \(minute)") }
        if second > 60 { throw TimestampError(message: "timestamp \(Self.quote(p, n)) has invalid second \(second)") }
        let (local, clampedMicros) = Self.localSeconds(
            year: year, month: month, day: day, hour: hour, minute: minute, second: second, micros: micros)
        return try instant(local: local, micros: clampedMicros, offset: offset)
    }

    /// Seconds since 1970-01-01 00:00 local of a valid wall-clock time, and its microseconds; a
    /// leap second (:60) is clamped to :59.999999.
    static func localSeconds(
        year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, micros: Int
    ) -> (local: Int64, micros: Int) {
        var (second, micros) = (second, micros)
        if second == 60 {
            second = 59
            micros = Int(Microseconds.perSecond) - 1
        }
        let days = CivilDate.days(year: year, month: month, day: day)
        let local =
            Int64(days) * Seconds.perDay + Int64(hour) * Seconds.perHour + Int64(minute) * Seconds.perMinute
            + Int64(second)
        return (local, micros)
    }

    /// The instant of a local wall-clock time: by its own offset, else in ``timeZone`` (nil: UTC).
    private mutating func instant(local: Int64, micros: Int, offset: Int32?) throws(TimestampError) -> ParsedTimestamp {
        if let offset {
            return ParsedTimestamp(
                time: Instant(sinceEpoch: .seconds(local - Int64(offset)) + Microseconds(micros)),
                utcOffsetSeconds: offset)
        }
        guard timeZone != nil else {
            readAsUTC += 1
            return ParsedTimestamp(
                time: Instant(sinceEpoch: .seconds(local) + Microseconds(micros)), utcOffsetSeconds: nil)
        }
        let zoneOffset = try localOffset(local)
        return ParsedTimestamp(
            time: Instant(sinceEpoch: .seconds(local - Int64(zoneOffset)) + Microseconds(micros)),
            utcOffsetSeconds: zoneOffset
        )
    }

    // MARK: - Time zone offsets

    /// The offset of `timeZone` for a local wall-clock time, given as seconds since
    /// 1970-01-01 00:00 local.
    private mutating func localOffset(_ local: Int64) throws(TimestampError) -> Int32 {
        let slot = local >= 0 ? local / Self.slotSeconds : (local - Self.slotSeconds + 1) / Self.slotSeconds
        if slot == lastSlot { return lastSlotOffset }
        guard let zone = timeZone else { return 0 }
        var entry: Int32
        if let cached = slotOffsets[slot] {
            entry = cached
        } else {
            let slotStart = slot * Self.slotSeconds
            let first = Self.resolve(slotStart, in: zone)
            let last = Self.resolve(slotStart + Self.slotSeconds - 1, in: zone)
            entry = (first != nil && first == last) ? first ?? Self.complexSlot : Self.complexSlot
            if slotOffsets.count >= Self.maxCachedSlots { slotOffsets.removeAll(keepingCapacity: true) }
            slotOffsets[slot] = entry
        }
        if entry != Self.complexSlot {
            lastSlot = slot
            lastSlotOffset = entry
            return entry
        }
        // A slot with a transition inside: resolve this time exactly.
        if let offset = Self.resolve(local, in: zone) { return offset }
        throw TimestampError(
            message: "local time \(Self.formatLocal(local)) does not exist in \(zone.identifier) (DST gap)")
    }

    /// Resolves a local wall-clock time in `zone`: the offset of its first
    /// occurrence, or nil when it falls in a gap. Calls Foundation.
    private static func resolve(_ local: Int64, in zone: TimeZone) -> Int32? {
        func offset(at utc: Int64) -> Int64 {
            Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(utc))))
        }
        // Offsets in effect around this time (assumes at most one transition a day).
        let candidates = [offset(at: local - Seconds.perDay), offset(at: local), offset(at: local + Seconds.perDay)]
        var best: Int64? = nil
        var bestOffset: Int64 = 0
        for candidate in candidates {
            let utc = local - candidate
            if offset(at: utc) == candidate && (best.map { utc < $0 } ?? true) {
                best = utc
                bestOffset = candidate
            }
        }
        guard best != nil else { return nil }
        return Int32(truncatingIfNeeded: bestOffset)
    }

    private static func formatLocal(_ local: Int64) -> String {
        let day = LocalCalendar.day(localSeconds: local)
        let secs = local - Int64(day) * Seconds.perDay
        let hh = Int(secs / Seconds.perHour), mm = Int(secs % Seconds.perHour / Seconds.perMinute),
            ss = Int(secs % Seconds.perMinute)
        return "\(CivilDate(daysSince1970: day)) \(pad(hh, 2)):\(pad(mm, 2)):\(pad(ss, 2))"
    }

    // MARK: - Epoch numbers

    private func parseEpoch(_ p: UnsafePointer<UInt8>, _ n: Int) throws(TimestampError) -> ParsedTimestamp {
        var i = 0
        let negative = p[0] == 0x2d
        if negative { i = 1 }
        let intStart = i
        var value: Int64 = 0
        while i < n, case let d = p[i] &- 0x30, d < 10 {
            if i - intStart >= 18 {
                throw TimestampError(message: "timestamp \(Self.quote(p, n)) is out of range for an epoch number")
            }
            value = value * 10 + Int64(d)
            i += 1
        }
        if i == intStart { throw notTimestamp(p, n) }
        // Fraction: up to 6 digits kept (as millionths), the rest checked and dropped.
        var fraction: Int64 = 0
        if i < n && p[i] == 0x2e {
            i += 1
            let fracStart = i
            var scale: Int64 = 100_000
            while i < n, case let d = p[i] &- 0x30, d < 10 {
                fraction += Int64(d) * scale
                scale /= 10
                i += 1
            }
            if i == fracStart { throw notTimestamp(p, n) }
        }
        if i != n { throw notTimestamp(p, n) }
        var unit = epochUnit
        if unit == .auto {
            if value < 100_000_000_000 {
                unit = .seconds
            } else if value < 100_000_000_000_000 {
                unit = .milliseconds
            } else if value < 100_000_000_000_000_000 {
                unit = .microseconds
            } else {
                throw TimestampError(
                    message:
                        "timestamp \(Self.quote(p, n)) is too large for an epoch in seconds, milliseconds or microseconds"
                )
            }
        }
        // `fraction` is in millionths of one unit.
        var micros: Int64
        var overflow = false
        switch unit {
        case .seconds, .auto:
            (micros, overflow) = value.multipliedReportingOverflow(by: Microseconds.perSecond.value)
            micros += fraction
        case .milliseconds:
            (micros, overflow) = value.multipliedReportingOverflow(by: Self.microsecondsPerMillisecond)
            micros += fraction / Self.microsecondsPerMillisecond
        case .microseconds:
            micros = value
        }
        if overflow || micros > Int64.max / 2 {
            throw TimestampError(message: "timestamp \(Self.quote(p, n)) is out of range for an epoch number")
        }
        return ParsedTimestamp(
            time: Instant(sinceEpoch: Microseconds(negative ? -micros : micros)), utcOffsetSeconds: nil)
    }

    // MARK: - Messages

    private func notTimestamp(_ p: UnsafePointer<UInt8>, _ n: Int) -> TimestampError {
        TimestampError(message: "timestamp \(Self.quote(p, n)) is not ISO-8601 or epoch" + Self.layoutHint(p, n))
    }

    /// For a layout automatic reading does not take (slashes or dots in the date, AM/PM, month
    /// names), the option that reads it, with a layout that fits the text's shape.
    static func layoutHint(_ p: UnsafePointer<UInt8>, _ n: Int) -> String {
        let text = Self.text(p, n)
        let lower = text.lowercased()
        let ampm = lower.hasSuffix("am") || lower.hasSuffix("pm") || lower.hasSuffix("a.m.") || lower.hasSuffix("p.m.")
        let named = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"].contains {
            lower.contains($0)
        }
        let dateParts = text.split(whereSeparator: { $0 == " " || $0 == "T" }).first.map(String.init) ?? text
        // A date of three numbers between slashes, dots or dashes not in ISO order.
        let separator = ["/", ".", "-"].map(Character.init).first { sep in
            let parts = dateParts.split(separator: sep, omittingEmptySubsequences: false)
            return parts.count == 3 && parts.allSatisfy { !$0.isEmpty && $0.count <= 4 && $0.allSatisfy(\.isNumber) }
                && !(sep == "-" && parts[0].count == 4)
        }
        guard separator != nil || ampm || named else { return "" }
        var date = "%Y-%m-%d"
        var other: String? = nil
        var otherName = ""
        if let separator {
            let parts = dateParts.split(separator: separator)
            let sep = String(separator)
            if parts[0].count == 4 {
                date = ["%Y", "%m", "%d"].joined(separator: sep)
            } else {
                let year = parts[2].count == 2 ? "%y" : "%Y"
                // A first number over 12 is a day, a second one over 12 is a day; else either may be.
                let (first, second) = (Int(parts[0]) ?? 0, Int(parts[1]) ?? 0)
                let dayFirst = first > 12 || second <= 12
                date = (dayFirst ? ["%d", "%m", year] : ["%m", "%d", year]).joined(separator: sep)
                if first <= 12 && second <= 12 {
                    other = ["%m", "%d", year].joined(separator: sep)
                    otherName = "month-first"
                }
            }

        } else if named {
            date = "%d %b %Y"
        }
        let hasTime = text.contains(":")
        let seconds = text.split(separator: ":").count >= 3
        let clock =
            !hasTime ? "" : (ampm ? (seconds ? " %I:%M:%S %p" : " %I:%M %p") : (seconds ? " %H:%M:%S" : " %H:%M"))
        return "; state the layout with --date-format, e.g. --date-format \"\(date)\(clock)\""
            + (other.map { " (\"\($0)\(clock)\" for \(otherName) dates)" } ?? "")
    }

    private static func text(_ p: UnsafePointer<UInt8>, _ n: Int) -> String {
        String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
    }

    /// The text in double quotes, cut to 40 bytes.
    private static func quote(_ p: UnsafePointer<UInt8>, _ n: Int) -> String {
        n <= 40 ? "\"\(text(p, n))\"" : "\"\(text(p, 40))…\""
    }

    private static func pad(_ v: Int, _ width: Int) -> String {
        let s = String(v)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }
}
