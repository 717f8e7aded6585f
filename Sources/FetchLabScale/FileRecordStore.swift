import FetchLabCore
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A `RecordStore` on disk instead of in memory: what a run holds per user (so grows with the
/// population) but reads only in passes, from the first record to the last.
///
/// The records go to a temporary file in `directory`, unlinked at once (nothing is left behind,
/// even after a kill), through a buffer of ``bufferSize`` bytes. Nothing is ever lost: when the
/// file cannot be made, or a write to it fails (a full disk), the records not written stay in
/// memory, and reading gives the file's records then those.
///
/// One writer appends; once it is done, any number of threads may read (``forEach(first:_:)``).
public final class FileRecordStore: RecordStore, @unchecked Sendable {
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
    /// Where a failure to read the records back is reported (``FileRecordStorage/check()``).
    private let failures: FileRecordStorage.Failures

    /// - Parameters:
    ///   - directory: where the temporary file goes (records stay in memory when none can be made there).
    ///   - failures: where a failure to read back is kept (a storage's, or the store's own).
    init(directory: String, failures: FileRecordStorage.Failures) {
        self.failures = failures
        var template = Array(((directory.isEmpty ? "." : directory) + "/fetchlab-spill-XXXXXX").utf8CString)
        descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        if descriptor >= 0 { template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) } }
        spilling = descriptor >= 0
    }

    /// A store of its own (its read-back failure in ``failure``).
    /// - Parameter directory: where the temporary file goes (records stay in memory when none can be made there).
    public convenience init(directory: String = NSTemporaryDirectory()) {
        self.init(directory: directory, failures: .init())
    }

    /// A store writing to `descriptor` (its own from now on: closed with the spill).
    init(descriptor: Int32, failures: FileRecordStorage.Failures = .init()) {
        self.failures = failures
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
            RecordLayout.append(record, to: &buffer)
            records += 1
            if spilling, buffer.count >= Self.bufferSize { flush() }
        }
    }

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
    /// Safe to call from several threads at once, while nothing is appended. When the file cannot
    /// be read back, stops there and keeps the failure for ``FileRecordStorage/check()``.
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
            let read = chunk.withUnsafeMutableBytes { readFile(into: $0.baseAddress! + held, count: want, at: offset) }
            guard read else { return }
            offset += want
            held += want
            let used = chunk.withUnsafeBytes {
                RecordLayout.records(in: UnsafeRawBufferPointer(rebasing: $0[..<held]), left: &left, body)
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
        rest.withUnsafeBytes { _ = RecordLayout.records(in: $0, left: &left, body) }
    }

    /// Zero bytes after a record of `length` bytes, to a multiple of 8.
    static func padding(_ length: Int) -> Int { RecordLayout.padding(length) }

    /// Record `index` (in the order appended), read alone. Safe to call from several threads at
    /// once, while nothing is appended. Empty when the file cannot be read back (the failure is kept
    /// for ``FileRecordStorage/check()``).
    public func record(at index: Int) -> [UInt8] {
        let (start, fileBytes, memory) = lock.withLock { () -> (Int, Int, [UInt8]) in
            if spilling { flush() }
            return (starts[index], written, buffer)
        }
        func bytes(_ from: Int, _ count: Int) -> [UInt8]? {
            var out = [UInt8](repeating: 0, count: count)
            let done = max(0, min(count, fileBytes - from))
            if done > 0, !out.withUnsafeMutableBytes({ readFile(into: $0.baseAddress!, count: done, at: from) }) {
                return nil
            }
            // The rest (a record cut by a failed write, or kept in memory) from the buffer.
            let m = from + done - fileBytes
            if done < count { out.replaceSubrange(done..<count, with: memory[m..<(m + count - done)]) }
            return out
        }
        guard let head = bytes(start, 8) else { return [] }
        let length = Int(UInt64(littleEndian: head.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }))
        return bytes(start + 8, length) ?? []
    }

    /// Reads `count` bytes of the file from `offset` (bytes written to it); false when they cannot
    /// be read back, the failure kept (``FileRecordStorage/check()``): nothing else holds them, so
    /// the run's figures are incomplete.
    private func readFile(into destination: UnsafeMutableRawPointer, count: Int, at offset: Int) -> Bool {
        var done = 0
        while done < count {
            let n = pread(descriptor, destination + done, count - done, off_t(offset + done))
            if n < 0, errno == EINTR { continue }
            guard n > 0 else {
                let reason = n < 0 ? String(cString: strerror(errno)) : "the file is shorter than written"
                failures.keep(ScaleError(.readBack, "cannot read back a temporary file of per-user figures in the temporary directory (TMPDIR): \(reason)"))
                return false
            }
            done += n
        }
        return true
    }

    /// The failure to read records back met so far, if any (``FileRecordStorage/check()`` throws it).
    public var failure: ScaleError? { failures.first }

}

/// Stores in unlinked temporary files in `directory` (``FileRecordStore``): what a command's run
/// injects into the simulator and the tuner, so that their per-user records do not grow memory.
/// The first failure to read records back from any of its stores is kept, and ``check()`` throws it.
public struct FileRecordStorage: RecordStorage {
    /// The first read-back failure of a storage's stores.
    final class Failures: Sendable {
        private let kept = Mutex<ScaleError?>(nil)
        init() {}
        func keep(_ error: ScaleError) { kept.withLock { if $0 == nil { $0 = error } } }
        var first: ScaleError? { kept.withLock { $0 } }
    }

    public let directory: String
    let failures = Failures()

    /// - Parameter directory: where the temporary files go (records stay in memory when none can be made there).
    public init(directory: String = NSTemporaryDirectory()) {
        self.directory = directory
    }

    public func makeStore() -> any RecordStore { FileRecordStore(directory: directory, failures: failures) }

    /// Throws the first failure to read records back from one of its stores (a ``ScaleError``).
    public func check() throws(ScaleError) {
        if let failure = failures.first { throw failure }
    }
}
