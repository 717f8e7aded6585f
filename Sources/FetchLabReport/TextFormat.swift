import FetchLabCore
import FetchLabResults
import Foundation

/// Number, time and column formatting shared by the text renderers.
public enum TextFormat {
    /// `1,234,567`.
    public static func count(_ n: Int) -> String { Quantity.grouped(n) }

    /// `1 launch`, `2 launches`, `1,234 users`: a count and its noun, plural when it is not 1.
    public static func counted(_ n: Int, _ singular: String, plural: String? = nil) -> String {
        let many = plural ?? (singular.hasSuffix("ch") || singular.hasSuffix("s") ? singular + "es" : singular + "s")
        return "\(count(n)) \(n == 1 ? singular : many)"
    }

    /// `x` with `digits` decimals; `–` for nil.
    public static func fixed(_ x: Double?, _ digits: Int = 1) -> String {
        x.map { String(format: "%.\(digits)f", $0) } ?? "–"
    }

    /// A share as a whole percentage; `–` for nil.
    public static func percent(_ x: Double?) -> String { x.map { String(format: "%.0f%%", $0 * 100) } ?? "–" }

    public static func seconds(_ s: Double) -> String {
        if s < 10 { return String(format: "%.2f s", s) }
        if s < 120 { return String(format: "%.0f s", s) }
        return String(format: "%d min %02d s", Int(s) / 60, Int(s) % 60)
    }

    /// `s` padded with spaces to `width` (on the left when `right`).
    public static func pad(_ s: String, _ width: Int, right: Bool = false) -> String {
        let n = s.count
        if n >= width { return s }
        let space = String(repeating: " ", count: width - n)
        return right ? space + s : s + space
    }

    /// `512 B`, `1.5 KB`, `208.1 MB` (powers of 1000).
    public static func bytes(_ n: Int64) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var value = Double(n)
        var unit = 0
        while value >= 1000 && unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return unit == 0 ? "\(n) B" : String(format: "%.1f %@", value, units[unit])
    }

    /// Pretty-printed JSON with sorted keys, for `--format json`.
    ///
    /// A number JSON cannot hold (NaN, ±infinity; no figure FetchLab computes should be one) is
    /// written as the string `"NaN"`, `"Infinity"` or `"-Infinity"` where it stands, so that the
    /// rest of the document is still printed (it used to be replaced by `{}` without a word).
    public static func json<T: Encodable>(_ value: T, keys: JSONEncoder.KeyEncodingStrategy = .useDefaultKeys) -> String
    {
        let encoder = OutputJSON.encoder()
        encoder.keyEncodingStrategy = keys
        do {
            return String(decoding: try encoder.encode(value), as: UTF8.self)
        } catch {
            // Only a value's own encode(to:) can fail now: say which, as JSON.
            let message = TextFormat.escaped("cannot encode the output: \(error)")
                .replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            return "{\"error\": \"\(message)\"}"
        }
    }

    /// Blend weights, largest first (ties by name), each with two decimals: `profile 0.75, gap 0.25`.
    /// Zero weights are left out when `skippingZero`.
    public static func weights(_ w: [String: Double], skippingZero: Bool = false) -> String {
        w.filter { !skippingZero || $0.value > 0 }.sorted { ($1.value, $0.key) < ($0.value, $1.key) }
            .map { "\($0.key) \(fixed($0.value, 2))" }.joined(separator: ", ")
    }

    /// `+02:00`, `-05:30`.
    public static func offset(_ seconds: Int) -> String {
        let m = abs(seconds) / Int(Seconds.perMinute)
        return (seconds < 0 ? "-" : "+") + two(m / 60) + ":" + two(m % 60)
    }

    /// `HH:MM` of local seconds since 1970.
    static func clock(localSeconds s: Int64) -> String {
        let ofDay = s - Int64(LocalCalendar.day(localSeconds: s)) * Seconds.perDay
        return two(Int(ofDay / Seconds.perHour)) + ":" + two(Int(ofDay / Seconds.perMinute % 60))
    }

    static func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
}

extension TextFormat {
    /// A number as written on a command line: `200`, `0.5`, `nan`, `inf`.
    public static func decimal(_ x: Double) -> String {
        if x.isFinite && x == x.rounded() && abs(x) < 1e15 { return String(Int64(x)) }
        return "\(x)"
    }

    /// `text` safe to print on a terminal, on one line: C0 and C1 control characters and DEL are
    /// written as escapes (`\n`, `\r`, `\t`, `\e`, `\a`, `\0`, `\x7f`, `\u{9b}`), a backslash stays
    /// as it is; other UTF-8 text (accents, CJK, emoji, block characters) is kept. The one escaping
    /// function of every text renderer and of the CLI's stderr lines (JSON output escapes itself).
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { isControl($0) || isBidiControl($0) }) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard isControl(scalar) || isBidiControl(scalar) else {
                out.append(scalar)
                continue
            }
            let escape: String
            switch scalar.value {
            case 0x00: escape = "\\0"
            case 0x07: escape = "\\a"
            case 0x08: escape = "\\b"
            case 0x09: escape = "\\t"
            case 0x0A: escape = "\\n"
            case 0x0D: escape = "\\r"
            case 0x1B: escape = "\\e"
            case 0..<0x80: escape = "\\x" + hex(scalar.value, 2)
            default: escape = "\\u{" + hex(scalar.value, 2) + "}"
            }
            out.append(contentsOf: escape.unicodeScalars)
        }
        return String(out)
    }

    /// Whether a scalar is one of Unicode's bidirectional controls (marks, embeddings, overrides,
    /// isolates), which reorder the text around them.
    @inline(__always)
    public static func isBidiControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// Whether a scalar is a C0 or C1 control character or DEL.
    @inline(__always)
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// `value` in lowercase hex, at least `digits` digits.
    static func hex(_ value: UInt32, _ digits: Int) -> String {
        let s = String(value, radix: 16)
        return String(repeating: "0", count: max(0, digits - s.count)) + s
    }
}

extension TextFormat {
    /// The width the text renderers keep to by default (a terminal of 120 columns).
    public static let terminalWidth = 120

    /// `line` broken at spaces into lines of at most `width` characters, each continuation
    /// indented two spaces more than the line itself; a word longer than the width (a long path)
    /// stays whole on its own line. A line that fits is returned as it is.
    public static func wrap(_ line: String, width: Int = terminalWidth) -> [String] {
        guard line.count > width else { return [line] }
        let lead = String(line.prefix { $0 == " " })
        let indent = lead + "  "
        var out: [String] = []
        var current = lead
        var empty = true
        for word in line.dropFirst(lead.count).split(separator: " ", omittingEmptySubsequences: true) {
            if !empty && current.count + 1 + word.count > width {
                out.append(current)
                current = indent + word
            } else {
                current += (empty ? "" : " ") + word
            }
            empty = false
        }
        out.append(current)
        return out
    }

    /// Every line of `lines` wrapped to `width` (see ``wrap(_:width:)``).
    public static func wrap(lines: [String], width: Int = terminalWidth) -> [String] {
        lines.flatMap {
            $0.split(separator: "\n", omittingEmptySubsequences: false).flatMap { wrap(String($0), width: width) }
        }
    }

    /// `s` cut to `width` characters, its end replaced by `…` when cut.
    public static func truncate(_ s: String, _ width: Int) -> String {
        guard s.count > width, width > 0 else { return s }
        return String(s.prefix(width - 1)) + "…"
    }
}
