import FetchLabCore

/// Appends ISO-8601 timestamps with offsets (`2024-03-31T12:00:05+02:00`, UTC as `Z`) as bytes, to
/// whole seconds: Core's writer in the log files' style (`ISO8601.Style.logFile`).
enum ISOTimestamp {
    @inline(__always)
    static func append(_ time: Instant, offset: Int32?, to out: inout [UInt8]) {
        ISO8601.append(time, offset: Int(offset ?? 0), style: .logFile, to: &out)
    }
}
