import CZlib
import SystemPackage

/// How the bytes of an input are encoded, as detected from the bytes themselves.
public enum CompressionFormat: String, Sendable, CaseIterable {
    /// gzip (RFC 1952), possibly several members one after the other.
    case gzip
    /// zlib (RFC 1950).
    case zlib
    /// Raw deflate (RFC 1951) without header or trailer; only when asked for.
    case deflate
    /// Not compressed: bytes are passed through unchanged.
    case plain
}

/// Streams the decompressed bytes of a file, a pipe or standard input.
///
/// The compression is detected from the first bytes, never from the file name:
///
/// - `1f 8b` → ``CompressionFormat/gzip``. Concatenated members (`cat a.gz b.gz`)
///   are read one after the other; zero bytes between or after members are
///   skipped (tape/block padding); anything else after a member is an error.
/// - a valid zlib header (CMF & 0x0f == 8, CMF >> 4 <= 7, (CMF·256 + FLG) % 31 == 0,
///   and no preset dictionary) → ``CompressionFormat/zlib``.
/// - otherwise → ``CompressionFormat/plain`` (passthrough).
/// - `rawDeflate: true` forces ``CompressionFormat/deflate`` (zlib window bits -15).
///
/// An empty input is ``CompressionFormat/plain`` with no chunks, whatever the options.
///
/// Memory use is fixed: one input and one output buffer of `chunkSize` bytes each
/// plus the zlib state, allocated once. The raw bytes are hashed with SHA-256 as
/// they are read, on the reading thread (see ``contentSHA256Hex``).
///
/// Errors are ``IngestError`` values: `.io` for open/read failures (reads interrupted
/// by a signal are retried), `.compression`
/// for corrupt, truncated or trailing data, each with the byte offset in the raw
/// input where the problem was detected.
///
/// Not thread-safe: use one reader from one task at a time.
public final class DecompressingReader {
    /// The name of the input used in errors.
    public let source: String
    /// The detected format; `nil` until the first call to ``nextChunk()``.
    public private(set) var format: CompressionFormat?
    /// Raw (compressed) bytes read from the file descriptor so far, for progress.
    public private(set) var compressedBytesRead: Int64 = 0
    /// Decompressed bytes handed out by ``nextChunk()`` so far.
    public private(set) var decompressedBytes: Int64 = 0
    /// The size of the input when it is a regular file, else `nil` (pipes, terminals).
    public let totalBytes: Int64?

    private let file: RawFile
    private let closeOnDeinit: Bool
    private let rawDeflate: Bool
    private let bufferSize: Int
    private let inBuffer: UnsafeMutablePointer<UInt8>
    private let outBuffer: UnsafeMutablePointer<UInt8>
    /// Heap-allocated because zlib keeps a pointer back to the stream structure.
    private let stream: UnsafeMutablePointer<z_stream>
    private var inflateReady = false
    /// The file descriptor returned end of file.
    private var atEOF = false
    /// Everything has been handed out; ``nextChunk()`` returns nil from now on.
    private var finished = false
    /// zlib reported the end of a gzip member / zlib / deflate stream.
    private var memberEnded = false
    /// Hash of the raw bytes read so far.
    private var hasher = SHA256()
    /// An error found after some output was produced; thrown by the next call so
    /// that everything decoded before the problem is handed out first.
    private var deferredError: IngestError?
    /// Decompression-bomb limits (nil = none): see `checkBomb()`.
    public var maxRatio: Double? = 200
    public var maxDecompressedBytes: Int64? = nil
    public var ratioCheckAfterBytes: Int64 = 64 << 20
    /// The input is the process's standard input (`-`): an empty one is an error.
    private let isStandardInput: Bool
    /// For a regular file, the bytes from the read position at open to the end of the file: fewer
    /// at the end of the input means the file shrank while it was read.
    private let expectedBytes: Int64?

