/// The kinds of problem a module tells apart, as the code of a ``CodedError``.
public protocol ErrorCode: RawRepresentable, Sendable, Hashable where RawValue == String {
    /// Whether an error of this kind is a mistake in how the command was given (exit 64), not a
    /// failure at run time. False unless a code says so.
    var isUsage: Bool { get }
}

extension ErrorCode {
    public var isUsage: Bool { false }
}

/// The one error shape of a module whose errors are a kind, the line the user sees and maybe the
/// error underneath (the store's, the workflows'): one generic type instead of a copy per module.
/// Two errors are equal when their codes and messages are; the cause is not compared.
public struct CodedError<Code: ErrorCode>: FetchLabError, Hashable {
    public var code: Code
    /// The line the user sees; it names the file, the database or the option.
    public var message: String
    /// The error underneath, when this one reports another.
    public var cause: (any Error & Sendable)?

    public init(_ code: Code, _ message: String, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    public var description: String { message }

    public var isUsageError: Bool { code.isUsage }

    public static func == (a: CodedError, b: CodedError) -> Bool { a.code == b.code && a.message == b.message }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(message)
    }
}
