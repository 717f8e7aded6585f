import FetchLabCore

/// A device-context sample as read, with where it came from (for reporting a conflict with a
/// sample already stored). Usage events and content updates travel as Core's `UsageEvent` and
/// `ContentUpdate`, their names replaced by the reader's name ids.
public struct ContextRow: Sendable, Hashable {
    public var sample: ContextSample
    /// Line in the file.
    public var line: Int
    public var raw: String?

    public init(sample: ContextSample, line: Int, raw: String?) {
        self.sample = sample
        self.line = line
        self.raw = raw
    }
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
    /// Of the rejected rows, those whose timestamp is a placeholder within a day of epoch 0 (1970-01-01).
    public var placeholders = 0
    /// Rows dropped as exact duplicates inside the file (foreground logs).
    public var duplicate = 0
    /// Valid rows skipped on purpose (`--exclude`, non-usage LSApp events).
    public var excluded = 0
    /// Of the excluded rows, those of system apps (``ReadOptions/systemApps``) dropped by default.
    public var systemApps = 0
    public var merged = 0
    /// Records a row gave beyond its first (the close event a row's duration adds): they count
    /// in the sums of new, duplicate and excluded records without being rows of their own.
    public var derived = 0
    /// Lines that are not events (`dumpsys usagestats` tables, section headers); not rows, and
    /// not rejects.
    public var notEvents = 0
    /// Signal events the reader made (unlock, screen on, notification, system UI: never launches),
    /// from rows of their own or derived from a row (a screen turning on in a battery sample).
    public var signals = 0
    /// Of the rows, those read as signals: each made a signal event or was merged into the one
    /// before it (a launcher or system-UI screen polled again within the session gap).
    public var signalRows = 0
    /// Timestamps written without a zone or offset and read as UTC (no `--timezone` given).
    public var readAsUTC = 0

    public init() {}

    public static func += (lhs: inout ReadCounts, rhs: ReadCounts) {
        lhs.rows += rhs.rows
        lhs.accepted += rhs.accepted
        lhs.rejected += rhs.rejected
        lhs.duplicate += rhs.duplicate
        lhs.excluded += rhs.excluded
        lhs.systemApps += rhs.systemApps
        lhs.placeholders += rhs.placeholders
        lhs.merged += rhs.merged
        lhs.derived += rhs.derived
        lhs.notEvents += rhs.notEvents
        lhs.signals += rhs.signals
        lhs.signalRows += rhs.signalRows
        lhs.readAsUTC += rhs.readAsUTC
    }
}

/// What the reader hands the store: records, rejects and the names first seen in this batch.
public struct RecordBatch: Sendable {
    public var usage: [UsageEvent] = []
    public var context: [ContextRow] = []
    public var content: [ContentUpdate] = []
    public var rejects: [RejectedRow] = []
    /// The reader forgot the names of the earlier batches (it keeps at most
    /// ``NameTable/maxNames`` of each kind): user and app ids start again at 0 with this batch,
    /// and ids of earlier batches no longer mean the same names. A name seen again gets a new id
    /// and comes again in `newUsers`/`newApps`.
    public var restartsNames = false
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
