import FetchLabIngest

/// What one file's import did.
public struct ImportSummary: Sendable, Codable {
    public enum Status: String, Sendable, Codable {
        /// The file's rows were committed.
        case imported
        /// The same content was imported before; nothing changed.
        case unchanged
    }

    /// New rows written, per table.
    public struct Inserted: Sendable, Codable, Hashable {
        public var usageEvents = 0
        public var contextSamples = 0
        public var contentUpdates = 0
        public var total: Int { usageEvents + contextSamples + contentUpdates }
    }

    public var path: String
    public var status: Status
    /// The `import` row of this import (the earlier one when unchanged).
    public var importID: Int64
    public var format: String
    public var syntax: String?
    public var compression: String?
    /// Raw bytes read and bytes after decompression.
    public var bytes: Int64
    public var decompressedBytes: Int64
    /// Rows read, accepted, rejected, duplicate (in the file or already stored), excluded.
    public var counts: ReadCounts
    public var inserted: Inserted
    public var seconds: Double
    /// The first rejects, for the summary (all of them are in the `rejected_row` table).
    public var firstRejects: [RejectedRow]

    /// Rows read per second of wall time.
    public var rowsPerSecond: Double { seconds > 0 ? Double(counts.rows) / seconds : 0 }
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
