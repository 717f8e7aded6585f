import FetchLabCore
import FetchLabResults
import Foundation

/// Reads one log file of any supported format and hands its records to the store in batches.
///
/// The reader detects the compression from the bytes and the format from the first line
/// (`FormatDetection`), validates every row, and turns bad rows into `RejectedRow`s (or, in
/// strict mode, throws at the first one). Memory stays bounded by the batch size, whatever the file
/// size. This type is the driver shared by the formats — lines, quoted records that span lines,
/// blank and repeated header lines, rejects, name tables, batches; what a row means is each
/// format's own (`Formats/`): a `DelimitedFormat` per row, or a `LineFormat` (a format with
/// state across lines) per line, which the reader asks instead of testing which format it reads.
public final class LogReader: RecordSource {
    /// The file as the user named it.
    public let source: String
    public let format: LogFormat
    /// For FetchLab's own formats: CSV, TSV or JSON Lines.
    public let syntax: RowSyntax?
    /// The header as read (empty for headerless formats).
    public let header: [String]
    public let options: ReadOptions

    private let input: DecompressingReader
    private let lines: LineReader
    /// The batch being filled, the name tables and the checks the formats share.
    private var sink: RecordSink
    /// The state of a format read line by line (`LogFormat.lineFormat`); nil for delimited
    /// formats. Tests put a format of their own here.
    var lineFormat: (any LineFormat)?
    /// Whether the last line added to `quoted` ended with a carriage return.
    private var quotedEndsWithCR = false
    /// Names (of each kind) and bytes of names kept before the name tables start again
    /// (``RecordBatch/restartsNames``); tests lower them.
    var maxNamesKept = NameTable.maxNames
    var maxNameBytesKept = NameTable.maxBytes
    private var splitter: FieldSplitter
    private var json = JSONLineParser()
    private var jsonFields: [UnsafeRawBufferPointer] = []
    /// The header line's bytes: when files are concatenated (`cat a.csv.gz b.csv.gz`), their
    /// headers recur inside the stream and are skipped, not rejected.
    private var headerLine: [UInt8] = []
    /// A record inside a quoted field that spans lines, and its first line's number.
    private var quoted: [UInt8] = []
    private var quotedStart = 0
    /// The column of each field, indexed by `Field.ordinal` (-1: none): no hashing per field per row.
    private var columns = [Int](repeating: -1, count: Field.allCases.count)
    private var columnCount = 0
    private var firstDataLine: [UInt8]?
    private var finished = false

    /// Foreground logs: how many samples may wait for `--reorder-window` at once before the file
    /// fails (``ForegroundFormat/defaultMaxPending``; tests lower it).
    var maxPendingForegroundSamples: Int {
        get { (lineFormat as? ForegroundFormat)?.maxPending ?? ForegroundFormat.defaultMaxPending }
        set {
            guard var foreground = lineFormat as? ForegroundFormat else { return }
            foreground.maxPending = max(1, newValue)
            lineFormat = foreground
        }
    }

    /// Compression detected from the bytes.
    public var compression: CompressionFormat? { input.format }
    /// Raw bytes read so far, and the total when known (for progress).
    public var inputBytesRead: Int64 { input.compressedBytesRead }
    public var totalBytes: Int64? { input.totalBytes }
    public var decompressedBytes: Int64 { input.decompressedBytes }
    /// SHA-256 of the raw bytes; complete once ``nextBatch()`` has returned nil.
    public var contentSHA256: String { input.contentSHA256Hex }

    /// Opens `path` (`-` for standard input) and reads its first line to learn the format.
    public convenience init(path: String, options: ReadOptions = ReadOptions()) throws(IngestError) {
        let input = try DecompressingReader(path: path, rawDeflate: options.rawDeflate)
        input.maxRatio = options.maxRatio
        input.maxDecompressedBytes = options.maxDecompressedBytes
        try self.init(input: input, source: path, options: options)
    }

