/// Records appended one after another and read back in the same order, in passes: what a run holds
/// per user (so grows with the population) but reads only from the first record to the last. The
/// simulator sums into one and reads it back; where the bytes are kept is the store's business:
/// ``MemoryRecordStore`` holds them in memory, FetchLabScale's `FileRecordStore` in a temporary
/// file.
///
/// One writer appends; once it is done, any number of threads may read.
public protocol RecordStore: AnyObject, Sendable {
    /// The records appended so far.
    var count: Int { get }
    /// Whether records still go to a file (false for a store in memory, and for a file store whose
    /// file could not be made or failed: it then keeps them in memory).
    var isOnDisk: Bool { get }
    /// Bytes of records on disk, and held in memory.
    var bytes: (onDisk: Int, inMemory: Int) { get }
    /// Appends one record. Records are read back 8-byte aligned.
    func append(_ record: UnsafeRawBufferPointer)
    /// Calls `body` with each of the first `first` records (all when nil), in the order appended.
    /// A store that cannot read its records back stops early and reports it through the
    /// ``RecordStorage`` that made it (``RecordStorage/check()``).
    func forEach(first: Int?, _ body: (UnsafeRawBufferPointer) -> Void)
    /// Record `index` (in the order appended), read alone (empty when it cannot be read back, which
    /// ``RecordStorage/check()`` then reports).
    func record(at index: Int) -> [UInt8]
}

extension RecordStore {
    public func append(_ record: [UInt8]) { record.withUnsafeBytes { append($0) } }
    /// Calls `body` with every record, in the order appended.
    public func forEach(_ body: (UnsafeRawBufferPointer) -> Void) { forEach(first: nil, body) }
}

/// Where a run's ``RecordStore``s are made, injected into the simulator and the tuner: in memory
/// (``MemoryRecordStorage``, the default) or in temporary files (FetchLabScale's
/// `FileRecordStorage`).
public protocol RecordStorage: Sendable {
    /// A new, empty store.
    func makeStore() -> any RecordStore
    /// Throws the first failure to read records back from a store it made (the figures read from
    /// it since then are incomplete and must not be reported); does nothing when there was none.
    /// A workflow calls it once its run is done.
    func check() throws
}

/// Records held in memory: a store that never fails.
public final class MemoryRecordStore: RecordStore, @unchecked Sendable {
    // Appends happen before reads (one writer, then readers), as the protocol says.
    private var buffer: [UInt8] = []
    /// Where each record starts (its length's first byte).
    private var starts: [Int] = []

    public init() {}

    public var count: Int { starts.count }
    public var isOnDisk: Bool { false }
    public var bytes: (onDisk: Int, inMemory: Int) { (0, buffer.count) }

    public func append(_ record: UnsafeRawBufferPointer) {
        starts.append(buffer.count)
        RecordLayout.append(record, to: &buffer)
    }

    public func forEach(first: Int?, _ body: (UnsafeRawBufferPointer) -> Void) {
        var left = min(first ?? starts.count, starts.count)
        buffer.withUnsafeBytes { _ = RecordLayout.records(in: $0, left: &left, body) }
    }

    public func record(at index: Int) -> [UInt8] {
        buffer.withUnsafeBytes { b in
            let start = starts[index]
            let length = Int(UInt64(littleEndian: b.loadUnaligned(fromByteOffset: start, as: UInt64.self)))
            return Array(b[(start + 8)..<(start + 8 + length)])
        }
    }
}

/// Stores in memory (``MemoryRecordStore``): what the simulator and the tuner use unless given another.
public struct MemoryRecordStorage: RecordStorage {
    public init() {}
    public func makeStore() -> any RecordStore { MemoryRecordStore() }
    public func check() throws {}
}

/// How records are laid out one after another, in memory and in a file alike: each after its
/// length (64 bits, little-endian) and padded with zero bytes to a multiple of 8.
public enum RecordLayout {
    /// Zero bytes after a record of `length` bytes, to a multiple of 8.
    public static func padding(_ length: Int) -> Int { (8 - length % 8) % 8 }

    /// Appends `record` to `bytes`, after its length and followed by its padding.
    public static func append(_ record: UnsafeRawBufferPointer, to bytes: inout [UInt8]) {
        var length = UInt64(record.count).littleEndian
        withUnsafeBytes(of: &length) { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: record)
        bytes.append(contentsOf: repeatElement(0, count: padding(record.count)))
    }

    /// Calls `body` on the whole records at the start of `bytes` (at most `left`, which it counts
    /// down); the bytes used.
    public static func records(
        in bytes: UnsafeRawBufferPointer, left: inout Int, _ body: (UnsafeRawBufferPointer) -> Void
    ) -> Int {
        var at = 0
        while left > 0, bytes.count - at >= 8 {
            let length = Int(UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self)))
            guard bytes.count - at - 8 >= length + padding(length) else { break }
            body(UnsafeRawBufferPointer(rebasing: bytes[(at + 8)..<(at + 8 + length)]))
            at += 8 + length + padding(length)
            left -= 1
        }
        return at
    }
}

/// Records in a ``RecordStore`` as a value: a copy that appends after another copy did moves its
/// own records to a store of its own first, so each copy reads back the records it appended. The
/// store is made at the first record, by `storage`.
public struct StoredRecords: Sendable {
    /// Where the store is made.
    public let storage: any RecordStorage
    private var store: (any RecordStore)? = nil
    /// The records this value holds (the store's first ones).
    public private(set) var count = 0

    public init(in storage: any RecordStorage = MemoryRecordStorage()) {
        self.storage = storage
    }

    public mutating func append(_ record: [UInt8]) {
        if store == nil || store!.count != count {
            let copy = storage.makeStore()
            store?.forEach(first: count) { copy.append($0) }
            store = copy
        }
        store!.append(record)
        count += 1
    }

    /// Calls `body` with each record, in the order appended (``RecordStore/forEach(first:_:)``).
    public func forEach(_ body: (UnsafeRawBufferPointer) -> Void) { store?.forEach(first: count, body) }

    /// Record `index`, read alone (``RecordStore/record(at:)``).
    public func record(at index: Int) -> [UInt8] {
        precondition(index < count, "a record of this value")
        return store!.record(at: index)
    }

    /// Bytes of records on disk and in memory (the store's).
    public var bytes: (onDisk: Int, inMemory: Int) { store?.bytes ?? (0, 0) }
}
