import FetchLabCore
import FetchLabIngest
import FetchLabResults
import GRDB

/// One row of the `import` table: a file read into the database, with what came of it.
///
/// The importer inserts it when a file starts and updates it when the file's rows are stored, in
/// the same transaction. The bulk rows themselves (events, samples, updates) do not go through
/// records: `BatchWriter` binds them to prepared statements.
public struct ImportRecord: Sendable, Hashable {
    /// Nil until inserted.
    public var id: Int64?
    /// The file as named on the command line (`-` for standard input).
    public var path: String
    /// SHA-256 of the raw bytes (hex); empty until the file is read.
    public var contentSHA256: String
    public var format: String
    public var syntax: String?
    public var compression: String?
    /// Raw bytes read and bytes after decompression.
    public var bytes: Int64
    public var decompressedBytes: Int64
    /// Rows read, accepted, rejected, duplicate, excluded and merged into sessions.
    public var counts: ReadCounts
    /// New records written (all tables).
    public var recordsInserted: Int
    /// The read options, as JSON, for people; once the import finished, also how many rows of
    /// system apps it dropped (`system_app_rows_dropped`, when any).
    public var options: String
    /// `ReadFingerprint` of the options that change what is read; nil for imports made before
    /// it was recorded (schema v3), which therefore never count as "the same import".
    public var readFingerprint: String?
    /// ISO-8601 UTC instants.
    public var startedAt: String
    public var finishedAt: String?

    public init(
        id: Int64? = nil, path: String, contentSHA256: String = "", format: String, syntax: String? = nil,
        compression: String? = nil, bytes: Int64 = 0, decompressedBytes: Int64 = 0, counts: ReadCounts = ReadCounts(),
        recordsInserted: Int = 0, options: String = "{}", readFingerprint: String? = nil, startedAt: String,
        finishedAt: String? = nil
    ) {
        self.id = id
        self.path = path
        self.contentSHA256 = contentSHA256
        self.format = format
        self.syntax = syntax
        self.compression = compression
        self.bytes = bytes
        self.decompressedBytes = decompressedBytes
        self.counts = counts
        self.recordsInserted = recordsInserted
        self.options = options
        self.readFingerprint = readFingerprint
        self.startedAt = startedAt
        self.finishedAt = finishedAt
    }
}

extension ImportRecord: FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "import"

    public enum Columns {
        public static let id = Column("id")
        public static let path = Column("path")
        public static let contentSHA256 = Column("content_sha256")
        public static let format = Column("format")
        public static let syntax = Column("syntax")
        public static let compression = Column("compression")
        public static let bytes = Column("bytes")
        public static let decompressedBytes = Column("decompressed_bytes")
        public static let rowsRead = Column("rows_read")
        public static let rowsAccepted = Column("rows_accepted")
        public static let rowsRejected = Column("rows_rejected")
        public static let rowsDuplicate = Column("rows_duplicate")
        public static let rowsExcluded = Column("rows_excluded")
        public static let rowsMerged = Column("rows_merged")
        public static let recordsInserted = Column("records_inserted")
        public static let options = Column("options")
        public static let readFingerprint = Column("read_fingerprint")
        public static let startedAt = Column("started_at")
        public static let finishedAt = Column("finished_at")
    }

    public init(row: Row) throws {
        id = row[Columns.id]
        path = row[Columns.path]
        contentSHA256 = row[Columns.contentSHA256]
        format = row[Columns.format]
        syntax = row[Columns.syntax]
        compression = row[Columns.compression]
        bytes = row[Columns.bytes]
        decompressedBytes = row[Columns.decompressedBytes]
        counts = ReadCounts()
        counts.rows = row[Columns.rowsRead]
        counts.accepted = row[Columns.rowsAccepted]
        counts.rejected = row[Columns.rowsRejected]
        counts.duplicate = row[Columns.rowsDuplicate]
        counts.excluded = row[Columns.rowsExcluded]
        counts.merged = row[Columns.rowsMerged]
        recordsInserted = row[Columns.recordsInserted]
        options = row[Columns.options]
        // Kept in the options (no column of its own): the system apps' share of the excluded rows.
        if options.contains(ReadFingerprint.systemAppRowsKey) {
            counts.systemApps = ReadFingerprint.value(ReadFingerprint.systemAppRowsKey, in: options).flatMap { Int($0) } ?? 0
        }
        readFingerprint = row[Columns.readFingerprint]
        startedAt = row[Columns.startedAt]
        finishedAt = row[Columns.finishedAt]
    }

    public func encode(to container: inout PersistenceContainer) throws {
        container[Columns.id] = id
        container[Columns.path] = path
        container[Columns.contentSHA256] = contentSHA256
        container[Columns.format] = format
        container[Columns.syntax] = syntax
        container[Columns.compression] = compression
        container[Columns.bytes] = bytes
        container[Columns.decompressedBytes] = decompressedBytes
        container[Columns.rowsRead] = counts.rows
        container[Columns.rowsAccepted] = counts.accepted
        container[Columns.rowsRejected] = counts.rejected
        container[Columns.rowsDuplicate] = counts.duplicate
        container[Columns.rowsExcluded] = counts.excluded
        container[Columns.rowsMerged] = counts.merged
        container[Columns.recordsInserted] = recordsInserted
        container[Columns.options] = options
        container[Columns.readFingerprint] = readFingerprint
        container[Columns.startedAt] = startedAt
        container[Columns.finishedAt] = finishedAt
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

/// One row of the `rejected_row` table: a row of an imported file that could not be read.
///
/// Read back with records; written by `BatchWriter`'s prepared statement (a file may have
/// millions of rejects, e.g. every row of a file read with the wrong `--epoch-unit`).
public struct RejectedRowRecord: Sendable, Hashable {
    public var id: Int64?
    public var importID: Int64
    /// Line in the decompressed file.
    public var line: Int
    public var reason: String
    /// The row as written, cut to `RejectedRow.maxRawBytes` (FetchLabIngest).
    public var raw: String

    public init(id: Int64? = nil, importID: Int64, line: Int, reason: String, raw: String) {
        self.id = id
        self.importID = importID
        self.line = line
        self.reason = reason
        self.raw = raw
    }

    /// The reject as the reader reported it.
    public var rejectedRow: RejectedRow { RejectedRow(line: line, reason: reason, raw: raw) }
}

extension RejectedRowRecord: Codable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "rejected_row"

    enum CodingKeys: String, CodingKey {
        case id, line, reason, raw
        case importID = "import_id"
    }

    public enum Columns {
        public static let id = Column(CodingKeys.id)
        public static let importID = Column(CodingKeys.importID)
        public static let line = Column(CodingKeys.line)
        public static let reason = Column(CodingKeys.reason)
        public static let raw = Column(CodingKeys.raw)
    }
}
