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
        /// A file given as a partial is not one that this FetchLab wrote (`PartialFile`,
        /// `TunePartialFile`): a usage error.
        case partial
    }

    public var code: Code
    public var message: String
    public var description: String { message }
    /// A file given as a partial that is not one is a mistake in how the command was given.
    public var isUsageError: Bool { code == .partial }

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
}
