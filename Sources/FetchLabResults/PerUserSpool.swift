import FetchLabCore
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Each user's metrics per policy (`compare --per-user`), written to disk as the users are summed
/// instead of held: memory stays the same whatever the population, and the rows are read back,
/// one at a time and in the order the users were summed, by the JSON output
/// (``writeJSON(_:to:)``) and by the store.
///
/// One temporary file per policy (created and unlinked at once, so nothing is left behind even
/// after a kill), in `directory`; each record is one user's ``GroupResult`` as the report's JSON
/// encodes it (pretty-printed, sorted keys), after its length.
public final class PerUserSpool: Sendable {
    /// What stands for policy `i`'s `per_user` array in a report encoded before the rows are
    /// spliced in (``PolicyResult/spooledPerUser``): a string no name can produce (it holds U+0001).
    static func marker(_ policy: Int) -> String { "\u{1}per_user:\(policy)\u{1}" }

    /// The marker as the JSON encoder writes it (control characters escaped).
    static func encodedMarker(_ policy: Int) -> String { "\"\\u0001per_user:\(policy)\\u0001\"" }

    struct State: ~Copyable {
        var descriptors: [Int32]
        var buffers: [[UInt8]]
        var users = 0
        var failure: String? = nil
    }

    public let policies: Int
    public let directory: String
    private let state: Mutex<State>
    /// Bytes buffered per policy before they are written out.
    static let bufferSize = 1 << 16

    /// - Throws: ``SpoolError`` when a temporary file cannot be made in `directory`.
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

    /// The users added so far.
    public var users: Int { state.withLock { $0.users } }

    /// Adds one user's metrics, one per policy (in the policies' order). A failure to write (a full
    /// disk) is kept and thrown by ``finish()``; later users are then dropped.
    public func add(user: String, metrics: [PolicyMetrics]) {
        precondition(metrics.count == policies, "one metrics per policy")
        let encoder = Self.encoder()
        var records: [[UInt8]] = []
        records.reserveCapacity(policies)
        var failure: String? = nil
        for m in metrics {
            do {
                records.append(Array(try encoder.encode(GroupResult(name: user, metrics: m))))
            } catch {
                failure = "the metrics of user \(user) cannot be encoded: \(error)"
                break
            }
        }
        state.withLock { s in
            guard s.failure == nil else { return }
            if let failure {
                s.failure = failure
                return
            }
            s.users += 1
            for (i, record) in records.enumerated() {
                var length = UInt32(record.count).littleEndian
                withUnsafeBytes(of: &length) { s.buffers[i].append(contentsOf: $0) }
                s.buffers[i].append(contentsOf: record)
                if s.buffers[i].count >= Self.bufferSize {
                    if let error = Self.write(s.buffers[i], to: s.descriptors[i]) {
                        s.failure = error
                        return
                    }
                    s.buffers[i].removeAll(keepingCapacity: true)
                }
            }
        }
    }

    /// Writes out what is buffered; throws the first failure met while adding users.
    public func finish() throws(SpoolError) {
        let failure: String? = state.withLock { s in
            if s.failure == nil {
                for i in s.buffers.indices where !s.buffers[i].isEmpty {
                    if let error = Self.write(s.buffers[i], to: s.descriptors[i]) {
                        s.failure = error
                        break
                    }
                    s.buffers[i].removeAll()
                }
            }
            return s.failure
        }
        if let failure { throw SpoolError(failure) }
    }

    /// Policy `policy`'s rows, in the order the users were added, each as its encoded JSON (``finish()`` first).
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

    /// Policy `policy`'s rows decoded, in the order the users were added.
    public func forEach(policy: Int, _ body: (GroupResult) throws -> Void) throws {
        let decoder = JSONDecoder()
        try forEachEncoded(policy: policy) { try body(try decoder.decode(GroupResult.self, from: Data($0))) }
    }

    /// Writes `encoded` — a report encoded as `TextFormat`'s JSON, pretty-printed with sorted
    /// keys, whose spooled policies stand as markers — with each marker replaced by its policy's
    /// `per_user` array, in chunks to `write`: exactly the text the encoder makes of the report
    /// with every user's metrics in memory.
    public func writeJSON(_ encoded: String, to write: (String) throws -> Void) throws {
        var rest = Substring(encoded)
        var text = ""
        for policy in 0..<policies {
            let marker = Self.encodedMarker(policy)
            guard let range = rest.range(of: marker) else { continue }
            let lineStart =
                rest[..<range.lowerBound].lastIndex(of: "\n").map { rest.index(after: $0) } ?? rest.startIndex
            let indent = String(rest[lineStart...].prefix { $0 == " " })
            try write(String(rest[..<range.lowerBound]))
            var count = 0
            try forEachEncoded(policy: policy) { record in
                text.removeAll(keepingCapacity: true)
                text += count == 0 ? "[\n" : ",\n"
                for (k, line) in String(decoding: record, as: UTF8.self).split(
                    separator: "\n", omittingEmptySubsequences: false
                )
                .enumerated() {
                    if k > 0 { text += "\n" }
                    text += indent + "  " + line
                }
                try write(text)
                count += 1
            }
            try write(count == 0 ? "[\n\n" + indent + "]" : "\n" + indent + "]")
            rest = rest[range.upperBound...]
        }
        try write(String(rest))
    }

    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // As the report's own JSON writes a number JSON cannot hold (FetchLabReport's TextFormat.json).
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        return encoder
    }

    /// write(2) whole, retried on EINTR and short writes; the failure's reason, or nil.
    static func write(_ bytes: [UInt8], to fd: Int32) -> String? {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { systemWrite(fd, $0.baseAddress! + done, $0.count - done) }
            if n > 0 {
                done += n
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                return "cannot write the per-user rows to a temporary file: \(String(cString: strerror(errno)))"
            }
        }
        return nil
    }
}

/// write(2), out of the reach of ``PerUserSpool/write(_:to:)``'s name.
private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    write(fd, buffer, count)
}

/// A per-user spool that failed: one line.
public struct SpoolError: FetchLabError {
    public enum Code: String, Sendable, Hashable {
        /// The temporary file could not be made, written or read back.
        case io
    }

    public var code: Code { .io }
    public var message: String
    public var description: String { message }
    public init(_ message: String) { self.message = message }
}
