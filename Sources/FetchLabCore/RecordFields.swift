/// Builds one record of a ``RecordStore`` field after field, each a fixed-size value in the
/// machine's byte order (a run reads back only the records it wrote): what a record layout is
/// written with, so that the code that sums declares its fields in order and names no byte offset.
/// ``RecordReader`` reads them back in the same order.
public struct RecordWriter {
    public private(set) var bytes: [UInt8] = []

    /// - Parameter capacity: the bytes the record is expected to take.
    public init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    /// Appends `value`'s bytes.
    public mutating func put<T: BitwiseCopyable>(_ value: T) {
        withUnsafeBytes(of: value) { bytes.append(contentsOf: $0) }
    }

    /// Appends the bytes of every value of `values`, in order.
    public mutating func put<T: BitwiseCopyable>(contentsOf values: [T]) {
        values.withUnsafeBytes { bytes.append(contentsOf: $0) }
    }

    /// Zero bytes up to a multiple of `alignment` (so that the next field starts aligned in a
    /// store's records, which start 8-byte aligned).
    public mutating func align(to alignment: Int) {
        bytes.append(contentsOf: repeatElement(0, count: (alignment - bytes.count % alignment) % alignment))
    }
}

/// Reads one record's fields in the order a ``RecordWriter`` put them.
public struct RecordReader {
    public let bytes: UnsafeRawBufferPointer
    /// Where the next field starts.
    public private(set) var offset = 0

    public init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// Whether every field has been read.
    public var isAtEnd: Bool { offset >= bytes.count }

    /// The next field, a `T`.
    public mutating func read<T: BitwiseCopyable>(_ type: T.Type = T.self) -> T {
        defer { offset += MemoryLayout<T>.size }
        return bytes.loadUnaligned(fromByteOffset: offset, as: T.self)
    }

    /// Passes over the next `count` fields of type `T`.
    public mutating func skip<T: BitwiseCopyable>(_ type: T.Type, count: Int = 1) {
        offset += MemoryLayout<T>.stride * count
    }

    /// The next `count` fields of type `T`, read in place: they must start aligned for `T` (a
    /// store's records start 8-byte aligned; ``RecordWriter/align(to:)`` pads before them).
    public mutating func withFields<T: BitwiseCopyable, R>(
        _ type: T.Type, count: Int, _ body: (UnsafeBufferPointer<T>) throws -> R
    ) rethrows -> R {
        let start = offset
        offset += MemoryLayout<T>.stride * count
        return try UnsafeRawBufferPointer(rebasing: bytes[start..<offset]).withMemoryRebound(to: T.self, body)
    }

    /// Passes over the zero bytes up to a multiple of `alignment`.
    public mutating func align(to alignment: Int) {
        offset += (alignment - offset % alignment) % alignment
    }
}
