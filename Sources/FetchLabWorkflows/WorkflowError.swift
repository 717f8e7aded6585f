import FetchLabCore

/// The one error type of the workflows: what kind of failure, and the line the user sees.
public struct WorkflowError: FetchLabError, Hashable {
    public enum Code: String, Sendable, Hashable {
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
    }

    public var code: Code
    public var message: String
    /// The error underneath (a `StoreError`, a tuning failure), when this one reports another.
    public var cause: (any Error & Sendable)?

    public init(_ code: Code, _ message: String, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    public var description: String { message }

    /// ``Code/usage``: the command line is wrong.
    public var isUsageError: Bool { code == .usage }

    public static func == (a: WorkflowError, b: WorkflowError) -> Bool { a.code == b.code && a.message == b.message }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(message)
    }
}
