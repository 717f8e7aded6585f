import FetchLabCore
import Foundation
import Synchronization

/// Each user's metrics per policy (`compare --per-user`), kept as the users are summed and read
/// back, one policy at a time and in the order the users were added, by the JSON output
/// (``writeJSON(_:to:)``) and by the store: the report's policies then carry
/// ``PolicyResult/spooledPerUser`` instead of the rows.
///
/// Where the rows are kept is the implementation's business: ``MemoryPerUserRows`` holds them,
/// FetchLabScale's `PerUserSpool` writes them to temporary files so that memory stays the same
/// whatever the population. Each row is one user's ``GroupResult`` as the report's JSON encodes it
/// (``OutputJSON/encoder()``).
public protocol PerUserRows: AnyObject, Sendable {
    /// The policies, one row each per user.
    var policies: Int { get }
    /// The users added so far.
    var users: Int { get }
    /// Adds one user's metrics, one per policy (in the policies' order). A failure (a row that
    /// cannot be encoded, a full disk) is kept and thrown by ``finish()``; later users are then dropped.
    func add(user: String, metrics: [PolicyMetrics])
    /// Makes every row added readable; throws the first failure met while adding users.
    func finish() throws(SpoolError)
    /// Policy `policy`'s rows, in the order the users were added, each as its encoded JSON
    /// (``finish()`` first); throws when they cannot be read back whole.
    func forEachEncoded(policy: Int, _ body: ([UInt8]) throws -> Void) throws
}

extension PerUserRows {
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
            let marker = PerUserMarker.encoded(policy)
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
                    // The encoder indents no blank line (the inside of an empty array or object).
                    if !line.isEmpty { text += indent + "  " }
                    text += line
                }
                try write(text)
                count += 1
            }
            try write(count == 0 ? "[\n\n" + indent + "]" : "\n" + indent + "]")
            rest = rest[range.upperBound...]
        }
        try write(String(rest))
    }
}

/// What stands for policy `i`'s `per_user` array in a report encoded before the rows are spliced
/// in (``PolicyResult/spooledPerUser``): a string no name can produce (it holds U+0001).
enum PerUserMarker {
    static func marker(_ policy: Int) -> String { "\u{1}per_user:\(policy)\u{1}" }

    /// The marker as the JSON encoder writes it (control characters escaped).
    static func encoded(_ policy: Int) -> String { "\"\\u0001per_user:\(policy)\\u0001\"" }
}

/// The encoder of every `--format json` output (FetchLabReport's `TextFormat.json` starts from it)
/// and of the per-user rows spliced into one, so that a spliced row is the text the report's own
/// encoder makes of it.
public enum OutputJSON {
    /// Pretty-printed, sorted keys, slashes unescaped; a number JSON cannot hold (NaN, ±infinity)
    /// written as the string `"NaN"`, `"Infinity"` or `"-Infinity"`.
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        return encoder
    }
}

/// The encoding of a per-user row, and the shared bookkeeping of ``PerUserRows`` implementations.
public enum PerUserRow {
    /// One user's rows, one per policy, encoded; or why they cannot be.
    public static func encode(user: String, metrics: [PolicyMetrics], policies: Int) -> Result<[[UInt8]], SpoolError> {
        precondition(metrics.count == policies, "one metrics per policy")
        let encoder = OutputJSON.encoder()
        var records: [[UInt8]] = []
        records.reserveCapacity(metrics.count)
        for m in metrics {
            do {
                records.append(Array(try encoder.encode(GroupResult(name: user, metrics: m))))
            } catch {
                return .failure(SpoolError("the metrics of user \(user) cannot be encoded: \(error)"))
            }
        }
        return .success(records)
    }
}

/// What every ``PerUserRows`` keeps besides its rows: the users added, and the first failure,
/// after which later users are dropped.
public struct PerUserTally: Sendable {
    public private(set) var users = 0
    public private(set) var failure: SpoolError? = nil

    public init() {}

    /// The rows to keep of a user's ``PerUserRow/encode(user:metrics:policies:)``: nil once
    /// something failed (that failure kept, the first only).
    public mutating func admit(_ encoded: Result<[[UInt8]], SpoolError>) -> [[UInt8]]? {
        guard failure == nil else { return nil }
        switch encoded {
        case .failure(let problem):
            failure = problem
            return nil
        case .success(let rows):
            users += 1
            return rows
        }
    }

    /// Keeps `problem` unless a failure is kept already.
    public mutating func fail(_ problem: SpoolError) {
        if failure == nil { failure = problem }
    }
}

/// Per-user rows held in memory: what a run uses unless given a spool on disk.
public final class MemoryPerUserRows: PerUserRows {
    private struct State {
        var rows: [[[UInt8]]]
        var tally = PerUserTally()
    }

    public let policies: Int
    private let state: Mutex<State>

    public init(policies: Int) {
        self.policies = policies
        state = Mutex(State(rows: Array(repeating: [], count: policies)))
    }

    public var users: Int { state.withLock { $0.tally.users } }

    public func add(user: String, metrics: [PolicyMetrics]) {
        let encoded = PerUserRow.encode(user: user, metrics: metrics, policies: policies)
        state.withLock { s in
            guard let records = s.tally.admit(encoded) else { return }
            for (i, record) in records.enumerated() { s.rows[i].append(record) }
        }
    }

    public func finish() throws(SpoolError) {
        if let failure = state.withLock({ $0.tally.failure }) { throw failure }
    }

    public func forEachEncoded(policy: Int, _ body: ([UInt8]) throws -> Void) throws {
        for row in state.withLock({ $0.rows[policy] }) { try body(row) }
    }
}

/// Per-user rows that failed: one line.
public struct SpoolError: FetchLabError {
    public enum Code: String, Sendable, Hashable {
        /// The temporary file could not be made, written or read back, or a row could not be encoded.
        case io
    }

    public var code: Code { .io }
    public var message: String
    public var description: String { message }
    public init(_ message: String) { self.message = message }
}
