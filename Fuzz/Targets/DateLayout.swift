// Fuzz target: `--date-format` layouts, both the layout text and the timestamps read with it.
// First byte: bit 7 set → the input's first line is the layout and the rest the field (a layout
// that does not parse is skipped); else its low bits pick one of the fixed layouts and zones.
import Foundation

nonisolated(unsafe) var fixed: [TimestampParser] = {
    let layouts = [
        "%d/%m/%Y %H:%M", "%m/%d/%y %I:%M %p", "%d %B %Y %H:%M:%S.%f", "%d.%m.%Y %H:%M %z", "%D %T", "%Y-%m-%d",
    ]
    var out: [TimestampParser] = []
    for (i, text) in layouts.enumerated() {
        var p = TimestampParser(timeZone: i % 2 == 0 ? TimeZone(identifier: "Europe/Berlin") : nil)
        p.layout = try! DateLayout(text)
        out.append(p)
    }
    return out
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDateLayout(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 1 else { return 0 }
    let rest = UnsafeRawBufferPointer(start: data + 1, count: size - 1)
    if data[0] & 0x80 != 0 {
        guard let newline = rest.firstIndex(of: 0x0A) else { return 0 }
        let text = String(decoding: rest[..<newline], as: UTF8.self)
        guard let layout = try? DateLayout(text) else { return 0 }
        var parser = TimestampParser(timeZone: TimeZone(identifier: "America/New_York"))
        parser.layout = layout
        check(try? parser.parse(UnsafeRawBufferPointer(rebasing: rest[(newline + 1)...])))
        return 0
    }
    let i = Int(data[0]) % fixed.count
    check(try? fixed[i].parse(rest))
    return 0
}

/// Whatever parses has an offset within ±18 h and a time within years 0–9999.
private func check(_ t: ParsedTimestamp?) {
    guard let t else { return }
    precondition(t.utcOffsetSeconds.map { abs($0) <= 18 * 3600 } ?? true, "offset out of range")
    precondition(abs(t.microseconds) < 400 * 365 * 86_400 * 1_000_000 * 25, "instant out of range")
}