    /// Reads from an open ``DecompressingReader``; `source` names the input in errors.
    public init(input: DecompressingReader, source: String, options: ReadOptions) throws(IngestError) {
        self.input = input
        self.source = source
        self.options = options
        self.lines = LineReader(input: input)
        self.sink = RecordSink(options: options)
        if options.format == .knowledgeC {
            throw IngestError(
                .format, source: source,
                message:
                    "not a SQLite database, so not a Knowledge store (knowledgeC.db): drop --input-format knowledgec")
        }

        // The first non-blank line: a header, or data for headerless formats.
        var first: [UInt8] = []
        while true {
            guard let line = try lines.nextLine({ Array($0) }) else { break }
            var bytes = line
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
            if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            first = bytes
            break
        }

        let detected =
            first.isEmpty
            ? FormatDetection.Detected(
                format: options.format ?? .usage, syntax: nil, header: [], firstLineIsData: false)
            : try FormatDetection.detect(first, options: options, source: source)
        format = detected.format
        syntax = detected.syntax
        header = detected.header
        if detected.firstLineIsData { firstDataLine = first } else if syntax != .jsonLines { headerLine = first }
        splitter = FieldSplitter(delimiter: syntax == .tsv || format == .lsapp ? 0x09 : 0x2C)
        let lineFormatType = format.lineFormat
        lineFormat = lineFormatType.map { $0.init(options: options, source: source) }

        if options.dropsSystemApps(format) { sink.dropSystemApps() }
        if let user = options.user {
            sink.fixUser(user)
        } else if let user = try lineFormatType?.fileUser(source: source) {
            sink.fixUser(user)
        }
        if !header.isEmpty {
            columnCount = header.count
            columns = try FormatDetection.bindColumns(header, format: format, options: options, source: source)
        }
    }

    deinit {
        splitter.deallocate()
        json.deallocate()
    }

    /// The user a headerless file stands for: its name without directories and extensions.
    public static func userName(fromPath path: String) -> String {
        var name = String(path.split(separator: "/").last ?? Substring(path))
        let extensions = [".gz", ".gzip", ".z", ".zz", ".zlib", ".deflate", ".csv", ".tsv", ".txt", ".log", ".jsonl"]
        var changed = true
        while changed {
            changed = false
            for ext in extensions where name.lowercased().hasSuffix(ext) && name.count > ext.count {
                name.removeLast(ext.count)
                changed = true
            }
        }
        return name
    }

    // MARK: Reading

    /// The next batch of records, or nil when the file is done.
    public func nextBatch() throws(IngestError) -> RecordBatch? {
        if finished { return nil }
        let restart = namesOverflow
        if restart { restartNames() }
        sink.startBatch(restartsNames: restart)
        if let first = firstDataLine {
            firstDataLine = nil
            try withBytes(of: first) { (line) throws(IngestError) in try handle(line, number: 1) }
        }
        while sink.batch.recordCount + sink.batch.rejects.count < options.batchSize {
            let more = try lines.nextLine { (line) throws(IngestError) -> Bool in
                try self.handle(line, number: self.lines.lineNumber)
                return true
            }
            if more == nil {
                try finishQuoted()
                lineFormat?.finish(into: &sink)
                finished = true
                break
            }
        }
        return sink.takeBatch(inputBytesRead: input.compressedBytesRead, finished: finished)
    }

    /// Whether the name tables hold more than the reader keeps. A line format's state may hold ids
    /// (foreground samples waiting for the reorder window, a dump's per-user state): the tables
    /// start again only when it says they may.
    private var namesOverflow: Bool {
        let users = sink.users, apps = sink.apps
        guard
            users.count > maxNamesKept || apps.count > maxNamesKept
                || users.byteCount + apps.byteCount > maxNameBytesKept
        else { return false }
        return lineFormat?.namesMayRestart ?? true
    }

    /// Forgets every name (between batches): the next batch's ids start again at 0. A fresh sink
    /// also forgets which app ids `--exclude` and the system apps matched.
    private func restartNames() {
        let fixedUser = sink.fixedUser.map { sink.users.name($0) }
        var users = sink.users
        var apps = sink.apps
        sink.users = NameTable()
        sink.apps = NameTable()
        users.removeAll()
        apps.removeAll()
        sink = RecordSink(options: options)
        if options.dropsSystemApps(format) { sink.dropSystemApps() }
        sink.users = users
        sink.apps = apps
        if let fixedUser { sink.fixUser(fixedUser) }
    }

    @inline(__always)
    private func handle(_ line: UnsafeRawBufferPointer, number: Int) throws(IngestError) {
        if !quoted.isEmpty {
            try continueQuoted(line)
            return
        }
        if isBlank(line) { return }
        if line.count >= headerLine.count, !headerLine.isEmpty, isRepeatedHeader(line) { return }
        if lineFormat?.everyLineIsARow ?? true { sink.batch.counts.rows += 1 }
        do {
            if lineFormat != nil {
                try lineFormat?.decode(line, line: number, unterminated: lines.lastLineUnterminated, into: &sink)
            } else {
                try readRecord(line, number: number)
            }
        } catch {
            if let failure = lineFormat?.failure {
                throw IngestError(.usage, source: source, line: number, message: failure)
            }
            if error.isUnclosedQuote && lineFormat == nil && syntax != .jsonLines {
                // Perhaps a quoted field with a line break: read on before deciding.
                quoted = Array(line)
                quotedStart = number
                quotedEndsWithCR = lines.lastLineEndedWithCR
                return
            }
            try reject(error.reason, line: line, number: number)
        }
    }