    /// Opens `path` for reading; `"-"` reads standard input.
    ///
    /// - Parameters:
    ///   - path: the file to read, or `"-"` for standard input (not closed on deinit).
    ///   - source: the name used in errors; defaults to `path`.
    ///   - rawDeflate: read the input as raw deflate data (no header detection).
    ///   - chunkSize: the size of the input and output buffers in bytes (at least 64).
    /// - Throws: ``IngestError`` with code `.io` if the path does not exist, cannot
    ///   be opened or is a directory.
    public convenience init(
        path: String, source: String? = nil, rawDeflate: Bool = false, chunkSize: Int = 1 << 18
    ) throws(IngestError) {
        let name = source ?? path
        if path == "-" {
            self.init(
                file: RawFile(descriptor: .standardInput, source: name), closeOnDeinit: false,
                rawDeflate: rawDeflate, chunkSize: chunkSize, isStandardInput: true)
            return
        }
        self.init(
            file: try RawFile(path: path, source: name), closeOnDeinit: true, rawDeflate: rawDeflate,
            chunkSize: chunkSize, isStandardInput: false)
    }

    /// Reads from an already open file descriptor.
    ///
    /// - Parameters:
    ///   - fileDescriptor: an open, readable descriptor (a file, pipe or terminal).
    ///   - source: the name used in errors.
    ///   - closeOnDeinit: close the descriptor when the reader is deallocated.
    ///   - rawDeflate: read the input as raw deflate data (no header detection).
    ///   - chunkSize: the size of the input and output buffers in bytes (at least 64).
    public convenience init(
        fileDescriptor: Int32, source: String, closeOnDeinit: Bool, rawDeflate: Bool = false, chunkSize: Int = 1 << 18
    ) {
        self.init(
            file: RawFile(descriptor: FileDescriptor(rawValue: fileDescriptor), source: source),
            closeOnDeinit: closeOnDeinit, rawDeflate: rawDeflate, chunkSize: chunkSize, isStandardInput: false)
    }

    private init(file: RawFile, closeOnDeinit: Bool, rawDeflate: Bool, chunkSize: Int, isStandardInput: Bool) {
        self.file = file
        self.isStandardInput = isStandardInput
        // One fstat: the size is the progress total and, from the read position, the bytes expected.
        let size = file.regularFileSize
        if let size {
            let position = (try? file.descriptor.seek(offset: 0, from: .current)) ?? 0
            self.expectedBytes = max(0, size - position)
        } else {
            self.expectedBytes = nil
        }
        self.source = file.source
        self.closeOnDeinit = closeOnDeinit
        self.rawDeflate = rawDeflate
        // zlib counts in 32-bit unsigned ints; keep well inside that.
        self.bufferSize = min(max(chunkSize, 64), 1 << 30)
        self.totalBytes = size
        self.inBuffer = .allocate(capacity: bufferSize)
        self.outBuffer = .allocate(capacity: bufferSize)
        self.stream = .allocate(capacity: 1)
        self.stream.initialize(to: z_stream())
        self.stream.pointee.next_in = inBuffer
        self.stream.pointee.avail_in = 0
    }

    deinit {
        if inflateReady { inflateEnd(stream) }
        stream.deinitialize(count: 1)
        stream.deallocate()
        inBuffer.deallocate()
        outBuffer.deallocate()
        if closeOnDeinit { file.close() }
    }

    /// Lower-case hex SHA-256 of all raw (compressed) bytes read so far.
    /// It is the digest of the whole input once ``nextChunk()`` has returned nil.
    public var contentSHA256Hex: String {
        var copy = hasher
        return SHA256.hex(copy.finalize())
    }

    /// Returns the next chunk of decompressed bytes, or nil at the end of the input.
    ///
    /// The buffer belongs to the reader and is valid only until the next call.
    /// Chunks are never empty. Data decoded before a problem is returned first; the
    /// error is thrown by the following call, and again by every call after it.
    public func nextChunk() throws(IngestError) -> UnsafeRawBufferPointer? {
        if let error = deferredError { throw error }
        if finished { return nil }
        do {
            if format == nil { try detectFormat() }
            if format == .plain { return try nextPlainChunk() }
            return try nextInflatedChunk()
        } catch {
            deferredError = error
            throw error
        }
    }

    // MARK: - Reading

    /// Byte offset in the raw input of the next byte zlib has not consumed yet.
    private var consumedOffset: Int64 {
        compressedBytesRead - Int64(stream.pointee.avail_in)
    }

