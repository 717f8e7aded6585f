import FetchLabCore

/// The one error type of the workflows: what kind of failure, and the line the user sees.
public typealias WorkflowError = CodedError<WorkflowErrorCode>

/// The kinds of ``WorkflowError``.
public enum WorkflowErrorCode: String, ErrorCode {
    /// What was asked cannot be done as given (an unknown user or app, an empty selection):
    /// the command line is wrong (a usage error).
    case usage
    /// Nothing to work on: no launches, nothing scored.
    case noData
    /// The database could not be read (`StoreError` underneath).
    case store
    /// Temporary files for the per-user rows could not be made or written.
    case io
    /// The work could not be done as asked (a tuning grid with no setting that meets the
    /// constraints, even widened).
    case failed

    /// ``usage`` is a mistake in how the command was given.
    public var isUsage: Bool { self == .usage }
}