    /// Splits a delimited record (CSV, TSV or JSON Lines) into fields and has the format read it.
    @inline(__always)
    private func readRecord(_ line: UnsafeRawBufferPointer, number: Int) throws(RowProblem) {
        if let base = line.baseAddress, memchr(base, 0, line.count) != nil {
            throw RowProblem("line contains NUL bytes (binary data?)")
        }
        let fields: [UnsafeRawBufferPointer]
        if syntax == .jsonLines {
            if let problem = json.parse(line) { throw RowProblem("JSON Lines: \(problem)") }
            jsonFields.removeAll(keepingCapacity: true)
            for _ in 0..<columnCount { jsonFields.append(UnsafeRawBufferPointer(start: nil, count: 0)) }
            for (k, key) in json.keys.enumerated() {
                if let index = header.firstIndex(where: { $0.utf8.elementsEqual(key) }) {
                    jsonFields[index] = json.values[k]
                }
            }
            fields = jsonFields
        } else {
            guard splitter.split(line) else { throw RowProblem.unclosedQuote }
            let found = splitter.fields.count
            if found != columnCount {
                let glued = columnCount >= 4 && found >= 2 * columnCount - 1 ? " (two lines run together?)" : ""
                throw RowProblem("expected \(columnCount) fields, found \(found)\(glued)")
            }
            fields = splitter.fields
        }
        try format.decode(Row(fields: fields, columns: columns, raw: line, line: number), into: &sink)
    }

    private func isRepeatedHeader(_ line: UnsafeRawBufferPointer) -> Bool {
        let body = line.starts(with: [0xEF, 0xBB, 0xBF]) ? UnsafeRawBufferPointer(rebasing: line[3...]) : line
        return body.count == headerLine.count && body.elementsEqual(headerLine)
    }

    @inline(__always)
    private func isBlank(_ line: UnsafeRawBufferPointer) -> Bool {
        for b in line where b != 0x20 && b != 0x09 { return false }
        return true
    }

    // MARK: Quoted fields that span lines

    /// A quoted field may hold line breaks (RFC 4180): at most this many bytes of one record.
    static let maxQuotedRecordBytes = 1 << 20

    /// Continues a record whose quoted field spans lines.
    private func continueQuoted(_ line: UnsafeRawBufferPointer) throws(IngestError) {
        // The line break inside the quoted field as the file wrote it: CRLF or LF.
        if quotedEndsWithCR { quoted.append(0x0D) }
        quoted.append(0x0A)
        quoted.append(contentsOf: line)
        quotedEndsWithCR = lines.lastLineEndedWithCR
        let start = quotedStart
        let record = quoted
        if quoted.count > Self.maxQuotedRecordBytes {
            quoted = []
            try withBytes(of: record) { (bytes) throws(IngestError) in
                try reject(
                    "unclosed quote: no closing \" within \(Self.maxQuotedRecordBytes) bytes", line: bytes,
                    number: start)
            }
            return
        }
        try withBytes(of: record) { (bytes) throws(IngestError) in
            do throws(RowProblem) {
                try readRecord(bytes, number: start)
                quoted = []
            } catch {
                if error.isUnclosedQuote { return }  // the field goes on
                quoted = []
                try reject(error.reason, line: bytes, number: start)
            }
        }
    }

    /// At the end of the input, a record still inside a quoted field is a reject.
    private func finishQuoted() throws(IngestError) {
        guard !quoted.isEmpty else { return }
        let record = quoted
        quoted = []
        try withBytes(of: record) { (bytes) throws(IngestError) in
            try reject("unclosed quote (the file ends inside a quoted field)", line: bytes, number: quotedStart)
        }
    }

    private func reject(_ reason: String, line: UnsafeRawBufferPointer, number: Int) throws(IngestError) {
        if options.strict {
            throw IngestError(.malformedRow, source: source, line: number, message: reason)
        }
        sink.batch.counts.rejected += 1
        sink.batch.rejects.append(RejectedRow(line: number, reason: reason, bytes: line))
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
