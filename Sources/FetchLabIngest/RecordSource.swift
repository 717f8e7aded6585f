import FetchLabResults
import Foundation

/// Something that reads one input file and hands its records to the store in batches: the
/// line-based ``LogReader`` or the SQLite ``KnowledgeStoreReader``.
///
/// Used by one thread at a time. ``contentSHA256`` is complete once ``nextBatch()`` has returned nil.
public protocol RecordSource: AnyObject {
    /// The format read.
    var format: LogFormat { get }
    /// For FetchLab's own formats: CSV, TSV or JSON Lines; nil otherwise.
    var syntax: RowSyntax? { get }
    /// Compression detected from the bytes.
    var compression: CompressionFormat? { get }
    /// Raw bytes read so far (for progress), and the total when known.
    var inputBytesRead: Int64 { get }
    var totalBytes: Int64? { get }
    var decompressedBytes: Int64 { get }
    /// SHA-256 of the input's raw bytes (lower-case hex).
    var contentSHA256: String { get }
    /// The next batch of records, or nil when the file is done.
    func nextBatch() throws(IngestError) -> RecordBatch?
}

/// Opens `path` (`-` for standard input) with the reader its bytes call for: a Knowledge store
/// (`knowledgeC.db`, plain or gzip'd SQLite) or a log file of lines.
public func openRecordSource(path: String, options: ReadOptions = ReadOptions()) throws(IngestError)
    -> any RecordSource
{
    if path != "-", !options.rawDeflate, options.format == nil || options.format == .knowledgeC {
        switch KnowledgeStoreReader.sniff(path, options: options) {
        case .sqlite: return try KnowledgeStoreReader(path: path, options: options)
        case .gzippedSQLite: return try KnowledgeStoreReader(gzipped: path, options: options)
        case .other: break
        }
    }
    return try LogReader(path: path, options: options)
}