    /// Moves the unconsumed input to the front of the input buffer and reads more
    /// after it. Sets `atEOF` when the descriptor has no more data.
    private func refill() throws(IngestError) {
        let remaining = Int(stream.pointee.avail_in)
        if remaining > 0, let next = stream.pointee.next_in, next != inBuffer {
            UnsafeMutableRawPointer(inBuffer).copyMemory(from: next, byteCount: remaining)
        }
        stream.pointee.next_in = inBuffer
        let space = bufferSize - remaining
        guard space > 0, !atEOF else { return }
        let n = try file.read(
            into: UnsafeMutableRawBufferPointer(start: inBuffer + remaining, count: space), at: compressedBytesRead)
        if n == 0 {
            atEOF = true
            if let expected = expectedBytes, compressedBytesRead < expected {
                throw IngestError(
                    .io, source: source, offset: compressedBytesRead,
                    message: "changed while being read: the file had \(expected) bytes when opened and ended after "
                        + "\(compressedBytesRead); import it again once it is complete")
            }
            return
        }
        hasher.update(UnsafeRawBufferPointer(start: inBuffer + remaining, count: n))
        compressedBytesRead += Int64(n)
        stream.pointee.avail_in = UInt32(remaining + n)
    }

    private func detectFormat() throws(IngestError) {
        // Enough bytes to recognise a compression or text encoding FetchLab does not read.
        while stream.pointee.avail_in < 16 && !atEOF { try refill() }
        let available = Int(stream.pointee.avail_in)
        if available == 0 {
            if isStandardInput {
                throw IngestError(.io, source: source, message: "no data on standard input; nothing was imported")
            }
            format = .plain
            finished = true
            return
        }
        let b0 = inBuffer[0]
        let b1: UInt8 = available > 1 ? inBuffer[1] : 0
        if rawDeflate {
            format = .deflate
            try startInflate(windowBits: -15)
        } else if available >= 2 && b0 == 0x1f && b1 == 0x8b {
            format = .gzip
            try startInflate(windowBits: 15 + 32)
        } else if available >= 2 && Self.isZlibHeader(b0, b1) {
            format = .zlib
            try startInflate(windowBits: 15 + 32)
        } else {
            if let foreign = Sniff.foreign(UnsafeRawBufferPointer(start: inBuffer, count: available)) {
                throw IngestError(.format, source: source, message: foreign.message(source: source))
            }
            format = .plain
        }
    }

    /// RFC 1950 header check. A header asking for a preset dictionary (FDICT) is
    /// not accepted: such a stream cannot be decoded, and rejecting it makes it less
    /// likely that plain text is mistaken for zlib.
    static func isZlibHeader(_ cmf: UInt8, _ flg: UInt8) -> Bool {
        (cmf & 0x0f) == 8 && (cmf >> 4) <= 7 && (UInt32(cmf) * 256 + UInt32(flg)) % 31 == 0 && (flg & 0x20) == 0
    }

    private func startInflate(windowBits: Int32) throws(IngestError) {
        let status = fetchlab_inflateInit2(stream, windowBits)
        guard status == Z_OK else {
            throw IngestError(
                .compression, source: source, offset: 0,
                message: "cannot initialise zlib (\(zlibMessage(status)))")
        }
        inflateReady = true
    }

    private func nextPlainChunk() throws(IngestError) -> UnsafeRawBufferPointer? {
        if stream.pointee.avail_in == 0 {
            try refill()
            if stream.pointee.avail_in == 0 {
                finished = true
                return nil
            }
        }
        let count = Int(stream.pointee.avail_in)
        let chunk = UnsafeRawBufferPointer(start: stream.pointee.next_in, count: count)
        stream.pointee.next_in = inBuffer
        stream.pointee.avail_in = 0
        decompressedBytes += Int64(count)
        return chunk
    }

    private func nextInflatedChunk() throws(IngestError) -> UnsafeRawBufferPointer? {
        let s = stream
        s.pointee.next_out = outBuffer
        s.pointee.avail_out = UInt32(bufferSize)
        do {
            try inflateIntoOutput()
        } catch {
            guard s.pointee.avail_out < UInt32(bufferSize) else { throw error }
            deferredError = error
        }
        let produced = bufferSize - Int(s.pointee.avail_out)
        if produced == 0 { return nil }
        if decompressedBytes == 0,
            let foreign = Sniff.foreign(UnsafeRawBufferPointer(start: outBuffer, count: min(produced, 64)))
        {
            throw IngestError(
                .format, source: source, message: foreign.message(source: source, inside: formatName))
        }
        decompressedBytes += Int64(produced)
        try checkBomb()
        return UnsafeRawBufferPointer(start: outBuffer, count: produced)
    }

