import CZlib
import Foundation

/// Compresses bytes into one gzip member in memory, deterministically: the header carries no
/// file name and mtime 0, so the same input and level always give the same bytes.
///
/// Members can be concatenated (`a + b` is a valid multi-member gzip file that decompresses to
/// the concatenated inputs), which is how `FetchLabSynth` writes large outputs in parallel.
public final class GzipMemberWriter {
    // zlib keeps a pointer back to the stream: it lives at one address for the writer's life.
    private let stream: UnsafeMutablePointer<z_stream>
    private var output: [UInt8] = []
    private var chunk = [UInt8](repeating: 0, count: 1 << 16)
    private var finished = false

    /// - Parameter level: 1 (fastest) to 9 (smallest); 6 is gzip's default.
    public init(level: Int32 = 6) {
        // windowBits 15 + 16: a gzip wrapper with a minimal header (no name, mtime 0, OS 3).
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let rc = fetchlab_deflateInit2(stream, max(1, min(9, level)), 15 + 16, 8)
        precondition(rc == Z_OK, "deflateInit2 failed (\(rc)): out of memory")
    }

    deinit {
        deflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Compresses `bytes` (buffered inside zlib until enough has come).
    public func write(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0 else { return }
        precondition(!finished, "GzipMemberWriter: write after finish")
        stream.pointee.next_in = UnsafeMutablePointer(mutating: bytes.baseAddress!.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = uInt(bytes.count)
        pump(flush: Z_NO_FLUSH)
    }

    public func write(_ text: String) {
        var text = text
        text.withUTF8 { write(UnsafeRawBufferPointer($0)) }
    }

    public func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { write($0) }
    }

    /// Ends the member and returns all its bytes (again on later calls).
    public func finish() -> [UInt8] {
        stream.pointee.next_in = nil
        stream.pointee.avail_in = 0
        if !finished { pump(flush: Z_FINISH) }
        finished = true
        return output
    }

    private func pump(flush: Int32) {
        chunk.withUnsafeMutableBufferPointer { buffer in
            while true {
                stream.pointee.next_out = buffer.baseAddress
                stream.pointee.avail_out = uInt(buffer.count)
                let rc = deflate(stream, flush)
                precondition(rc != Z_STREAM_ERROR, "deflate stream error")
                let produced = buffer.count - Int(stream.pointee.avail_out)
                output.append(contentsOf: buffer[0..<produced])
                if flush == Z_FINISH {
                    if rc == Z_STREAM_END { return }
                } else if stream.pointee.avail_in == 0 && stream.pointee.avail_out > 0 {
                    return
                }
            }
        }
    }
}
