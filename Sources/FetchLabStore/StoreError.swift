import FetchLabCore

/// The one error type of the store: a one-line message that names the database or the file.
public struct StoreError: FetchLabError {
    public enum Code: String, Sendable {
        /// The file exists but is not a FetchLab database; FetchLab refuses to touch it.
        case notFetchLab
        /// The database could not be opened, read or written.
        case database
        /// The database was written by a newer FetchLab.
        case tooNew
        /// The database is damaged (it fails SQLite's quick check); FetchLab does not write to it.
        case corrupt
        /// Another process kept the database locked for longer than the busy timeout.
        case busy
        /// What was asked for is not stored (a run id that no run has).
        case notFound
    }

    public var code: Code
    /// The line the user sees; it names the database or the file.
    public var message: String
    /// The SQLite or file-system error underneath, when there is one.
    public var cause: (any Error & Sendable)?

    public init(_ code: Code, _ message: String, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    public var description: String { message }
}
