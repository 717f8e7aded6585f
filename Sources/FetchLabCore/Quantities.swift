/// Durations and byte sizes as people write them on a command line or in a config file.
public enum Quantity {
    /// Parses a duration: `90s`, `5m`, `1.5h`, `7d`, `250ms`, a combination such as `1h30m`, or
    /// plain seconds (`600`). Nil when it is not one or is negative (``parseDuration(_:forms:)``
    /// says why).
    public static func duration(_ text: String) -> Microseconds? {
        // Nil is this function's answer for every problem; callers that say why use parseDuration.
        try? parseDuration(text)
    }

    /// The one duration parser: the forms of ``duration(_:)``, and the ``DurationForms`` a caller
    /// also accepts (a clock, blanks before a unit). Digits are ASCII: `²` and `١` are digits to
    /// Unicode, not to a duration. Units are lowercase (callers that accept `2H` lowercase first).
    public static func parseDuration(_ text: String, forms: DurationForms = []) throws(DurationProblem)
        -> Microseconds
    {
        let trimmed = text.trimmingWhitespace()
        guard !trimmed.isEmpty else { throw .notADuration }
        if let seconds = Double(trimmed) {
            guard seconds.isFinite else { throw .notADuration }
            guard seconds >= 0 else { throw .negative }
            guard let us = Microseconds.checked(seconds: seconds) else { throw .tooLong }
            return us
        }
        if trimmed.hasPrefix("-") {
            // A duration with a minus sign is negative, not unreadable (`-0s` is zero).
            guard let magnitude = try? parseDuration(String(trimmed.dropFirst()), forms: forms) else {
                throw .notADuration
            }
            if magnitude == 0 { return 0 }
            throw .negative
        }
        let seconds = try forms.contains(.clock) && trimmed.contains(":") ? clock(trimmed) : sum(trimmed, forms: forms)
        guard let us = Microseconds.checked(seconds: seconds) else { throw .tooLong }
        return us
    }

    /// `1h30m`, `90s`, `12 min` (with ``DurationForms/spacedUnits``): seconds.
    private static func sum(_ text: String, forms: DurationForms) throws(DurationProblem) -> Double {
        let units: [(String, Double)] = [
            ("ms", 1e-3), ("min", 60), ("s", 1), ("m", 60), ("h", 3_600), ("d", 86_400), ("w", 604_800),
        ]
        let spaced = forms.contains(.spacedUnits)
        var rest = Substring(text)
        var total = 0.0
        while !rest.isEmpty {
            let number = rest.prefix { ($0.isASCII && $0.isNumber) || $0 == "." }
            guard !number.isEmpty, let value = Double(number), value.isFinite else { throw .notADuration }
            rest = rest.dropFirst(number.count)
            if spaced { rest = rest.drop { $0 == " " || $0 == "\t" } }
            guard let unit = units.first(where: { rest.hasPrefix($0.0) }) else { throw .notADuration }
            rest = rest.dropFirst(unit.0.count)
            if spaced { rest = rest.drop { $0 == " " || $0 == "\t" } }
            total += value * unit.1
        }
        return total
    }

    /// `1:23` (minutes:seconds) or `0:01:23` (hours:minutes:seconds): seconds. Every part has
    /// ASCII digits, the last may have a fraction (`1:23.5`), and a part after the first is below 60.
    private static func clock(_ text: String) throws(DurationProblem) -> Double {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3 else { throw .notADuration }
        var total = 0.0
        for (i, part) in parts.enumerated() {
            let last = i == parts.count - 1
            var dots = 0
            for byte in part.utf8 where !(byte >= 0x30 && byte <= 0x39) {
                guard byte == 0x2E, last else { throw .notADuration }
                dots += 1
            }
            guard dots <= 1, let first = part.utf8.first, first != 0x2E, part.utf8.last != 0x2E,
                let value = Double(part)
            else { throw .notADuration }
            if i > 0 && value >= 60 { throw .clockOutOfRange }
            total = total * 60 + value
        }
        return total
    }

