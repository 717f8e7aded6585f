// TEMPORARY: replaced by the real implementations.
import Foundation
public enum CompressionFormat: String, Sendable, CaseIterable { case gzip, zlib, deflate, plain }
public final class DecompressingReader {
    public let source: String
    public private(set) var format: CompressionFormat?
    public private(set) var compressedBytesRead: Int64 = 0
    public private(set) var decompressedBytes: Int64 = 0
    public let totalBytes: Int64?
    var data: [UInt8]
    var done = false
    public init(path: String, rawDeflate: Bool = false, chunkSize: Int = 1 << 18) throws(IngestError) {
        source = path
        guard let d = FileManager.default.contents(atPath: path) else { throw IngestError(.io, source: path, message: "no such file") }
        data = Array(d); totalBytes = Int64(d.count)
    }
    public func nextChunk() throws(IngestError) -> UnsafeRawBufferPointer? {
        if done { return nil }; done = true; format = .plain
        compressedBytesRead = Int64(data.count); decompressedBytes = Int64(data.count)
        return data.withUnsafeBytes { UnsafeRawBufferPointer(start: $0.baseAddress, count: $0.count) }
    }
    public var contentSHA256Hex: String { "stub\(data.count)" }
}
public struct SHA256 { public init() {}; public mutating func update(_ bytes: UnsafeRawBufferPointer) {}; public mutating func finalize() -> [UInt8] { [] }; public static func hex(_ b: [UInt8]) -> String { "" } }
public enum EpochUnit: String, Sendable, CaseIterable { case auto, seconds, milliseconds, microseconds }
public struct ParsedTimestamp: Sendable, Hashable { public var microseconds: Int64; public var utcOffsetSeconds: Int32? }
public struct TimestampError: Error, Sendable, Hashable, CustomStringConvertible { public var message: String; public var description: String { message } }
public struct TimestampParser {
    public init(timeZone: TimeZone? = nil, epochUnit: EpochUnit = .auto) {}
    public mutating func parse(_ field: UnsafeRawBufferPointer) throws(TimestampError) -> ParsedTimestamp {
        guard let v = Int64(String(decoding: field, as: UTF8.self)) else { throw TimestampError(message: "bad") }
        return ParsedTimestamp(microseconds: v * 1_000_000, utcOffsetSeconds: nil)
    }
    public mutating func parse(_ text: String) throws(TimestampError) -> ParsedTimestamp {
        return try parse(UnsafeRawBufferPointer(start: nil, count: 0))
    }
}
