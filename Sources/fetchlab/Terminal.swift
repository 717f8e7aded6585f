import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// stderr helpers: one-line errors, and progress only when stderr is a terminal.
enum Terminal {
    static var stderrIsTerminal: Bool { isatty(2) == 1 }

    static func error(_ message: String) {
        FileHandle.standardError.write(Data("fetchlab: error: \(message)\n".utf8))
    }

    static func note(_ message: String) {
        FileHandle.standardError.write(Data("\(message)\n".utf8))
    }

    static func progress(_ line: String) {
        FileHandle.standardError.write(Data("\r\u{1B}[2K\(line)".utf8))
    }

    static func clearProgress() {
        FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8))
    }

    static func bar(fraction: Double, width: Int = 24) -> String {
        let filled = Int((max(0, min(1, fraction)) * Double(width)).rounded())
        return "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "]"
    }
}

/// Number formatting shared by the renderers.
enum Format {
    static func count(_ n: Int) -> String {
        let digits = String(abs(n))
        var out = ""
        for (i, c) in digits.reversed().enumerated() {
            if i > 0 && i % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return (n < 0 ? "-" : "") + String(out.reversed())
    }

    static func bytes(_ n: Int64) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var value = Double(n)
        var unit = 0
        while value >= 1000 && unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return unit == 0 ? "\(n) B" : String(format: "%.1f %@", value, units[unit])
    }

    static func seconds(_ s: Double) -> String {
        if s < 10 { return String(format: "%.2f s", s) }
        if s < 120 { return String(format: "%.0f s", s) }
        return String(format: "%d min %02d s", Int(s) / 60, Int(s) % 60)
    }

    static func pad(_ s: String, _ width: Int, right: Bool = false) -> String {
        let n = s.count
        if n >= width { return s }
        let space = String(repeating: " ", count: width - n)
        return right ? space + s : s + space
    }

    static func json<T: Encodable>(_ value: T) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}
