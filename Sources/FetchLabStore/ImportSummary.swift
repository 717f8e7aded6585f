import FetchLabIngest

/// What one file's import did.
public struct ImportSummary: Sendable, Codable {
    public enum Status: String, Sendable, Codable {
        /// The file's rows were committed.
        case imported
        /// The same content was imported before with the same read options; nothing changed.
        case unchanged
        /// The file was read but none of its rows was accepted (all rejected, or no data rows).
        /// The attempt and its rejects are recorded; it does not count as having imported the
        /// file, so importing it again (with other options) reads it again.
        case nothingAccepted = "nothing_accepted"
    }

    /// New rows written, per table.
    public struct Inserted: Sendable, Codable, Hashable {
        public var usageEvents = 0
        public var contextSamples = 0
        public var contentUpdates = 0

        public init(usageEvents: Int = 0, contextSamples: Int = 0, contentUpdates: Int = 0) {
            self.usageEvents = usageEvents
            self.contextSamples = contextSamples
            self.contentUpdates = contentUpdates
        }

        public var total: Int { usageEvents + contextSamples + contentUpdates }
    }

    public var path: String
    public var status: Status
    /// The `import` row of this import (the earlier one when unchanged).
    public var importID: Int64
    public var format: LogFormat
    public var syntax: String?
    public var compression: String?
    /// Raw bytes read and bytes after decompression.
    public var bytes: Int64
    public var decompressedBytes: Int64
    /// Rows read, accepted, rejected, duplicate (in the file or already stored), excluded and
    /// merged into a session; every row read is one of new, duplicate, rejected, excluded or merged.
    public var counts: ReadCounts
    public var inserted: Inserted
    public var seconds: Double
    /// The first rejects, for the summary (all of them are in the `rejected_row` table).
    public var firstRejects: [RejectedRow]
    /// Users (devices) of the file's context samples with no usage event in the database when
    /// the file was imported, by name: their samples are stored, but no user's replay reads them
    /// (context is matched to launches by user name; `--user` names the user of every row).
    public var unmatchedContextUsers: [String] = []

    /// Rows read per second of wall time.
    public var rowsPerSecond: Double { seconds > 0 ? Double(counts.rows) / seconds : 0 }

    /// Rows read that are none of new, duplicate, rejected, excluded or merged: 0 unless a
    /// reader miscounts (a summary shows them rather than letting rows vanish from the sums).
    public var unaccounted: Int {
        counts.rows + counts.derived
            - (inserted.total + counts.duplicate + counts.rejected + counts.excluded + counts.merged)
    }

    public init(
        path: String, status: Status, importID: Int64, format: LogFormat, syntax: String? = nil,
        compression: String? = nil, bytes: Int64, decompressedBytes: Int64 = 0, counts: ReadCounts = ReadCounts(),
        inserted: Inserted = Inserted(), seconds: Double = 0, firstRejects: [RejectedRow] = []
    ) {
        self.path = path
        self.status = status
        self.importID = importID
        self.format = format
        self.syntax = syntax
        self.compression = compression
        self.bytes = bytes
        self.decompressedBytes = decompressedBytes
        self.counts = counts
        self.inserted = inserted
        self.seconds = seconds
        self.firstRejects = firstRejects
    }

    /// The summary of a stored import.
    init(
        record: ImportRecord, importID: Int64, status: Status, inserted: Inserted, seconds: Double,
        firstRejects: [RejectedRow]
    ) {
        self.init(
            path: record.path, status: status, importID: importID, format: record.logFormat, syntax: record.syntax,
            compression: record.compression, bytes: record.bytes, decompressedBytes: record.decompressedBytes,
            counts: record.counts, inserted: inserted, seconds: seconds, firstRejects: firstRejects)
    }

    /// A file left alone because `earlier` imported the same content with the same read options.
    init(unchanged path: String, earlier: ImportRecord, importID: Int64, seconds: Double) {
        self.init(
            path: path, status: .unchanged, importID: importID, format: earlier.logFormat, syntax: earlier.syntax,
            compression: earlier.compression, bytes: earlier.bytes, decompressedBytes: earlier.decompressedBytes,
            seconds: seconds)
    }
}

extension RejectedRow: Codable {
    enum CodingKeys: String, CodingKey { case line, reason, raw }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            line: try c.decode(Int.self, forKey: .line), reason: try c.decode(String.self, forKey: .reason),
            raw: try c.decode(String.self, forKey: .raw))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(line, forKey: .line)
        try c.encode(reason, forKey: .reason)
        try c.encode(raw, forKey: .raw)
    }
}

/// Where an import is, for a progress bar.
public struct ImportProgress: Sendable {
    public enum Phase: String, Sendable {
        /// Decompressing, parsing and validating; `bytesRead` of `totalBytes` done.
        case reading
        /// Inserting the file's usage events in key order; `stored` of `rows` done.
        case storing
    }

    public var path: String
    public var phase: Phase = .reading
    public var bytesRead: Int64
    public var totalBytes: Int64?
    public var rows: Int
    /// Usage events handed to SQLite so far in the storing phase.
    public var stored = 0
    public var elapsed: Double
}

extension ImportRecord {
    /// The format as the reader named it (the `import.format` column holds its raw value; a value
    /// no reader of this build knows reads as `usage`, the canonical format).
    var logFormat: LogFormat { LogFormat(rawValue: format) ?? .usage }
}
