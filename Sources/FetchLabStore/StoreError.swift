import FetchLabCore

/// The one error type of the store: a one-line message that names the database or the file.
public typealias StoreError = CodedError<StoreErrorCode>

/// The kinds of ``StoreError``.
public enum StoreErrorCode: String, ErrorCode {
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
