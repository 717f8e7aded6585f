import FetchLabCore
import Foundation

/// Reads one log file of any supported format and hands its records to the store in batches.
///
/// The reader detects the compression from the bytes and the format from the first line,
/// validates every row, and turns bad rows into ``RejectedRow``s (or, in strict mode, throws
/// at the first one). Memory stays bounded by the batch size, whatever the file size.
public final class LogReader {
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
    private var users = NameTable()
    private var apps = NameTable()
    private var reportedUsers = 0
    private var reportedApps = 0
    private var timestamps: TimestampParser
    private var splitter: FieldSplitter
    private var json = JSONLineParser()
    private var jsonFields: [UnsafeRawBufferPointer] = []
    /// The header line's bytes: when files are concatenated (`cat a.csv.gz b.csv.gz`), their
    /// headers recur inside the stream and are skipped, not rejected.
    private var headerLine: [UInt8] = []
    /// A record inside a quoted field that spans lines, and its first line's number.
    private var quoted: [UInt8] = []
    private var quotedStart = 0
    private var columns: [Field: Int] = [:] {
        didSet { columnIndex = Field.allCases.map { columns[$0] ?? -1 } }
    }
    /// `columns` as an array indexed by `Field.ordinal`: no hashing per field per row.
    private var columnIndex = [Int](repeating: -1, count: Field.allCases.count)
    private var columnCount = 0
    private var firstDataLine: [UInt8]?
    private let fixedUser: Int32?
    private let excludes: GlobSet
    private var excludedApp: [Int8] = []  // -1 unknown, 0 no, 1 yes
    private var batch = RecordBatch()
    private var finished = false
    // Foreground sessionization state.
    private var pending: [(time: Microseconds, app: Int32, offset: Int32?)] = []
    private var emittedUpTo = Int64.min
    private var lastSample: (time: Microseconds, app: Int32)?
    private var sessionApp: Int32 = -1
    private var sessionLast: Microseconds = .min

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
        self.timestamps = TimestampParser(timeZone: options.timeZone, epochUnit: options.epochUnit)
        self.excludes = GlobSet(options.excludedApps)

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

        let detected: (LogFormat, RowSyntax?, [String], Bool)  // format, syntax, header, first line is data
        if first.isEmpty {
            detected = (options.format ?? .usage, nil, [], false)
        } else {
            detected = try Self.detect(first, forced: options.format, map: options.columnMap, source: source)
        }
        format = detected.0
        syntax = detected.1
        header = detected.2
        if detected.3 { firstDataLine = first } else if syntax != .jsonLines { headerLine = first }
        splitter = FieldSplitter(delimiter: syntax == .tsv || format == .lsapp ? 0x09 : 0x2C)

        if let user = options.user {
            fixedUser = users.id(of: user)
        } else if format == .foreground {
            guard source != "-" else {
                throw IngestError(.usage, source: source, message: "foreground logs name no user: give one with --user")
            }
            fixedUser = users.id(of: Self.userName(fromPath: source))
        } else {
            fixedUser = nil
        }
        if !header.isEmpty { try bindColumns() }
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

    // MARK: Detection

