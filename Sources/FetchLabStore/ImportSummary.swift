import FetchLabCore
import FetchLabIngest
import FetchLabResults

extension ImportSummary {
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

extension ImportRecord {
    /// The format as the reader named it (the `import.format` column holds its raw value; a value
    /// no reader of this build knows reads as `usage`, the canonical format).
    var logFormat: LogFormat { LogFormat(rawValue: format) ?? .usage }
}
