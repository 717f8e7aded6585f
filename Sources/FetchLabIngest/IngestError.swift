import FetchLabCore

/// The one error type of the ingest module: where the problem is and what it is.
///
/// Its description is a single line in the form `FILE:LINE: message` or
/// `FILE: byte OFFSET: message`, ready to print on stderr.
public struct IngestError: FetchLabError, Hashable {
    /// What kind of problem this is, for code that reacts to it.
    public enum Code: String, Sendable, Hashable {
        /// The file could not be opened or read.
        case io
        /// The compressed stream is corrupt, truncated or not what it claims to be.
        case compression
        /// A row could not be parsed (only thrown in strict mode; otherwise recorded as a reject).
        case malformedRow
        /// The header or the whole file is not in a format FetchLab reads.
        case format
        /// An option given by the user cannot be applied to this input.
        case usage
        /// A file may not be written where it was asked (``OutputFile``'s rule): a usage error.
        case output
    }

    public var code: Code
    /// The file as the user named it (`-` for standard input).
    public var source: String
    /// 1-based line number in the decompressed text, when the problem is on a line.
    public var line: Int?
    /// Byte offset in the (compressed) input, when the problem is in the byte stream.
    public var offset: Int64?
    public var message: String

    public init(_ code: Code, source: String, line: Int? = nil, offset: Int64? = nil, message: String) {
        self.code = code
        self.source = source
        self.line = line
        self.offset = offset
        self.message = message
    }

    public var description: String {
        if let line { return "\(source):\(line): \(message)" }
        if let offset { return "\(source): byte \(offset): \(message)" }
        return "\(source): \(message)"
    }
}

extension IngestError {
    /// The file, with its line or byte offset when the problem is at one.
    public var context: String? {
        if let line { return "\(source):\(line)" }
        if let offset { return "\(source): byte \(offset)" }
        return source
    }

    /// An option that cannot be applied to this input is still found only while reading it: the
    /// import stops with exit 1 (nothing stored), not with the usage line.
    public var isUsageError: Bool { code == .output }
}