    static func detect(
        _ line: [UInt8], forced: LogFormat?, map: [String: String], source: String
    ) throws(IngestError) -> (LogFormat, RowSyntax?, [String], Bool) {
        let text = String(decoding: line, as: UTF8.self)
        if forced == .foreground || (forced == nil && looksLikeForegroundSample(line)) {
            return (.foreground, nil, [], true)
        }
        let trimmed = text.drop(while: { $0 == " " || $0 == "\t" })
        if trimmed.hasPrefix("{") {
            var parser = JSONLineParser()
            defer { parser.deallocate() }
            let problem = line.withUnsafeBytes { parser.parse($0) }
            if let problem {
                throw IngestError(.format, source: source, line: 1, message: "JSON Lines: \(problem)")
            }
            let keys = parser.keys.map { String(decoding: $0, as: UTF8.self) }
            let format = try classify(keys, forced: forced, map: map, source: source)
            return (format, .jsonLines, keys, true)
        }
        let tab = text.contains("\t")
        let header = text.split(separator: tab ? "\t" : ",", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: CharacterSet(charactersIn: " \"'"))
        }
        // LSApp files may come without a header: five tab-separated fields ending in an event.
        if tab, header.count == 5, ["opened", "closed", "user_interaction", "broken"].contains(header[4].lowercased()),
            forced == nil || forced == .lsapp
        {
            return (.lsapp, .tsv, ["user_id", "session_id", "timestamp", "app_name", "event_type"], true)
        }
        let format = try classify(header, forced: forced, map: map, source: source)
        return (format, tab ? .tsv : .csv, header, false)
    }

    static func looksLikeForegroundSample(_ line: [UInt8]) -> Bool {
        // `YYYY-MM-DD HH:MM…,package` with exactly one comma.
        var bytes = line[...]
        while let b = bytes.first, b == 0x20 || b == 0x09 || b == 0 { bytes.removeFirst() }
        guard bytes.count >= 18 else { return false }
        let b = Array(bytes.prefix(11))
        let digits = [0, 1, 2, 3, 5, 6, 8, 9]
        guard digits.allSatisfy({ b[$0] >= 0x30 && b[$0] <= 0x39 }), b[4] == 0x2D, b[7] == 0x2D,
            b[10] == 0x20 || b[10] == UInt8(ascii: "T")
        else { return false }
        return bytes.filter { $0 == 0x2C }.count == 1
    }

    static func classify(
        _ header: [String], forced: LogFormat?, map: [String: String], source: String
    ) throws(IngestError) -> LogFormat {
        let lower = Set(header.map { (map[$0] ?? $0).lowercased() })
        if forced == .battery || (forced == nil && lower.isSuperset(of: ["id", "level", "status", "timestamp"])) {
            return .battery
        }
        if forced == .lsapp
            || (forced == nil && lower.isSuperset(of: ["user_id", "app_name", "event_type", "timestamp"]))
        {
            return .lsapp
        }
        let fields = Set(header.compactMap { Field.canonical(map[$0] ?? $0) })
        if let forced { return forced }
        guard fields.contains(.timestamp) else {
            throw IngestError(
                .format, source: source, line: 1,
                message: "header \"\(header.joined(separator: ",").prefix(120))\" has no timestamp column; "
                    + "expected a FetchLab header (timestamp,user,app[,event] / timestamp,user,battery,… / timestamp,app), "
                    + "an Android battery-sampler or LSApp header, or a foreground log line (use --map or --format)")
        }
        if fields.contains(.user) && fields.contains(.app) { return .usage }
        if fields.contains(.user) && !fields.isDisjoint(with: [.battery, .charging, .network, .lowPower, .screenOn]) {
            return .context
        }
        if fields.contains(.app) { return .content }
        throw IngestError(
            .format, source: source, line: 1,
            message:
                "header \"\(header.joined(separator: ",").prefix(120))\" names neither an app nor device-context columns"
        )
    }

    private func bindColumns() throws(IngestError) {
        columnCount = header.count
        for (index, name) in header.enumerated() {
            let mapped = options.columnMap[name] ?? name
            let field: Field?
            switch format {
            case .battery:
                switch mapped.lowercased() {
                case "id": field = .user
                case "level": field = .battery
                case "status": field = .charging
                case "wifi": field = .network
                case "isinteractive": field = .screenOn
                case "timestamp": field = .timestamp
                default: field = nil
                }
                if mapped.lowercased() == "cellular" { cellularColumn = index }
            case .lsapp:
                switch mapped.lowercased() {
                case "user_id": field = .user
                case "timestamp": field = .timestamp
                case "app_name": field = .app
                case "event_type": field = .event
                default: field = nil
                }
            default:
                field = Field.canonical(mapped)
            }
            if let field, columns[field] == nil { columns[field] = index }
        }
        var required: [Field] = [.timestamp]
        switch format {
        case .usage, .lsapp: required += [.app] + (fixedUser == nil ? [.user] : [])
        case .context, .battery: required += fixedUser == nil ? [.user] : []
        case .content: required += [.app]
        case .foreground: break
        }
        let missing = required.filter { columns[$0] == nil }
        if !missing.isEmpty {
            throw IngestError(
                .format, source: source, line: 1,
                message: "\(format.rawValue) header lacks \(missing.map(\.rawValue).joined(separator: ", ")) "
                    + "(header: \(header.joined(separator: ",").prefix(120)); use --map COLUMN=FIELD")
        }
    }

    private var cellularColumn: Int?

    // MARK: Reading

    /// The next batch of records, or nil when the file is done.
    public func nextBatch() throws(IngestError) -> RecordBatch? {
        if finished { return nil }
        batch = RecordBatch()
        batch.firstNewUser = Int32(reportedUsers)
        batch.firstNewApp = Int32(reportedApps)
        if let first = firstDataLine {
            firstDataLine = nil
            try withBytes(of: first) { (line) throws(IngestError) in try handle(line, number: 1) }
        }
        while batch.recordCount + batch.rejects.count < options.batchSize {
            let more = try lines.nextLine { (line) throws(IngestError) -> Bool in
                try self.handle(line, number: self.lines.lineNumber)
                return true
            }
            if more == nil {
                try finishQuoted()
                if format == .foreground { flushForeground(final: true) }
                finished = true
                break
            }
        }
        for id in reportedUsers..<users.count { batch.newUsers.append(users.name(Int32(id))) }
        reportedUsers = users.count
        for id in reportedApps..<apps.count { batch.newApps.append(apps.name(Int32(id))) }
        reportedApps = apps.count
        batch.inputBytesRead = input.compressedBytesRead
        if finished && batch.recordCount == 0 && batch.rejects.isEmpty && batch.counts == ReadCounts()
            && batch.newUsers.isEmpty && batch.newApps.isEmpty
        {
            return nil
        }
        return batch
    }

    private func isRepeatedHeader(_ line: UnsafeRawBufferPointer) -> Bool {
        let body = line.starts(with: [0xEF, 0xBB, 0xBF]) ? UnsafeRawBufferPointer(rebasing: line[3...]) : line
        return body.count == headerLine.count && body.elementsEqual(headerLine)
    }

    static let unclosedQuote = "unclosed quote"
    /// User and app names longer than this are rejected (they are identifiers, not content).
    static let maxNameBytes = 1024
    /// A quoted field may hold line breaks (RFC 4180): at most this many bytes of one record.
    static let maxQuotedRecordBytes = 1 << 20

    /// Continues a record whose quoted field spans lines.
    private func continueQuoted(_ line: UnsafeRawBufferPointer) throws(IngestError) {
        quoted.append(0x0A)
        quoted.append(contentsOf: line)
        if quoted.count > Self.maxQuotedRecordBytes {
            let start = quotedStart
            let record = quoted
            quoted = []
            try withBytes(of: record) { (bytes) throws(IngestError) in
                try reject(
                    "unclosed quote: no closing \" within \(Self.maxQuotedRecordBytes) bytes", line: bytes,
                    number: start)
            }
            return
        }
        let record = quoted
        let problem = record.withUnsafeBytes { bytes in readDelimited(bytes) }
        if problem == Self.unclosedQuote { return }  // the field goes on
        quoted = []
        if let problem {
            try withBytes(of: record) { (bytes) throws(IngestError) in
                try reject(problem, line: bytes, number: quotedStart)
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

    @inline(__always)
    private func handle(_ line: UnsafeRawBufferPointer, number: Int) throws(IngestError) {
        if !quoted.isEmpty {
            try continueQuoted(line)
            return
        }
        if isBlank(line) { return }
        if line.count >= headerLine.count, !headerLine.isEmpty, isRepeatedHeader(line) { return }
        batch.counts.rows += 1
        let problem: String?
        switch format {
        case .foreground: problem = readForeground(line)
        default: problem = readDelimited(line)
        }
        if problem == Self.unclosedQuote && format != .foreground && syntax != .jsonLines {
            // Perhaps a quoted field with a line break: read on before deciding.
            quoted = Array(line)
            quotedStart = number
            return
        }
        if let problem { try reject(problem, line: line, number: number) }
    }

    private func reject(_ reason: String, line: UnsafeRawBufferPointer, number: Int) throws(IngestError) {
        if options.strict {
            throw IngestError(.malformedRow, source: source, line: number, message: reason)
        }
        batch.counts.rejected += 1
        batch.rejects.append(RejectedRow(line: number, reason: reason, bytes: line))
    }

    @inline(__always)
    private func isBlank(_ line: UnsafeRawBufferPointer) -> Bool {
        for b in line where b != 0x20 && b != 0x09 { return false }
        return true
    }

    private func isExcluded(_ app: Int32) -> Bool {
        if excludes.isEmpty { return false }
        let index = Int(app)
        while excludedApp.count <= index { excludedApp.append(-1) }
        if excludedApp[index] < 0 { excludedApp[index] = excludes.matches(apps.name(app)) ? 1 : 0 }
        return excludedApp[index] == 1
    }

    @inline(__always)
    private func time(_ field: UnsafeRawBufferPointer) -> Result<ParsedTimestamp, TimestampError> {
        let ts: ParsedTimestamp
        do { ts = try timestamps.parse(field) } catch { return .failure(error) }
        if ts.microseconds < options.earliest || ts.microseconds >= options.latest {
            let text = String(decoding: field.prefix(40), as: UTF8.self)
            return .failure(
                TimestampError(
                    message:
                        "timestamp \"\(text)\" is outside \(Self.isoDate(options.earliest))..\(Self.isoDate(options.latest))"
                        + " (a placeholder?); change the range with --earliest/--latest"))
        }
        return .success(ts)
    }

    static func isoDate(_ us: Microseconds) -> String {
        let date = Date(timeIntervalSince1970: Double(us) / 1e6)
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withFullDate]
        return f.string(from: date)
    }

    // MARK: FetchLab, battery-sampler and LSApp rows

    /// The event names FetchLab writes, compared as bytes (the common case, no String made).
    @inline(__always)
    private static func canonicalKind(_ b: UnsafeRawBufferPointer) -> UsageEventKind? {
        switch b.count {
        case 6 where b.elementsEqual("launch".utf8): return .launch
        case 5 where b.elementsEqual("close".utf8): return .close
        case 10 where b.elementsEqual("force_quit".utf8): return .forceQuit
        case 11 where b.elementsEqual("refresh_off".utf8): return .refreshOff
        case 10 where b.elementsEqual("refresh_on".utf8): return .refreshOn
        default: return nil
        }
    }

    private func field(_ f: Field, _ fields: [UnsafeRawBufferPointer]) -> UnsafeRawBufferPointer? {
        let index = columnIndex[f.ordinal]
        guard index >= 0, index < fields.count else { return nil }
        return trim(fields[index])
    }

    private func readDelimited(_ line: UnsafeRawBufferPointer) -> String? {
        if let base = line.baseAddress, memchr(base, 0, line.count) != nil {
            return "line contains NUL bytes (binary data?)"
        }
        let fields: [UnsafeRawBufferPointer]
        if syntax == .jsonLines {
            if let problem = json.parse(line) { return "JSON Lines: \(problem)" }
            jsonFields.removeAll(keepingCapacity: true)
            for _ in 0..<columnCount { jsonFields.append(UnsafeRawBufferPointer(start: nil, count: 0)) }
            for (k, key) in json.keys.enumerated() {
                if let index = header.firstIndex(where: { $0.utf8.elementsEqual(key) }) {
                    jsonFields[index] = json.values[k]
                }
            }
            fields = jsonFields
        } else {
            guard splitter.split(line) else { return Self.unclosedQuote }
            if splitter.fields.count != columnCount {
                let glued =
                    columnCount >= 4 && splitter.fields.count >= 2 * columnCount - 1 ? " (two lines run together?)" : ""
                return "expected \(columnCount) fields, found \(splitter.fields.count)\(glued)"
            }
            fields = splitter.fields
        }
        guard let tsField = field(.timestamp, fields), tsField.count > 0 else { return "empty timestamp" }
        let ts: ParsedTimestamp
        switch time(tsField) {
        case .success(let t): ts = t
        case .failure(let e): return e.message
        }

        var user: Int32 = 0
        if format != .content {
            if let fixedUser {
                user = fixedUser
            } else {
                guard let u = field(.user, fields), u.count > 0 else { return "empty user" }
                guard u.count <= Self.maxNameBytes else { return "user name longer than \(Self.maxNameBytes) bytes" }
                guard let id = users.validID(of: u) else { return "user name is not valid UTF-8" }
                user = id
            }
        }

        switch format {
        case .usage, .lsapp:
            guard let a = field(.app, fields), a.count > 0 else { return "empty app" }
            var kind = UsageEventKind.launch
            if let e = field(.event, fields), e.count > 0 {
                if format == .usage, let k = Self.canonicalKind(e) {
                    kind = k
                } else if format == .lsapp {
                    let name = String(decoding: e, as: UTF8.self)
                    switch name.lowercased() {
                    case "opened": kind = .launch
                    case "closed": kind = .close
                    case "user_interaction", "broken":
                        batch.counts.accepted += 1
                        batch.counts.excluded += 1
                        return nil
                    default:
                        return
                            "unknown LSApp event \"\(name.prefix(40))\" (expected Opened, Closed, User_Interaction or Broken)"
                    }
                } else {
                    let name = String(decoding: e, as: UTF8.self)
                    guard let k = UsageEventKind(name: name) else {
                        return
                            "unknown event \"\(name.prefix(40))\" (expected launch, close, force_quit, refresh_off or refresh_on)"
                    }
                    kind = k
                }
            }
            guard a.count <= Self.maxNameBytes else { return "app name longer than \(Self.maxNameBytes) bytes" }
            guard let app = apps.validID(of: a) else { return "app name is not valid UTF-8" }
            batch.counts.accepted += 1
            if isExcluded(app) {
                batch.counts.excluded += 1
                return nil
            }
            batch.usage.append(
                UsageEvent(time: ts.microseconds, user: user, app: app, kind: kind, utcOffset: ts.utcOffsetSeconds))
        case .content:
            guard let a = field(.app, fields), a.count > 0 else { return "empty app" }
            guard a.count <= Self.maxNameBytes else { return "app name longer than \(Self.maxNameBytes) bytes" }
            guard let app = apps.validID(of: a) else { return "app name is not valid UTF-8" }
            batch.counts.accepted += 1
            if isExcluded(app) {
                batch.counts.excluded += 1
                return nil
            }
            batch.content.append(ContentUpdate(time: ts.microseconds, app: app))
        case .context, .battery:
            var row = ContextSample(time: ts.microseconds, user: user)
            if let b = field(.battery, fields), b.count > 0 {
                guard let value = Double(String(decoding: b, as: UTF8.self)), value >= 0, value <= 100 else {
                    return "battery \"\(String(decoding: b.prefix(40), as: UTF8.self))\" is not a percentage 0–100"
                }
                row.battery = value
            }
            if format == .battery {
                if let s = field(.charging, fields), s.count > 0 {
                    switch String(decoding: s, as: UTF8.self) {
                    case "2", "5": row.charging = true
                    case "3", "4": row.charging = false
                    case "1": row.charging = nil
                    default:
                        return
                            "status \"\(String(decoding: s.prefix(40), as: UTF8.self))\" is not an Android battery status (1–5)"
                    }
                }
                let wifi = field(.network, fields).flatMap { bool($0) } ?? nil
                let cell = cellularColumn.flatMap { $0 < fields.count ? bool(trim(fields[$0])) : nil } ?? nil
                if wifi != nil || cell != nil {
                    row.network = wifi == true ? .wifi : cell == true ? .cellular : NetworkType.none
                }
                if let s = field(.screenOn, fields), s.count > 0 {
                    guard let v = bool(s) else { return "isInteractive \"\(text(s))\" is not true/false" }
                    row.screenOn = v
                }
            } else {
                if let c = field(.charging, fields), c.count > 0 {
                    guard let v = bool(c) else { return "charging \"\(text(c))\" is not true/false" }
                    row.charging = v
                }
                if let n = field(.network, fields), n.count > 0 {
                    guard let v = NetworkType(name: text(n)) else {
                        return "network \"\(text(n))\" is not wifi, cellular or none"
                    }
                    row.network = v
                }
                if let l = field(.lowPower, fields), l.count > 0 {
                    guard let v = bool(l) else { return "low_power \"\(text(l))\" is not true/false" }
                    row.lowPower = v
                }
                if let s = field(.screenOn, fields), s.count > 0 {
                    guard let v = bool(s) else { return "screen_on \"\(text(s))\" is not true/false" }
                    row.screenOn = v
                }
            }
            batch.counts.accepted += 1
            batch.context.append(
                ContextRow(
                    sample: row, line: lines.lineNumber,
                    raw: String(decoding: line.prefix(RejectedRow.maxRawBytes), as: UTF8.self)))
        case .foreground:
            break
        }
        return nil
    }

    private func text(_ b: UnsafeRawBufferPointer) -> String { String(decoding: b.prefix(40), as: UTF8.self) }

    private func bool(_ b: UnsafeRawBufferPointer) -> Bool? {
        switch String(decoding: b, as: UTF8.self).lowercased() {
        case "true", "1", "yes", "y", "t", "on": return true
        case "false", "0", "no", "n", "f", "off": return false
        default: return nil
        }
    }

    @inline(__always)
    private func trim(_ b: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        var start = 0
        var end = b.count
        while start < end, b[start] == 0x20 || b[start] == 0x09 { start += 1 }
        while end > start, b[end - 1] == 0x20 || b[end - 1] == 0x09 { end -= 1 }
        if start == 0 && end == b.count { return b }
        return UnsafeRawBufferPointer(rebasing: b[start..<end])
    }

    // MARK: Foreground logs

    private func readForeground(_ raw: UnsafeRawBufferPointer) -> String? {
        guard let base = raw.baseAddress else { return "empty line" }
        if memchr(base, 0, raw.count) != nil { return "line contains NUL bytes (binary data?)" }
        let line = trim(raw)
        guard let comma = line.firstIndex(of: 0x2C) else { return "expected \"timestamp,package\", found no comma" }
        let tsField = trim(UnsafeRawBufferPointer(rebasing: line[0..<comma]))
        let appField = trim(UnsafeRawBufferPointer(rebasing: line[(comma + 1)...]))
        if appField.contains(0x2C) { return "expected 2 fields, found more" }
        guard appField.count > 0 else { return "empty package name" }
        let ts: ParsedTimestamp
        switch time(tsField) {
        case .success(let t): ts = t
        case .failure(let e): return e.message
        }
        if ts.microseconds < emittedUpTo {
            return "out of order by more than \(options.reorderWindow / 60_000_000) min (raise --reorder-window)"
        }
        guard appField.count <= Self.maxNameBytes else { return "package name longer than \(Self.maxNameBytes) bytes" }
        guard let app = apps.validID(of: appField) else { return "package name is not valid UTF-8" }
        batch.counts.accepted += 1
        pending.append((ts.microseconds, app, ts.utcOffsetSeconds))
        if pending.count >= 8192 { flushForeground(final: false) }
        return nil
    }

    private func flushForeground(final: Bool) {
        guard !pending.isEmpty else { return }
        pending.sort { $0.time != $1.time ? $0.time < $1.time : $0.app < $1.app }
        let newest = pending[pending.count - 1].time
        let cutoff = final ? Int64.max : newest - options.reorderWindow
        var kept = 0
        for sample in pending {
            if sample.time > cutoff {
                pending[kept] = sample
                kept += 1
                continue
            }
            emitForeground(sample)
        }
        pending.removeLast(pending.count - kept)
    }

    private func emitForeground(_ sample: (time: Microseconds, app: Int32, offset: Int32?)) {
        emittedUpTo = sample.time
        if let last = lastSample, last.time == sample.time, last.app == sample.app {
            batch.counts.duplicate += 1
            return
        }
        lastSample = (sample.time, sample.app)
        let user = fixedUser ?? 0
        defer {
            sessionApp = sample.app
            sessionLast = sample.time
        }
        if isExcluded(sample.app) {
            batch.counts.excluded += 1
            return
        }
        if sample.app == sessionApp && sample.time - sessionLast <= options.sessionGap { return }
        batch.usage.append(
            UsageEvent(time: sample.time, user: user, app: sample.app, kind: .launch, utcOffset: sample.offset))
    }
}
