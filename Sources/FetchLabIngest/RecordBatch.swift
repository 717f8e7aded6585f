import FetchLabCore
import FetchLabResults

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

extension RejectedRow {
    /// The row `bytes`, cut to `maxRawBytes` at a character boundary (NULs shown as ␀).
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
