import FetchLabCore

/// A strftime-like layout for timestamps the automatic reader cannot tell apart (`--date-format`):
/// day-first or month-first dates, two-digit years, 12-hour clocks, month names.
///
/// Directives: `%Y` (4-digit year), `%y` (2-digit year: 00–68 → 20xx, 69–99 → 19xx, as POSIX
/// `strptime`), `%m` (month 1–12), `%d` (day 1–31), `%e` (same), `%b`/`%B` (month name or its
/// first three letters, any case), `%H` (hour 0–23), `%I` (hour 1–12, with `%p`), `%M` (minute),
/// `%S` (second), `%f` (fraction of a second, 1–6 digits), `%p` (`AM`/`PM`, any case, also
/// `a.m.`), `%z` (`Z`, `+01:00`, `+0100`), `%T` (`%H:%M:%S`), `%D` (`%m/%d/%y`), `%%`. Numbers take
/// one digit or more up to their width (`3/4/2024` reads with `%d/%m/%Y`). Any other character
/// matches itself; a space matches one or more blanks.
public struct DateLayout: Sendable, Hashable, CustomStringConvertible {
    enum Piece: Sendable, Hashable {
        case literal(UInt8)
        case blanks
        case year4, year2, month, day, monthName, hour24, hour12, minute, second, fraction, ampm, zone
    }

    let pieces: [Piece]
    /// The layout as given.
    public let description: String

    /// Parses a layout; throws a message naming the unknown directive.
    public init(_ text: String) throws(TimestampError) {
        var pieces: [Piece] = []
        var bytes = Array(text.utf8)[...]
        while let b = bytes.popFirst() {
            if b == UInt8(ascii: " ") {
                if pieces.last != .blanks { pieces.append(.blanks) }
                continue
            }
            guard b == UInt8(ascii: "%") else {
                pieces.append(.literal(b))
                continue
            }
            guard let d = bytes.popFirst() else {
                throw TimestampError(message: "--date-format \"\(text)\" ends with a lone %")
            }
            switch d {
            case UInt8(ascii: "Y"): pieces.append(.year4)
            case UInt8(ascii: "y"): pieces.append(.year2)
            case UInt8(ascii: "m"): pieces.append(.month)
            case UInt8(ascii: "d"), UInt8(ascii: "e"): pieces.append(.day)
            case UInt8(ascii: "b"), UInt8(ascii: "B"), UInt8(ascii: "h"): pieces.append(.monthName)
            case UInt8(ascii: "H"): pieces.append(.hour24)
            case UInt8(ascii: "I"): pieces.append(.hour12)
            case UInt8(ascii: "M"): pieces.append(.minute)
            case UInt8(ascii: "S"): pieces.append(.second)
            case UInt8(ascii: "f"): pieces.append(.fraction)
            case UInt8(ascii: "p"): pieces.append(.ampm)
            case UInt8(ascii: "z"): pieces.append(.zone)
            case UInt8(ascii: "T"): pieces += [.hour24, .literal(0x3A), .minute, .literal(0x3A), .second]
            case UInt8(ascii: "D"): pieces += [.month, .literal(0x2F), .day, .literal(0x2F), .year2]
            case UInt8(ascii: "%"): pieces.append(.literal(0x25))
            default:
                throw TimestampError(
                    message: "--date-format \"\(text)\": unknown directive %\(Character(Unicode.Scalar(d))) "
                        + "(known: %Y %y %m %d %e %b %B %H %I %M %S %f %p %z %T %D %%)")
            }
        }
        let has = Set(pieces)
        guard has.contains(.year4) || has.contains(.year2), has.contains(.month) || has.contains(.monthName),
            has.contains(.day)
        else {
            throw TimestampError(message: "--date-format \"\(text)\" needs a year, a month and a day")
        }
        if has.contains(.hour12) != has.contains(.ampm) {
            throw TimestampError(message: "--date-format \"\(text)\": %I (12-hour clock) and %p (AM/PM) go together")
        }
        self.pieces = pieces
        self.description = text
    }