    /// Whether `text` is a bare number other than 0 (`15`, `1.5`, `-15`, `1e3`): a duration
    /// without its unit. Read from a file that writes plain seconds it is seconds
    /// (``parseDuration(_:forms:)``); typed by a person (an option, a policy's parameter, a grid,
    /// an objective) no one can tell what it means (`--tau 15`: seconds? minutes?), so the command
    /// line refuses it with ``unitQuestion(_:)``. `0` is zero in every unit and stays accepted.
    public static func isUnitless(_ text: String) -> Bool {
        guard let value = Double(text.trimmingWhitespace()) else { return false }
        return value.isFinite && value != 0
    }

    /// What a command line says about a duration without its unit (``isUnitless(_:)``):
    /// `15 what? give a unit, e.g. 15m`.
    public static func unitQuestion(_ text: String) -> String {
        let number = text.trimmingWhitespace()
        let plain = !number.isEmpty && number.allSatisfy { ($0.isASCII && $0.isNumber) || $0 == "." }
        return "\(number) what? give a unit, e.g. \(plain ? number : "15")m"
    }

    /// A duration the way FetchLab prints it: `45s`, `10m`, `1h30m`, `2d`, `1d6h`.
    public static func format(duration us: Microseconds) -> String {
        if us == 0 { return "0s" }
        if us % .perSecond != 0 { return "\(Double(us) / 1e3)ms" }
        var s = us / .perSecond
        var out = us < 0 ? "-" : ""
        s = abs(s)
        for (unit, size) in [("d", Seconds.perDay), ("h", Seconds.perHour), ("m", Seconds.perMinute), ("s", 1)]
        where s >= size {
            out += "\(s / size)\(unit)"
            s %= size
        }
        return out
    }

    /// Parses a byte size: `500M`, `50G`, `1T`, `64K` (powers of 1000, an optional `B`), `2GiB`
    /// (powers of 1024) or plain bytes. Nil when it is not one or is not positive.
    public static func bytes(_ text: String) -> Int64? {
        var t = text.trimmingWhitespace().uppercased()
        if let plain = Int64(t) { return plain > 0 ? plain : nil }
        var base = 1000.0
        if t.hasSuffix("IB") {
            base = 1024
            t.removeLast(2)
        } else if t.hasSuffix("B") {
            t.removeLast()
        }
        let powers: [Character: Double] = ["K": 1, "M": 2, "G": 3, "T": 4]
        guard let last = t.last, let power = powers[last], let value = Double(t.dropLast()), value > 0 else {
            return nil
        }
        let bytes = value * pow(base, power)
        return bytes < 9e18 ? Int64(bytes) : nil
    }

    private static func pow(_ b: Double, _ e: Double) -> Double {
        var r = 1.0
        for _ in 0..<Int(e) { r *= b }
        return r
    }
}

/// Forms a duration may take beyond the command line's (``Quantity/parseDuration(_:forms:)``).
public struct DurationForms: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// A clock: `1:23` (minutes:seconds) or `0:01:23` (hours:minutes:seconds).
    public static let clock = DurationForms(rawValue: 1 << 0)
    /// Blanks between a number and its unit (`12 min`, `1h 30m`), as exported files write them.
    public static let spacedUnits = DurationForms(rawValue: 1 << 1)
}

/// Why a text is not a duration (``Quantity/parseDuration(_:forms:)``).
public enum DurationProblem: Error, Sendable, Hashable {
    /// Not a duration in any form accepted.
    case notADuration
    /// A duration with a minus sign.
    case negative
    /// A clock whose minutes or seconds are 60 or more (`1:99`).
    case clockOutOfRange
    /// Longer than `Microseconds.longestSpan`.
    case tooLong
}

extension String {
    fileprivate func trimmingWhitespace() -> String {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s.removeFirst() }
        while let l = s.last, l.isWhitespace { s.removeLast() }
        return String(s)
    }
}

extension Quantity {
    /// A count with its thousands grouped, as every text output writes counts: `1,266`.
    public static func grouped(_ n: Int) -> String {
        let digits = String(n.magnitude)
        var out = ""
        for (i, c) in digits.reversed().enumerated() {
            if i > 0 && i % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return (n < 0 ? "-" : "") + String(out.reversed())
    }
}
