/// Splits the decompressed byte stream into lines without copying, carrying a line that
/// spans two chunks in a small buffer.
///
/// Lines end at `\n`; a trailing `\r` is dropped. A stream whose first chunk has carriage
/// returns but no line feed (old Mac files) is split at `\r`. The bytes of a line are valid until
/// the next call to `nextLine()`.
public final class LineReader {
    public let input: DecompressingReader
    /// 1-based number of the line last returned.
    public private(set) var lineNumber = 0
    /// Whether the line last returned ended the input without a line break (a file cut short, or
    /// one written without a final newline).
    public private(set) var lastLineUnterminated = false
    /// Whether the line last returned ended with a carriage return (dropped from the line: a CRLF
    /// line end), so that a quoted field spanning lines keeps its `\r\n`.
    public private(set) var lastLineEndedWithCR = false
    /// Lines longer than this are an error (they would otherwise make memory grow without bound).
    public let maxLineBytes: Int

    private var chunk = UnsafeRawBufferPointer(start: nil, count: 0)
    private var position = 0
    private var carry: [UInt8] = []
    private var atEnd = false
    /// The line terminator: `\n`, or `\r` for CR-only files (decided on the first chunk).
    private var terminator: Int32 = 0x0A
    private var decided = false

    public init(input: DecompressingReader, maxLineBytes: Int = 16 << 20) {
        self.input = input
        self.maxLineBytes = maxLineBytes
        carry.reserveCapacity(4096)
    }

    /// Calls `body` with the next line; returns false at the end of the input.
    @inline(__always)
    public func nextLine<R>(_ body: (UnsafeRawBufferPointer) throws(IngestError) -> R) throws(IngestError) -> R? {
        while true {
            if position < chunk.count, let base = chunk.baseAddress {
                let start = position
                let remaining = chunk.count - start
                if let nl = memchr(base + start, terminator, remaining) {
                    let end = base.distance(to: UnsafeRawPointer(nl))
                    position = end + 1
                    lineNumber += 1
                    if carry.isEmpty {
                        let line = UnsafeRawBufferPointer(start: base + start, count: end - start)
                        lastLineEndedWithCR = line.last == 0x0D
                        return try body(Self.trimCR(line))
                    }
                    carry.append(contentsOf: UnsafeRawBufferPointer(start: base + start, count: end - start))
                    try checkLength()
                    defer { carry.removeAll(keepingCapacity: true) }
                    lastLineEndedWithCR = carry.last == 0x0D
                    return try withBytes(of: carry) { (bytes) throws(IngestError) -> R in try body(Self.trimCR(bytes)) }
                }
                carry.append(contentsOf: UnsafeRawBufferPointer(start: base + start, count: remaining))
                position = chunk.count
                try checkLength()
            }
            if atEnd { break }
            if let next = try input.nextChunk() {
                chunk = next
                position = 0
                if !decided, let base = next.baseAddress, next.count > 0 {
                    decided = true
                    if memchr(base, 0x0A, next.count) == nil && memchr(base, 0x0D, next.count) != nil {
                        terminator = 0x0D
                    }
                }
            } else {
                atEnd = true
                chunk = UnsafeRawBufferPointer(start: nil, count: 0)
                position = 0
            }
        }
        // Last line without a newline.
        guard !carry.isEmpty else { return nil }
        lineNumber += 1
        lastLineUnterminated = true
        lastLineEndedWithCR = carry.last == 0x0D
        defer { carry.removeAll(keepingCapacity: true) }
        return try withBytes(of: carry) { (bytes) throws(IngestError) -> R in try body(Self.trimCR(bytes)) }
    }

    private func checkLength() throws(IngestError) {
        if carry.count > maxLineBytes {
            throw IngestError(
                .format, source: input.source, line: lineNumber + 1,
                message: "line longer than \(maxLineBytes) bytes (no line break found)")
        }
    }

    @inline(__always)
    static func trimCR(_ line: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        if line.count > 0, line[line.count - 1] == 0x0D {
            return UnsafeRawBufferPointer(rebasing: line[0..<(line.count - 1)])
        }
        return line
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `withUnsafeBytes` for typed-throwing bodies (the standard one rethrows `any Error`).
@inline(__always)
func withBytes<R>(
    of array: [UInt8], _ body: (UnsafeRawBufferPointer) throws(IngestError) -> R
) throws(IngestError) -> R {
    let result: Result<R, IngestError> = array.withUnsafeBytes { bytes in
        Result { () throws(IngestError) -> R in try body(bytes) }
    }
    return try result.get()
}
