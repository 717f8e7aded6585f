import FetchLabCore

/// What failed in the scale-out machinery (records kept on disk for a run's later passes, a file
/// written atomically): one line, reported at the root like every module's error (`FetchLabError`).
public struct ScaleError: FetchLabError {
    public enum Code: String, Sendable, Hashable {
        /// Records written to a temporary file could not be read back (an I/O error in the
        /// temporary directory): nothing else holds them, so the run cannot be reported.
        case readBack
        /// A file could not be written (``AtomicFile``): the file it was to replace stays as it was.
        case write
    }

    public var code: Code
    public var message: String
    public var description: String { message }

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
}
