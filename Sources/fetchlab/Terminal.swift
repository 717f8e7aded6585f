import FetchLabReport
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

/// Number formatting shared by the renderers: the report module's.
typealias Format = TextFormat
