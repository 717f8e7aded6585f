// Fuzz target: the streaming decompressor (gzip, multi-member, zlib, plain, raw deflate).
// The first byte picks raw deflate (odd) and a small or large buffer; the rest is the input.
import Glibc

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDecompress(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 1 else { return 0 }
    let fd = memoryFile(data + 1, size - 1)
    let reader = DecompressingReader(
        fileDescriptor: fd, source: "fuzz", closeOnDeinit: false, rawDeflate: data[0] & 1 == 1,
        chunkSize: data[0] & 2 == 0 ? 64 : 1 << 16)
    reader.maxDecompressedBytes = 64 << 20
    var total = 0
    do {
        while let chunk = try reader.nextChunk() { total += chunk.count }
        _ = reader.contentSHA256Hex
    } catch {
        // An IngestError is the expected answer to bad input; it must name the source.
        precondition(error.source == "fuzz", "error without its source")
    }
    precondition(total <= 64 << 20 + (1 << 16), "output past the limit")
    return 0
}
