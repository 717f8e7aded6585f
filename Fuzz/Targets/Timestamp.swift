// Fuzz target: the timestamp parser (ISO-8601, epochs, local times in a DST zone).
import Foundation

nonisolated(unsafe) var parsers = [
    TimestampParser(), TimestampParser(timeZone: TimeZone(identifier: "Europe/Berlin")),
    TimestampParser(timeZone: TimeZone(identifier: "America/New_York"), epochUnit: .milliseconds),
    TimestampParser(epochUnit: .seconds),
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTimestamp(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 1 else { return 0 }
    let i = Int(data[0]) % parsers.count
    let field = UnsafeRawBufferPointer(start: data + 1, count: size - 1)
    if let t = try? parsers[i].parse(field) {
        // Whatever parses lands in a sane range and its offset is within ±18 h.
        precondition(t.utcOffsetSeconds.map { abs($0) <= 18 * 3600 } ?? true, "offset out of range")
    }
    return 0
}
