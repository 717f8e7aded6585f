// Fuzz target: the Knowledge store reader (knowledgeC.db), from a SQLite file's bytes (plain or
// gzip'd) to records and rejects, through the same entry point as `fetchlab import`.
import Foundation
import Glibc

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzKnowledgeStore(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let fd = memoryFile(data, size)
    let path = "/proc/self/fd/\(fd)"
    var options = ReadOptions()
    options.batchSize = 64
    options.maxDecompressedBytes = 64 << 20
    // The last byte (inside SQLite's free space, usually) picks strict mode.
    options.strict = size > 0 && data[size - 1] & 1 == 1
    do {
        let reader = try openRecordSource(path: path, options: options)
        while let batch = try reader.nextBatch() {
            // Each ZOBJECT row is accepted or rejected once (bytes that are not SQLite go to the line reader).
            if reader is KnowledgeStoreReader {
                precondition(batch.counts.accepted + batch.counts.rejected == batch.counts.rows, "counts do not add up")
            }
            for r in batch.rejects { precondition(r.raw.utf8.count <= RejectedRow.maxRawBytes) }
            for e in batch.usage { precondition(abs(Int(e.utcOffset ?? 0)) <= 18 * 3600) }
        }
    } catch {
        let message = "\(error)"
        precondition(message.hasPrefix(path) && !message.contains("\n"), "error does not name the file: \(message)")
    }
    return 0
}