    /// Refuses a decompression bomb: more output than `maxDecompressedBytes`, or, once past
    /// `ratioCheckAfterBytes`, more than `maxRatio` times the compressed input read so far.
    private func checkBomb() throws(IngestError) {
        if let limit = maxDecompressedBytes, decompressedBytes > limit {
            throw IngestError(
                .compression, source: source, offset: compressedBytesRead,
                message: "decompresses to more than \(limit) bytes (a decompression bomb?); raise --max-size")
        }
        if let ratio = maxRatio, decompressedBytes > ratioCheckAfterBytes,
            Double(decompressedBytes) > ratio * Double(max(1, compressedBytesRead))
        {
            throw IngestError(
                .compression, source: source, offset: compressedBytesRead,
                message:
                    "decompresses more than \(Int(ratio)):1 (\(decompressedBytes) bytes from \(compressedBytesRead); "
                    + "a decompression bomb?); raise --max-ratio")
        }
    }

    /// Inflates until the output buffer is full, the input is exhausted with some
    /// output ready, or the end of the input.
    private func inflateIntoOutput() throws(IngestError) {
        let s = stream
        while true {
            if memberEnded {
                if try !startNextMember() {
                    finished = true
                    break
                }
            }
            if s.pointee.avail_in == 0 {
                // Hand out what is ready before possibly blocking on a pipe.
                if s.pointee.avail_out < UInt32(bufferSize) { break }
                if atEOF {
                    throw IngestError(
                        .compression, source: source, offset: compressedBytesRead,
                        message: "truncated \(formatName) stream (unexpected end of file)")
                }
                try refill()
                continue
            }
            let status = inflate(s, Z_NO_FLUSH)
            switch status {
            case Z_OK:
                break
            case Z_STREAM_END:
                memberEnded = true
            case Z_BUF_ERROR:
                // No progress possible: only legitimate when a buffer is exhausted.
                if s.pointee.avail_in > 0 && s.pointee.avail_out > 0 {
                    throw IngestError(
                        .compression, source: source, offset: consumedOffset,
                        message: "corrupt \(formatName) stream (zlib made no progress)")
                }
            case Z_NEED_DICT:
                throw IngestError(
                    .compression, source: source, offset: consumedOffset,
                    message: "corrupt \(formatName) stream: needs a preset dictionary")
            case Z_DATA_ERROR:
                throw IngestError(
                    .compression, source: source, offset: consumedOffset,
                    message: "corrupt \(formatName) stream: \(zlibMessage(status))")
            default:
                throw IngestError(
                    .compression, source: source, offset: consumedOffset,
                    message: "zlib error: \(zlibMessage(status))")
            }
            if s.pointee.avail_out == 0 { break }
        }
    }

    /// Called after a member/stream ended: skips zero padding and, for gzip, resets
    /// zlib when another member follows. Returns false at the end of the input.
    private func startNextMember() throws(IngestError) -> Bool {
        let s = stream
        while true {
            if s.pointee.avail_in == 0 {
                if atEOF { return false }
                try refill()
                continue
            }
            guard let next = s.pointee.next_in else { return false }
            if next[0] == 0 {
                // Zero padding after a member (e.g. from tape or block devices).
                var p = next
                var n = s.pointee.avail_in
                while n > 0 && p[0] == 0 {
                    p += 1
                    n -= 1
                }
                s.pointee.next_in = p
                s.pointee.avail_in = n
                continue
            }
            if format == .gzip && next[0] == 0x1f {
                if s.pointee.avail_in < 2 && !atEOF {
                    try refill()
                    continue
                }
                if s.pointee.avail_in >= 2 && next[1] == 0x8b {
                    inflateReset(s)
                    memberEnded = false
                    return true
                }
            }
            let what = format == .gzip ? "gzip member" : "\(formatName) stream"
            throw IngestError(
                .compression, source: source, offset: consumedOffset, message: "unexpected data after \(what)")
        }
    }

    private var formatName: String { format?.rawValue ?? "compressed" }

    private func zlibMessage(_ status: Int32) -> String {
        if let msg = stream.pointee.msg { return String(cString: msg) }
        switch status {
        case Z_MEM_ERROR: return "out of memory"
        case Z_VERSION_ERROR: return "incompatible zlib version"
        case Z_STREAM_ERROR: return "invalid stream state"
        case Z_DATA_ERROR: return "invalid data"
        default: return "status \(status)"
        }
    }
}
