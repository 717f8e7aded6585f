import FetchLabStore

/// The one error type of the workflows: what kind of failure, and the line the user sees.
public struct WorkflowError: Error, Sendable, Hashable, CustomStringConvertible {
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

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    /// A store failure as a workflow failure (its one line kept).
    init(_ error: StoreError) { self.init(.store, error.description) }
}
