import FetchLabCore
import FetchLabResults
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Per-user rows (`compare --per-user`) on disk instead of in memory (`PerUserRows`, in
/// FetchLabResults): written as the users are summed, so memory stays the same whatever the
/// population, and read back one policy at a time in the order the users were added.
///
/// One temporary file per policy, created and unlinked at once (nothing is left behind, even after
/// a kill), in `directory`; each record is one user's row after its length, written through a
/// buffer with ``AtomicFile``'s whole-write loop. Unlike a ``FileRecordStore`` it keeps no index
/// (the rows are only read in order) and never falls back to memory: a spool that cannot be made
/// throws at once, and a write that fails (a full disk) is thrown by ``finish()``.
public final class PerUserSpool: PerUserRows {
    struct State: ~Copyable {
        var descriptors: [Int32]
        var buffers: [[UInt8]]
        var tally = PerUserTally()
    }

    public let policies: Int
    public let directory: String
    private let state: Mutex<State>
    /// Bytes buffered per policy before they are written out.
    static let bufferSize = 1 << 16

    /// - Throws: `SpoolError` when a temporary file cannot be made in `directory`.
    public init(policies: Int, directory: String = NSTemporaryDirectory()) throws(SpoolError) {
        self.policies = policies
        self.directory = directory.isEmpty ? "." : directory
        var descriptors: [Int32] = []
        for _ in 0..<policies {
            var template = Array((self.directory + "/fetchlab-per-user-XXXXXX").utf8CString)
            let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
            guard fd >= 0 else {
                let reason = String(cString: strerror(errno))
                for d in descriptors { close(d) }
                throw SpoolError("cannot make a temporary file for the per-user rows in \(self.directory): \(reason)")
            }
            // Unlinked at once: the file lives as long as the descriptor.
            template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
            descriptors.append(fd)
        }
        state = Mutex(State(descriptors: descriptors, buffers: Array(repeating: [], count: policies)))
    }

    deinit {
        state.withLock { s in for fd in s.descriptors { close(fd) } }
    }

    public var users: Int { state.withLock { $0.tally.users } }

    public func add(user: String, metrics: [PolicyMetrics]) {
        let encoded = PerUserRow.encode(user: user, metrics: metrics, policies: policies)
        state.withLock { s in
            guard let records = s.tally.admit(encoded) else { return }
            for (i, record) in records.enumerated() {
                var length = UInt32(record.count).littleEndian
                withUnsafeBytes(of: &length) { s.buffers[i].append(contentsOf: $0) }
                s.buffers[i].append(contentsOf: record)
                if s.buffers[i].count >= Self.bufferSize {
                    if let failure = Self.write(s.buffers[i], to: s.descriptors[i]) { return s.tally.fail(failure) }
                    s.buffers[i].removeAll(keepingCapacity: true)
                }
            }
        }
    }

    public func finish() throws(SpoolError) {
        let failure: SpoolError? = state.withLock { s in
            if s.tally.failure == nil {
                for i in s.buffers.indices where !s.buffers[i].isEmpty {
                    if let failure = Self.write(s.buffers[i], to: s.descriptors[i]) {
                        s.tally.fail(failure)
                        break
                    }
                    s.buffers[i].removeAll()
                }
            }
            return s.tally.failure
        }
        if let failure { throw failure }
    }

    public func forEachEncoded(policy: Int, _ body: ([UInt8]) throws -> Void) throws {
        let fd = state.withLock { $0.descriptors[policy] }
        var offset: off_t = 0
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: Self.bufferSize)
        var start = 0
        while true {
            let n = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, offset) }
            if n < 0 {
                if errno == EINTR { continue }
                throw SpoolError("cannot read the per-user rows back: \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            offset += off_t(n)
            pending.removeFirst(start)
            start = 0
            pending.append(contentsOf: chunk[..<n])
            while pending.count - start >= 4 {
                let length = pending[start..<start + 4].enumerated().reduce(0) {
                    $0 | Int($1.element) << (8 * $1.offset)
                }
                guard pending.count - start - 4 >= length else { break }
                try body(Array(pending[start + 4..<start + 4 + length]))
                start += 4 + length
            }
        }
        guard pending.count == start else { throw SpoolError("the per-user rows read back are cut short") }
    }

    /// The whole of `bytes` written to `fd` (``AtomicFile``'s loop); the failure, or nil.
    static func write(_ bytes: [UInt8], to fd: Int32) -> SpoolError? {
        guard let code = AtomicFile.writeAll(fd, bytes) else { return nil }
        return SpoolError("cannot write the per-user rows to a temporary file: \(String(cString: strerror(code)))")
    }
}
