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

    /// One line on stderr, `fetchlab: error: …`: control characters (a name's ESC, a header's NUL,
    /// a newline) are escaped, so no error can span lines or drive the terminal.
    static func error(_ message: String) {
        FileHandle.standardError.write(Data("fetchlab: error: \(TextFormat.escaped(message))\n".utf8))
    }

    /// `fetchlab: warning: …`, one line on stderr: something went wrong that the results do not
    /// depend on.
    static func warning(_ message: String) {
        FileHandle.standardError.write(Data("fetchlab: warning: \(TextFormat.escaped(message))\n".utf8))
    }

    static func note(_ message: String) {
        FileHandle.standardError.write(Data("\(TextFormat.escaped(message))\n".utf8))
    }

    static func progress(_ line: String) {
        FileHandle.standardError.write(Data("\r\u{1B}[2K\(TextFormat.escaped(line))".utf8))
    }

    /// A message that may hold SQL spread over lines (SQLite's errors quote the statement) as one
    /// line: each line break and the indentation around it become one space.
    static func oneLine(_ message: String) -> String {
        guard message.contains(where: \.isNewline) else { return message }
        return message.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.joined(separator: " ")
    }

    /// Flushes standard output and checks that everything printed was written: a full disk or an
    /// I/O error (`>/dev/full`) is one line on stderr and exit 1; a reader that went away (EPIPE)
    /// ends the run quietly with exit 1. Returns normally when all output was written.
    static func finishOutput() {
        // fflush(NULL): every output stream, stdout among them (stderr is written unbuffered);
        // `print` leaves what did not fit in the buffer there, so the failure shows here.
        guard fflush(nil) != 0 else { return }
        let code = errno
        if code != EPIPE {
            error("standard output: write failed: \(String(cString: strerror(code)))")
        }
        Foundation.exit(Exit.failure)
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
