import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Records appended one after another and read back in the same order, kept on disk instead of in
/// memory: what a run holds per user (so grows with the population) but reads only in passes,
/// from the first record to the last.
///
/// The records go to a temporary file in `directory`, unlinked at once (nothing is left behind,
/// even after a kill), through a buffer of ``bufferSize`` bytes. Nothing is ever lost: when the
/// file cannot be made, or a write to it fails (a full disk), the records not written stay in
/// memory, and reading gives the file's records then those.
///
/// One writer appends; once it is done, any number of threads may read (``forEach(first:_:)``).
public final class RecordSpill: @unchecked Sendable {
    /// Bytes buffered before they are written to the file.
    public static let bufferSize = 1 << 16
    /// Bytes read from the file at a time.
    static let readSize = 1 << 20

    private let lock = NSLock()
    private var descriptor: Int32
    /// Bytes in the file (every record before those in `buffer`).
    private var written = 0
    /// Records not in the file: buffered, or kept for good once the file failed.
    private var buffer: [UInt8] = []
    /// Whether records still go to the file.
    private var spilling: Bool
    private var records = 0
    /// Where each record starts (its length's first byte), in the file's bytes then the buffer's.
    private var starts: [Int] = []

    /// - Parameter directory: where the temporary file goes (records stay in memory when none can be made there).
    public init(directory: String = NSTemporaryDirectory()) {
        var template = Array(((directory.isEmpty ? "." : directory) + "/fetchlab-spill-XXXXXX").utf8CString)
        descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        if descriptor >= 0 { template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) } }
        spilling = descriptor >= 0
    }

    /// A spill writing to `descriptor` (its own from now on: closed with the spill).
    init(descriptor: Int32) {
        self.descriptor = descriptor
        spilling = descriptor >= 0
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// The records appended so far.
    public var count: Int { lock.withLock { records } }

    /// Whether records still go to the file (false when none could be made, or a write failed:
    /// from then on they stay in memory).
    public var isOnDisk: Bool { lock.withLock { spilling } }

    /// Bytes of records written to the file, and held in memory.
    public var bytes: (onDisk: Int, inMemory: Int) { lock.withLock { (written, buffer.count) } }

    /// Appends one record. Records are read back 8-byte aligned (each after its length, in 64 bits,
    /// and padded to a multiple of 8 bytes).
    public func append(_ record: UnsafeRawBufferPointer) {
        lock.withLock {
            starts.append(written + buffer.count)
            var length = UInt64(record.count).littleEndian
            withUnsafeBytes(of: &length) { buffer.append(contentsOf: $0) }
            buffer.append(contentsOf: record)
            buffer.append(contentsOf: repeatElement(0, count: Self.padding(record.count)))
            records += 1
            if spilling, buffer.count >= Self.bufferSize { flush() }
        }
    }

    public func append(_ record: [UInt8]) { record.withUnsafeBytes { append($0) } }

    /// Writes the buffer to the file; on failure, keeps what was not written in memory, with
    /// every later record.
    private func flush() {
        var done = 0
        while done < buffer.count {
            let n = buffer.withUnsafeBytes { b in
                pwrite(descriptor, b.baseAddress! + done, b.count - done, off_t(written + done))
            }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else {
                spilling = false
                break
            }
            done += n
        }
        written += done
        buffer.removeFirst(done)
    }

    /// Calls `body` with each of the first `first` records (all when nil), in the order appended.
    /// Safe to call from several threads at once, while nothing is appended.
    public func forEach(first: Int? = nil, _ body: (UnsafeRawBufferPointer) -> Void) {
        let (fileBytes, memory, total) = lock.withLock { () -> (Int, [UInt8], Int) in
            if spilling { flush() }
            return (written, buffer, records)
        }
        var left = min(first ?? total, total)
        guard left > 0 else { return }
        // The file's records, read in chunks; a record cut by a chunk's end waits for the next.
        var chunk = [UInt8](repeating: 0, count: Self.readSize)
        var held = 0
        var offset = 0
        while offset < fileBytes, left > 0 {
            if held == chunk.count { chunk += [UInt8](repeating: 0, count: chunk.count) }
            let want = min(chunk.count - held, fileBytes - offset)
            chunk.withUnsafeMutableBytes { readFile(into: $0.baseAddress! + held, count: want, at: offset) }
            offset += want
            held += want
            let used = chunk.withUnsafeBytes {
                Self.records(in: UnsafeRawBufferPointer(rebasing: $0[..<held]), left: &left, body)
            }
            chunk.withUnsafeMutableBytes { b in
                if used > 0, used < held {
                    b.baseAddress!.copyMemory(from: b.baseAddress! + used, byteCount: held - used)
                }
            }
            held -= used
        }
        // The records kept in memory follow those in the file; a failed write may have cut one
        // between the two, so its start (still held) goes first.
        guard left > 0, !memory.isEmpty else { return }
        let rest = held > 0 ? Array(chunk[..<held]) + memory : memory
        rest.withUnsafeBytes { _ = Self.records(in: $0, left: &left, body) }
    }

    /// Calls `body` on the whole records at the start of `bytes` (at most `left`); the bytes used.
    private static func records(
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

    /// Zero bytes after a record of `length` bytes, to a multiple of 8.
    static func padding(_ length: Int) -> Int { (8 - length % 8) % 8 }

    /// Record `index` (in the order appended), read alone. Safe to call from several threads at
    /// once, while nothing is appended.
    public func record(at index: Int) -> [UInt8] {
        let (start, fileBytes, memory) = lock.withLock { () -> (Int, Int, [UInt8]) in
            if spilling { flush() }
            return (starts[index], written, buffer)
        }
        func bytes(_ from: Int, _ count: Int) -> [UInt8] {
            var out = [UInt8](repeating: 0, count: count)
            let done = max(0, min(count, fileBytes - from))
            if done > 0 { out.withUnsafeMutableBytes { readFile(into: $0.baseAddress!, count: done, at: from) } }
            // The rest (a record cut by a failed write, or kept in memory) from the buffer.
            let m = from + done - fileBytes
            if done < count { out.replaceSubrange(done..<count, with: memory[m..<(m + count - done)]) }
            return out
        }
        let length = Int(UInt64(littleEndian: bytes(start, 8).withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }))
        return bytes(start + 8, length)
    }

    /// Reads `count` bytes of the file from `offset` (bytes written to it: failing to read them
    /// back ends the run, as nothing else holds them; see ``onReadFailure(_:)``).
    private func readFile(into destination: UnsafeMutableRawPointer, count: Int, at offset: Int) {
        var done = 0
        while done < count {
            let n = pread(descriptor, destination + done, count - done, off_t(offset + done))
            if n < 0, errno == EINTR { continue }
            guard n > 0 else {
                let reason = n < 0 ? String(cString: strerror(errno)) : "the file is shorter than written"
                Self.readFailed(
                    "cannot read back a temporary file of per-user figures in the temporary directory "
                        + "(TMPDIR): \(reason)")
            }
            done += n
        }
    }

    private static let failure = NSLock()
    nonisolated(unsafe) private static var failureHandler: (@Sendable (String) -> Never)? = nil

    /// Sets what a run does when a spill's file cannot be read back (an I/O error in the temporary
    /// directory after the records were written to it). Nothing else holds those records, so the
    /// run cannot go on: `handler` is given one line saying what failed, and ends the process (the
    /// command line prints it as its error and exits non-zero). Without a handler the process stops
    /// with `fatalError`. Only the first failing reader calls it; others wait for the end.
    public static func onReadFailure(_ handler: @escaping @Sendable (String) -> Never) {
        failure.withLock { failureHandler = handler }
    }

    private static func readFailed(_ message: String) -> Never {
        // Held for good: a second failing reader waits here while the first ends the process.
        failure.lock()
        guard let handler = failureHandler else { fatalError("fetchlab: \(message)") }
        handler(message)
    }

    /// A new spill holding this one's first `first` records (in the same directory's kind of file).
    public func copy(first: Int, directory: String = NSTemporaryDirectory()) -> RecordSpill {
        let copy = RecordSpill(directory: directory)
        forEach(first: first) { copy.append($0) }
        return copy
    }
}

/// Records in a ``RecordSpill`` as a value: a copy that appends after another copy did moves its
/// own records to a spill of its own first, so each copy reads back the records it appended. The
/// spill (its temporary file) is made at the first record.
public struct SpilledRecords: Sendable {
    private var spill: RecordSpill? = nil
    /// The records this value holds (the spill's first ones).
    public private(set) var count = 0

    public init() {}

    public mutating func append(_ record: [UInt8]) {
        if spill == nil || spill!.count != count { spill = spill?.copy(first: count) ?? RecordSpill() }
        spill!.append(record)
        count += 1
    }

    /// Calls `body` with each record, in the order appended (``RecordSpill/forEach(first:_:)``).
    public func forEach(_ body: (UnsafeRawBufferPointer) -> Void) { spill?.forEach(first: count, body) }

    /// Record `index`, read alone (``RecordSpill/record(at:)``).
    public func record(at index: Int) -> [UInt8] {
        precondition(index < count, "a record of this value")
        return spill!.record(at: index)
    }

    /// Bytes of records on disk and in memory (the spill's).
    public var bytes: (onDisk: Int, inMemory: Int) { spill?.bytes ?? (0, 0) }
}
