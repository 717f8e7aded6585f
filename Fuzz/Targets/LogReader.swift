// Fuzz target: one log format's reader, from bytes to records and rejects. The format is
// fixed at compile time (-D FUZZ_USAGE, FUZZ_CONTEXT, …); FUZZ_DETECT lets the reader detect it.
import Foundation
import Glibc

#if FUZZ_USAGE
    let forcedFormat: LogFormat? = .usage
#elseif FUZZ_CONTEXT
    let forcedFormat: LogFormat? = .context
#elseif FUZZ_CONTENT
    let forcedFormat: LogFormat? = .content
#elseif FUZZ_FOREGROUND
    let forcedFormat: LogFormat? = .foreground
#elseif FUZZ_BATTERY
    let forcedFormat: LogFormat? = .battery
#elseif FUZZ_LSAPP
    let forcedFormat: LogFormat? = .lsapp
#elseif FUZZ_USAGESTATS
    let forcedFormat: LogFormat? = .usagestats
#else
    let forcedFormat: LogFormat? = nil
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLogReader(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let fd = memoryFile(data, size)
    var options = ReadOptions()
    options.format = forcedFormat
    options.user = forcedFormat == .foreground ? "fuzz" : nil
    options.batchSize = 64
    options.maxDecompressedBytes = 64 << 20
    if size > 0 && data[0] & 1 == 1 { options.timeZone = TimeZone(identifier: "Europe/Berlin") }
    // A mapped duration column (`--map duration=duration`): the flexible CSV's use lengths.
    if size > 0 && data[0] & 2 == 2 { options.columnMap = ["duration": "duration", "d": "duration"] }
    do {
        let reader = try LogReader(path: "/proc/self/fd/\(fd)", options: options)
        var rows = 0
        while let batch = try reader.nextBatch() {
            rows += batch.counts.rows
            precondition(batch.counts.accepted + batch.counts.rejected <= batch.counts.rows + 1, "counts do not add up")
            for r in batch.rejects { precondition(r.line >= 1 && r.raw.utf8.count <= RejectedRow.maxRawBytes) }
        }
    } catch {
        precondition(!"\(error)".isEmpty)
    }
    return 0
}
