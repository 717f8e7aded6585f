import FetchLabReport
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// stderr helpers: one-line errors, and progress only when stderr is a terminal.
public enum Terminal {
    public static var stderrIsTerminal: Bool { isatty(2) == 1 }

    /// One line on stderr, `fetchlab: error: …`: control characters (a name's ESC, a header's NUL,
    /// a newline) are escaped, so no error can span lines or drive the terminal.
    public static func error(_ message: String) {
        writeStderr("fetchlab: error: \(TextFormat.escaped(message))\n")
    }

    /// `fetchlab: warning: …`, one line on stderr: something went wrong that the results do not
    /// depend on.
    public static func warning(_ message: String) {
        writeStderr("fetchlab: warning: \(TextFormat.escaped(message))\n")
    }

    public static func note(_ message: String) {
        writeStderr("\(TextFormat.escaped(message))\n")
    }

    public static func progress(_ line: String) {
        writeStderr("\r\u{1B}[2K\(TextFormat.escaped(line))")
    }

    /// EX_IOERR: standard output or error could not be written.
    public static let ioError: Int32 = 74

    /// Writes `text` to stderr whole (write(2), retried on EINTR and short writes). A failure ends
    /// the command at once with exit 74 and nothing more (there is nowhere left to say why); a
    /// reader that went away (EPIPE) ends it quietly the same way.
    public static func writeStderr(_ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
            if n > 0 {
                bytes = bytes.dropFirst(n)
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                _exit(ioError)
            }
        }
    }

    /// Before any work: standard output and error must be open. A command started with one closed
    /// (`>&-`) exits 74 at once — otherwise the next file opened (the database) would take its
    /// number and the output would be written into it. Writing to a closed pipe fails with EPIPE
    /// instead of a signal, and ends the command quietly (``finishOutput()``, ``writeStderr(_:)``).
    public static func checkStandardStreams() {
        for fd in [Int32(1), 2] where fcntl(fd, F_GETFD) == -1 && errno == EBADF { _exit(ioError) }
        signal(SIGPIPE, SIG_IGN)
    }

    /// Flushes standard output and checks that everything printed was written: a full disk or an
    /// I/O error (`>/dev/full`) is one line on stderr and exit 74 (EX_IOERR); a reader that went
    /// away (EPIPE, `| head -1`) ends the run quietly with exit 74. Returns normally when all output
    /// was written.
    public static func finishOutput() {
        // fflush(NULL): every output stream, stdout among them (stderr is written unbuffered);
        // `print` leaves what did not fit in the buffer there, so the failure shows here.
        guard fflush(nil) != 0 else { return }
        let code = errno
        if code != EPIPE {
            error("standard output: write failed: \(String(cString: strerror(code)))")
        }
        _exit(ioError)
    }

    public static func clearProgress() {
        writeStderr("\r\u{1B}[2K")
    }

}
