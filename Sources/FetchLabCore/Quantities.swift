/// Durations and byte sizes as people write them on a command line or in a config file.
public enum Quantity {
    /// Parses a duration: `90s`, `5m`, `1.5h`, `7d`, `250ms`, a combination such as `1h30m`, or
    /// plain seconds (`600`). Nil when it is not one or is negative.
    public static func duration(_ text: String) -> Microseconds? {
        let units: [(String, Double)] = [
            ("ms", 1e-3), ("min", 60), ("s", 1), ("m", 60), ("h", 3_600), ("d", 86_400), ("w", 604_800),
        ]
        let trimmed = text.trimmingWhitespace()
        guard !trimmed.isEmpty else { return nil }
        if let seconds = Double(trimmed) {
            return seconds >= 0 ? Microseconds.checked(seconds: seconds) : nil
        }
        var rest = Substring(trimmed)
        var total = 0.0
        while !rest.isEmpty {
            let number = rest.prefix { $0.isNumber || $0 == "." }
            guard !number.isEmpty, let value = Double(number) else { return nil }
            rest = rest.dropFirst(number.count)
            guard let unit = units.first(where: { rest.hasPrefix($0.0) }) else { return nil }
            rest = rest.dropFirst(unit.0.count)
            total += value * unit.1
        }
        return Microseconds.checked(seconds: total)
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

extension String {
    fileprivate func trimmingWhitespace() -> String {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s.removeFirst() }
        while let l = s.last, l.isWhitespace { s.removeLast() }
        return String(s)
    }
}
