import FetchLabCore

/// A usage event with names replaced by the reader's name ids.
public struct UsageRow: Sendable, Hashable {
    public var time: Microseconds
    public var user: Int32
    public var app: Int32
    public var kind: UsageEventKind
    /// `nil` when the log did not say.
    public var utcOffset: Int32?

    public init(time: Microseconds, user: Int32, app: Int32, kind: UsageEventKind, utcOffset: Int32?) {
        self.time = time
        self.user = user
        self.app = app
        self.kind = kind
        self.utcOffset = utcOffset
    }
}

/// A device-context sample with the user replaced by its name id.
public struct ContextRow: Sendable, Hashable {
    public var time: Microseconds
    public var user: Int32
    public var battery: Double?
    public var charging: Bool?
    public var network: NetworkType?
    public var lowPower: Bool?
    public var screenOn: Bool?
    /// Line in the file, for reporting a conflict with an existing sample.
    public var line: Int
    public var raw: String?
}

/// A content update with the app replaced by its name id.
public struct ContentRow: Sendable, Hashable {
    public var time: Microseconds
    public var app: Int32
}

/// A row that could not be read, with the reason.
public struct RejectedRow: Sendable, Hashable {
    public var line: Int
    public var reason: String
    /// The row as written, cut to ``RejectedRow/maxRawBytes``.
    public var raw: String

    public static let maxRawBytes = 1_000

    public init(line: Int, reason: String, raw: String) {
        self.line = line
        self.reason = reason
        self.raw = raw
    }

    init(line: Int, reason: String, bytes: UnsafeRawBufferPointer) {
        let cut = UnsafeRawBufferPointer(rebasing: bytes[0..<min(bytes.count, Self.maxRawBytes)])
        var text = String(decoding: cut, as: UTF8.self)
        if text.utf8.contains(0) { text = text.replacingOccurrences(of: "\0", with: "\u{2400}") }
        // Replacement characters (for invalid bytes and NULs) take more bytes than they replace:
        // cut again, at a character boundary, so that the stored text stays within the limit.
        if text.utf8.count > Self.maxRawBytes {
            var kept = String.UnicodeScalarView()
            var size = 0
            for scalar in text.unicodeScalars {
                size += UTF8.width(scalar)
                if size > Self.maxRawBytes { break }
                kept.append(scalar)
            }
            text = String(kept)
        }
        self.init(line: line, reason: reason, raw: text)
    }
}

/// Counters of what the reader saw.
public struct ReadCounts: Sendable, Hashable, Codable {
    /// Data lines read (the header and blank lines excluded).
    public var rows = 0
    /// Rows that were valid.
    public var accepted = 0
    /// Rows recorded as rejects.
    public var rejected = 0
    /// Rows dropped as exact duplicates inside the file (foreground logs).
    public var duplicate = 0
    /// Valid rows skipped on purpose (`--exclude`, non-usage LSApp events).
    public var excluded = 0

    public init() {}

    public static func += (lhs: inout ReadCounts, rhs: ReadCounts) {
        lhs.rows += rhs.rows
        lhs.accepted += rhs.accepted
        lhs.rejected += rhs.rejected
        lhs.duplicate += rhs.duplicate
        lhs.excluded += rhs.excluded
    }
}

/// What the reader hands the store: records, rejects and the names first seen in this batch.
public struct RecordBatch: Sendable {
    public var usage: [UsageRow] = []
    public var context: [ContextRow] = []
    public var content: [ContentRow] = []
    public var rejects: [RejectedRow] = []
    /// Users first seen in this batch; their ids are `firstNewUser...`.
    public var newUsers: [String] = []
    public var firstNewUser: Int32 = 0
    /// Apps first seen in this batch; their ids are `firstNewApp...`.
    public var newApps: [String] = []
    public var firstNewApp: Int32 = 0
    public var counts = ReadCounts()
    /// Raw input bytes consumed so far (for progress).
    public var inputBytesRead: Int64 = 0

    public init() {}

    public var recordCount: Int { usage.count + context.count + content.count }
}