    /// The local wall-clock time a field gives (seconds since 1970-01-01 00:00 local), its
    /// microseconds and its UTC offset when the layout has `%z`.
    func read(_ p: UnsafePointer<UInt8>, _ n: Int) -> (local: Int64, micros: Int, offset: Int32?)? {
        var i = 0
        var year = 1970
        var month = 1
        var day = 1
        var hour = 0
        var minute = 0
        var second = 0
        var micros = 0
        var pm: Bool? = nil
        var offset: Int32? = nil

        func number(_ maxDigits: Int) -> Int? {
            var v = 0
            var k = 0
            while k < maxDigits, i < n, p[i] &- 0x30 < 10 {
                v = v * 10 + Int(p[i] &- 0x30)
                i += 1
                k += 1
            }
            return k == 0 ? nil : v
        }
        func lower(_ b: UInt8) -> UInt8 { b >= 0x41 && b <= 0x5A ? b + 0x20 : b }

        for piece in pieces {
            switch piece {
            case .literal(let b):
                guard i < n, p[i] == b else { return nil }
                i += 1
            case .blanks:
                guard i < n, p[i] == 0x20 || p[i] == 0x09 else { return nil }
                while i < n, p[i] == 0x20 || p[i] == 0x09 { i += 1 }
            case .year4:
                guard let v = number(4) else { return nil }
                year = v
            case .year2:
                guard let v = number(2) else { return nil }
                year = v < 69 ? 2000 + v : 1900 + v
            case .month:
                guard let v = number(2), (1...12).contains(v) else { return nil }
                month = v
            case .day:
                guard let v = number(2), (1...31).contains(v) else { return nil }
                day = v
            case .monthName:
                guard i + 3 <= n else { return nil }
                let prefix = [lower(p[i]), lower(p[i + 1]), lower(p[i + 2])]
                guard let m = Self.monthPrefixes.firstIndex(of: prefix) else { return nil }
                month = m + 1
                i += 3
                // The rest of a full name.
                while i < n, lower(p[i]) >= 0x61, lower(p[i]) <= 0x7A { i += 1 }
                if i < n, p[i] == 0x2E { i += 1 }
            case .hour24:
                guard let v = number(2), v <= 23 else { return nil }
                hour = v
            case .hour12:
                guard let v = number(2), (1...12).contains(v) else { return nil }
                hour = v
            case .minute:
                guard let v = number(2), v <= 59 else { return nil }
                minute = v
            case .second:
                guard let v = number(2), v <= 60 else { return nil }
                second = v
            case .fraction:
                let start = i
                guard let v = number(6) else { return nil }
                var scaled = v
                for _ in (i - start)..<6 { scaled *= 10 }
                micros = scaled
                while i < n, p[i] &- 0x30 < 10 { i += 1 }  // digits past microseconds
            case .ampm:
                guard i < n else { return nil }
                let c = lower(p[i])
                guard c == 0x61 || c == 0x70 else { return nil }
                pm = c == 0x70
                i += 1
                if i < n, p[i] == 0x2E { i += 1 }
                guard i < n, lower(p[i]) == 0x6D else { return nil }
                i += 1
                if i < n, p[i] == 0x2E { i += 1 }
            case .zone:
                guard i < n else { return nil }
                if p[i] == UInt8(ascii: "Z") {
                    offset = 0
                    i += 1
                    continue
                }
                guard p[i] == 0x2B || p[i] == 0x2D else { return nil }
                let sign: Int32 = p[i] == 0x2D ? -1 : 1
                i += 1
                guard let h = number(2) else { return nil }
                if i < n, p[i] == 0x3A { i += 1 }
                let m = number(2) ?? 0
                guard h <= 18, m <= 59 else { return nil }
                offset = sign * Int32(h * 3_600 + m * 60)
            }
        }
        guard i == n else { return nil }
        if let pm { hour = hour % 12 + (pm ? 12 : 0) }
        guard day <= CivilDate.daysInMonth(year: year, month: month) else { return nil }
        let (local, clamped) = TimestampParser.localSeconds(
            year: year, month: month, day: day, hour: hour, minute: minute, second: second, micros: micros)
        return (local, clamped, offset)
    }

    private static let monthPrefixes: [[UInt8]] = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ].map { Array($0.utf8) }
}
