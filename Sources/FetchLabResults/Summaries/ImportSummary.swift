import FetchLabCore

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

    public init(path: String, phase: Phase = .reading, bytesRead: Int64, totalBytes: Int64?, rows: Int, stored: Int = 0, elapsed: Double) {
        self.path = path
        self.phase = phase
        self.bytesRead = bytesRead
        self.totalBytes = totalBytes
        self.rows = rows
        self.stored = stored
        self.elapsed = elapsed
    }
}
