/// The shape of every module's one error type (IngestError's): what kind of problem it is, what
/// went wrong in words, where (the file and line, the database, the option, as the user named
/// them), and the error underneath when it reports another. The command line reports any of them
/// in one place, as one line on stderr: exit 64 with the usage line for a mistake in how the
/// command was given (``isUsageError``), exit 1 for a failure at run time.
public protocol FetchLabError: Error, Sendable, CustomStringConvertible {
    /// The kinds of problem the module tells apart, for code that reacts to them.
    associatedtype Code: RawRepresentable & Sendable & Hashable where Code.RawValue == String
    var code: Code { get }
    /// What went wrong, in words, without ``context``.
    var message: String { get }
    /// Where: a file (with its line or byte offset), a database, an option; nil when the message
    /// says it or there is no one place.
    var context: String? { get }
    /// The error underneath, when this one reports another (a store error that a workflow met).
    var cause: (any Error & Sendable)? { get }
    /// A mistake in how the command was given (an option's value, a name that does not exist)
    /// rather than a failure at run time.
    var isUsageError: Bool { get }
}

extension FetchLabError {
    public var context: String? { nil }
    public var cause: (any Error & Sendable)? { nil }
    public var isUsageError: Bool { false }
    /// The code's name, e.g. `malformedRow`, for JSON and logs.
    public var codeName: String { code.rawValue }
}
