import FetchLabCore
import FetchLabResults
import Foundation
import GRDBSQLite

/// Reads the iOS/macOS Knowledge store (`knowledgeC.db`, a Core Data SQLite database) into usage
/// events and device context.
///
/// What it reads from table `ZOBJECT` (times are Core Data seconds since 2001-01-01 UTC, the
/// offset is `ZSECONDSFROMGMT` of each row):
/// - `/app/inFocus` intervals (bundle id in `ZVALUESTRING`) become a launch at `ZSTARTDATE` and a
///   close at `ZENDDATE`. Older stores have `/app/usage` instead: it is read only when there is no
///   `/app/inFocus` row (the two record the same foreground time; reading both would double it).
///   A refocus of the same app within `--session-gap` of the end of its previous focus (with no
///   other app focused in between) continues that use: no new launch, the close moves.
/// - `/device/isPluggedIn` (`ZVALUEINTEGER` 1/0: charging), `/device/batteryPercentage`
///   (`ZVALUEDOUBLE`, or `ZVALUEINTEGER` when the column is missing: battery), `/device/isLocked`
///   (screen on = not locked) and `/device/lowPowerMode` become context samples at `ZSTARTDATE`;
///   rows of one device at the same instant make one sample.
/// - Signal events (never launches): `/device/isLocked` with value 0 (the device unlocked) is
///   also an `unlock` of the device (app `AppID.device`; a record its row gives beside the
///   sample, `ReadCounts.derived`); `/display/isBacklit` with value 1 a `screenOn` of the device
///   (value 0 is a valid row skipped, `excluded`); `/notification/usage` a `notification` of the
///   bundle id in `ZVALUESTRING`.
///
/// The user is `--user`, else the row's device (`ZSOURCE.ZDEVICEID`, set on rows synced from
/// another device), else the file's name without extensions.
///
/// Schema variations handled: `ZSECONDSFROMGMT` missing (older stores: no offset), `ZVALUEDOUBLE`
/// missing, no `ZSOURCE` table or no `ZDEVICEID` column (the file's name is the user). Required:
/// `ZOBJECT` with `Z_PK`, `ZSTREAMNAME`, `ZSTARTDATE`, `ZENDDATE`, `ZVALUESTRING`,
/// `ZVALUEINTEGER`; a store without one fails naming it.
///
/// The user's file is never written: it is opened read-only and immutable; with a `-wal` beside
/// it (a copy of a live store) it is opened read-only without `immutable` when its `-shm` is there
/// too (so the WAL is read), else the database and its WAL are copied to a temporary directory
/// and the copy is read. A gzip'd store is inflated to a temporary file. Temporary files are
/// removed when the reader goes.
///
/// Rows are stepped from two queries (app stream, then device streams, each by start date) and
/// handed out in batches of ``ReadOptions/batchSize``; only the open uses of each device are kept.
/// Rejected rows carry `ZOBJECT.Z_PK` as their line.
public final class KnowledgeStoreReader: RecordSource {
    /// The file as the user named it.
    public let source: String
    public let options: ReadOptions
    public var format: LogFormat { .knowledgeC }
    public var syntax: RowSyntax? { nil }
    public let compression: CompressionFormat?
    public private(set) var inputBytesRead: Int64 = 0
    public let totalBytes: Int64?
    public let decompressedBytes: Int64
    public let contentSHA256: String
    /// The stream the app intervals come from (`/app/inFocus` or `/app/usage`), nil when the store
    /// has neither.
    public private(set) var appStream: String?

    /// The temporary directory of an inflated or copied store (tests check that it goes).
    var scratchDirectory: String? { scratch?.path }

    /// What a file's first bytes say.
    enum Sniffed { case sqlite, gzippedSQLite, other }

    static let sqliteMagic = Array("SQLite format 3\0".utf8)
    /// Core Data's reference date, 2001-01-01 UTC, in Unix seconds.
    static let referenceDate: Double = 978_307_200
    static let deviceStreams = [
        "/device/isPluggedIn", "/device/batteryPercentage", "/device/isLocked", "/device/lowPowerMode",
        "/display/isBacklit", "/notification/usage",
    ]

    private var db: OpaquePointer?
    /// A temporary directory holding an inflated or copied store, removed in deinit.
    private var scratch: URL?
    private var sink: RecordSink
    private var statement: OpaquePointer?
    private var phase = Phase.apps
    private enum Phase { case apps, device, done }
    private var totalRows: Int64 = 0
    private var rowsRead: Int64 = 0
    /// The user named by the file (rows without a device id).
    private let fileUser: String
    private var deviceUsers: [String: Int32] = [:]
    private var hasOffset = false
    private var hasDouble = false
    private var hasDevice = false
    /// Per user: the use in progress (its close not yet emitted).
    private var open: [Int32: OpenUse] = [:]
    /// The device sample being gathered (rows of one device at one instant).
    private var gathering: (sample: ContextSample, line: Int, raw: String)?

    private struct OpenUse {
        var app: Int32
        var end: Instant
        var offset: Int32?
    }

    // MARK: Opening

    /// Whether `path` holds a SQLite database, plain or gzip'd (anything unreadable is `.other`:
    /// the line reader reports it).
    static func sniff(_ path: String, options: ReadOptions) -> Sniffed {
        guard let file = try? RawFile(path: path, source: path) else { return .other }
        defer { file.close() }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16, alignment: 8)
        defer { buffer.deallocate() }
        guard let n = try? file.read(into: buffer, at: 0) else { return .other }
        let head = Array(buffer[0..<n])
        if head.starts(with: sqliteMagic) { return .sqlite }
        guard head.starts(with: [0x1F, 0x8B]) else { return .other }
        guard let input = try? DecompressingReader(path: path) else { return .other }
        var inflated: [UInt8] = []
        while inflated.count < sqliteMagic.count {
            guard let chunk = try? input.nextChunk() else { return .other }
            inflated.append(contentsOf: chunk.prefix(sqliteMagic.count - inflated.count))
        }
        return inflated.starts(with: sqliteMagic) ? .gzippedSQLite : .other
    }

    /// Opens a plain `knowledgeC.db` (with its `-wal`, if one is beside it).
    public convenience init(path: String, options: ReadOptions = ReadOptions()) throws(IngestError) {
        let size = Self.fileSize(path)
        var hasher = SHA256()
        try SHA256.update(&hasher, withFile: path, source: path)
        let wal = path + "-wal"
        let hasWAL = (Self.fileSize(wal) ?? 0) > 0
        if hasWAL { try SHA256.update(&hasher, withFile: wal, source: path) }
        try self.init(
            path: path, source: path, hasWAL: hasWAL, options: options, compression: nil, totalBytes: size,
            decompressedBytes: size ?? 0, contentSHA256: SHA256.hex(hasher.finalize()), scratch: nil)
    }

    /// Inflates a gzip'd `knowledgeC.db` to a temporary file and opens that.
    public convenience init(gzipped path: String, options: ReadOptions = ReadOptions()) throws(IngestError) {
        let dir = try Self.makeScratch(source: path)
        let copy = dir.appendingPathComponent("knowledgeC.db").path
        let input: DecompressingReader
        do {
            input = try Self.inflate(path, to: copy, options: options)
        } catch {
            try? FileManager.default.removeItem(at: dir)
            throw error
        }
        // From here the reader owns the directory (its deinit removes it, also when opening fails).
        try self.init(
            path: copy, source: path, hasWAL: false, options: options, compression: input.format,
            totalBytes: input.totalBytes, decompressedBytes: input.decompressedBytes,
            contentSHA256: input.contentSHA256Hex, scratch: dir)
    }

    /// Writes the inflated bytes of `path` to `copy`; returns the finished decompressor.
    private static func inflate(_ path: String, to copy: String, options: ReadOptions) throws(IngestError)
        -> DecompressingReader
    {
        let input = try DecompressingReader(path: path)
        input.maxRatio = options.maxRatio
        input.maxDecompressedBytes = options.maxDecompressedBytes
        guard FileManager.default.createFile(atPath: copy, contents: nil), let out = FileHandle(forWritingAtPath: copy)
        else { throw IngestError(.io, source: path, message: "cannot write a temporary file \(copy)") }
        defer { try? out.close() }
        while let chunk = try input.nextChunk() {
            do { try out.write(contentsOf: Data(chunk)) } catch {
                throw IngestError(
                    .io, source: path, message: "cannot inflate to \(copy): \(error.localizedDescription)")
            }
        }
        return input
    }

    private init(
        path: String, source: String, hasWAL: Bool, options: ReadOptions, compression: CompressionFormat?,
        totalBytes: Int64?, decompressedBytes: Int64, contentSHA256: String, scratch: URL?
    ) throws(IngestError) {
        self.source = source
        self.options = options
        self.compression = compression
        self.totalBytes = totalBytes
        self.decompressedBytes = decompressedBytes
        self.contentSHA256 = contentSHA256
        self.scratch = scratch
        self.sink = RecordSink(options: options)
        self.fileUser = Self.userName(fromPath: source)

        // Open: immutable without a WAL; with one, read-only in place when its -shm is there, else a copy.
        if !hasWAL {
            db = try Self.open(Self.uri(path, "immutable=1"), source: source)
        } else {
            let shm = path + "-shm"
            if FileManager.default.fileExists(atPath: shm),
                let inPlace = try? Self.open(Self.uri(path, "mode=ro"), source: source),
                Self.canRead(inPlace)
            {
                db = inPlace
            } else {
                let dir: URL
                if let scratch { dir = scratch } else { dir = try Self.makeScratch(source: source) }
                self.scratch = dir
                let copy = dir.appendingPathComponent("knowledgeC.db").path
                do {
                    try FileManager.default.copyItem(atPath: path, toPath: copy)
                    try FileManager.default.copyItem(atPath: path + "-wal", toPath: copy + "-wal")
                } catch {
                    throw IngestError(
                        .io, source: source,
                        message: "cannot copy the store and its -wal to \(dir.path): \(error.localizedDescription)")
                }
                db = try Self.open(Self.uri(copy, "mode=ro"), source: source)
            }
        }

        // The schema.
        guard try tableExists("ZOBJECT") else {
            throw IngestError(
                .format, source: source, message: "a SQLite database but not a Knowledge store (no ZOBJECT table)")
        }
        let columns = try columnNames("ZOBJECT")
        for required in ["Z_PK", "ZSTREAMNAME", "ZSTARTDATE", "ZENDDATE", "ZVALUESTRING", "ZVALUEINTEGER"]
        where !columns.contains(required) {
            throw IngestError(
                .format, source: source,
                message: "unknown Knowledge store version: table ZOBJECT has no \(required) column")
        }
        hasOffset = columns.contains("ZSECONDSFROMGMT")
        hasDouble = columns.contains("ZVALUEDOUBLE")
        if columns.contains("ZSOURCE"), try tableExists("ZSOURCE") {
            hasDevice = try columnNames("ZSOURCE").contains("ZDEVICEID")
        }

        if try count("ZSTREAMNAME = '/app/inFocus'") > 0 {
            appStream = "/app/inFocus"
        } else if try count("ZSTREAMNAME = '/app/usage'") > 0 {
            appStream = "/app/usage"
        }
        let devices = Self.deviceStreams.map { "'\($0)'" }.joined(separator: ",")
        totalRows = try count("ZSTREAMNAME IN (\(devices))")
        if let appStream { totalRows += try count("ZSTREAMNAME = '\(appStream)'") }
        if let user = options.user { sink.fixUser(user) }
        try startPhase()
    }

    deinit {
        sqlite3_finalize(statement)
        sqlite3_close_v2(db)
        if let scratch { try? FileManager.default.removeItem(at: scratch) }
    }

    /// The user a store stands for by default: its file name without directories and extensions.
    static func userName(fromPath path: String) -> String {
        var name = LogReader.userName(fromPath: path)
        for ext in [".sqlite", ".db"] where name.lowercased().hasSuffix(ext) && name.count > ext.count {
            name.removeLast(ext.count)
        }
        return name
    }

    // MARK: Reading

    public func nextBatch() throws(IngestError) -> RecordBatch? {
        if phase == .done { return nil }
        sink.startBatch()
        while phase != .done && sink.batch.recordCount + sink.batch.rejects.count < options.batchSize {
            guard let s = statement else { break }
            let rc = sqlite3_step(s)
            if rc == SQLITE_ROW {
                rowsRead += 1
                sink.batch.counts.rows += 1
                if phase == .apps { try readApp(s) } else { try readDevice(s) }
            } else if rc == SQLITE_DONE {
                if phase == .apps {
                    for user in open.keys.sorted() { if let use = open[user] { close(use, user: user) } }
                    open = [:]
                    phase = .device
                } else {
                    flushGathering()
                    phase = .done
                }
                try startPhase()
            } else {
                throw sqliteError("cannot read ZOBJECT")
            }
        }
        if let totalBytes {
            inputBytesRead =
                phase == .done || totalRows == 0
                ? totalBytes : Int64(Double(totalBytes) * Double(rowsRead) / Double(totalRows))
        }
        return sink.takeBatch(inputBytesRead: inputBytesRead, finished: phase == .done)
    }

    /// Prepares the query of the current phase (the app stream, then the device streams).
    private func startPhase() throws(IngestError) {
        sqlite3_finalize(statement)
        statement = nil
        let offset = hasOffset ? "o.ZSECONDSFROMGMT" : "NULL"
        let device = hasDevice ? "s.ZDEVICEID" : "NULL"
        let join = hasDevice ? "LEFT JOIN ZSOURCE s ON s.Z_PK = o.ZSOURCE" : ""
        switch phase {
        case .apps:
            guard let appStream else {
                phase = .device
                try startPhase()
                return
            }
            statement = try prepare(
                """
                SELECT o.Z_PK, o.ZSTARTDATE, o.ZENDDATE, o.ZVALUESTRING, \(offset), \(device), o.ZSTREAMNAME
                FROM ZOBJECT o \(join) WHERE o.ZSTREAMNAME = '\(appStream)' ORDER BY o.ZSTARTDATE, o.Z_PK
                """)
        case .device:
            let value = hasDouble ? "o.ZVALUEDOUBLE" : "NULL"
            let streams = Self.deviceStreams.map { "'\($0)'" }.joined(separator: ",")
            statement = try prepare(
                """
                SELECT o.Z_PK, o.ZSTARTDATE, o.ZENDDATE, o.ZVALUEINTEGER, \(offset), \(device), o.ZSTREAMNAME, \(value),
                       o.ZVALUESTRING
                FROM ZOBJECT o \(join) WHERE o.ZSTREAMNAME IN (\(streams)) ORDER BY o.ZSTARTDATE, \(device), o.Z_PK
                """)
        case .done:
            break
        }
    }

    /// One app-stream row: a focus interval.
    private func readApp(_ s: OpaquePointer) throws(IngestError) {
        let line = Int(sqlite3_column_int64(s, 0))
        do throws(RowProblem) {
            let start = try time(s, 1, "ZSTARTDATE")
            let end = try time(s, 2, "ZENDDATE")
            if end < start { throw RowProblem("ZENDDATE is before ZSTARTDATE") }
            let offset = try utcOffset(s, 4)
            let app = try bundleID(s, 3)
            let user = try user(s, 5)
            sink.batch.counts.accepted += 1
            if sink.drops(app) {
                return
            }
            if var use = open[user], use.app == app, start - use.end <= options.sessionGap {
                sink.batch.counts.merged += 1
                if end > use.end {
                    use.end = end
                    use.offset = offset
                }
                open[user] = use
                return
            }
            if let previous = open[user] { close(previous, user: user) }
            sink.batch.usage.append(UsageEvent(time: start, user: user, app: app, kind: .launch, utcOffset: offset))
            open[user] = OpenUse(app: app, end: end, offset: offset)
        } catch {
            try reject(error.reason, s, line: line)
        }
    }

    /// The app of a bundle id column (`ZVALUESTRING`).
    private func bundleID(_ s: OpaquePointer, _ column: Int32) throws(RowProblem) -> Int32 {
        let type = sqlite3_column_type(s, column)
        guard type == SQLITE_TEXT || type == SQLITE_BLOB,
            let raw = sqlite3_column_blob(s, column) ?? sqlite3_column_text(s, column).map(UnsafeRawPointer.init)
        else {
            throw RowProblem(
                type == SQLITE_NULL ? "no bundle id (ZVALUESTRING is NULL)" : "empty bundle id (ZVALUESTRING)")
        }
        let bytes = UnsafeRawBufferPointer(start: raw, count: Int(sqlite3_column_bytes(s, column)))
        if bytes.isEmpty { throw RowProblem("empty bundle id (ZVALUESTRING)") }
        if bytes.contains(0) { throw RowProblem("bundle id contains a NUL byte (ZVALUESTRING)") }
        if String(validating: bytes, as: UTF8.self) == nil {
            throw RowProblem("bundle id is not UTF-8 text (ZVALUESTRING)")
        }
        return try sink.app(bytes, noun: "bundle id")
    }

    /// The close of a use: a record its row gave beyond the launch (`ReadCounts.derived`).
    private func close(_ use: OpenUse, user: Int32) {
        sink.batch.counts.derived += 1
        sink.batch.usage.append(
            UsageEvent(time: use.end, user: user, app: use.app, kind: .close, utcOffset: use.offset))
    }

    /// One device-stream row: a change of the device's state.
    private func readDevice(_ s: OpaquePointer) throws(IngestError) {
        let line = Int(sqlite3_column_int64(s, 0))
        do throws(RowProblem) {
            let start = try time(s, 1, "ZSTARTDATE")
            if sqlite3_column_type(s, 2) != SQLITE_NULL, let end = try? time(s, 2, "ZENDDATE"), end < start {
                throw RowProblem("ZENDDATE is before ZSTARTDATE")
            }
            let offset = try utcOffset(s, 4)
            let user = try user(s, 5)
            let stream = Self.text(s, 6) ?? ""
            if stream == "/notification/usage" {
                let app = try bundleID(s, 8)
                sink.batch.counts.accepted += 1
                sink.signal(UsageEvent(time: start, user: user, app: app, kind: .notification, utcOffset: offset))
                return
            }
            var sample = ContextSample(time: start, user: user, utcOffset: offset)
            var signal: UsageEventKind?
            switch stream {
            case "/device/batteryPercentage":
                let column: Int32 = sqlite3_column_type(s, 7) != SQLITE_NULL ? 7 : 3
                guard sqlite3_column_type(s, column) != SQLITE_NULL else {
                    throw RowProblem("no battery level (ZVALUEDOUBLE is NULL)")
                }
                let level = sqlite3_column_double(s, column)
                guard level.isFinite, (0...100).contains(level) else {
                    throw RowProblem("battery level \(level) is not a percentage (0-100)")
                }
                sample.battery = level
            default:
                guard sqlite3_column_type(s, 3) == SQLITE_INTEGER || sqlite3_column_type(s, 3) == SQLITE_FLOAT else {
                    throw RowProblem("no value (ZVALUEINTEGER is \(Self.text(s, 3) == nil ? "NULL" : "not a number"))")
                }
                let value = sqlite3_column_double(s, 3)
                guard value == 0 || value == 1 else { throw RowProblem("ZVALUEINTEGER \(value) is not 0 or 1") }
                switch stream {
                case "/device/isPluggedIn": sample.charging = value == 1
                case "/device/isLocked":
                    sample.screenOn = value == 0
                    if value == 0 { signal = .unlock }
                case "/display/isBacklit":
                    sink.batch.counts.accepted += 1
                    if value == 1 {
                        let device = sink.device()
                        sink.signal(
                            UsageEvent(time: start, user: user, app: device, kind: .screenOn, utcOffset: offset))
                    } else {
                        sink.batch.counts.excluded += 1
                    }
                    return
                default: sample.lowPower = value == 1
                }
            }
            sink.batch.counts.accepted += 1
            if let signal {
                let device = sink.device()
                sink.signal(
                    UsageEvent(time: start, user: user, app: device, kind: signal, utcOffset: offset), derived: true)
            }
            let raw = Self.describe(s)
            if var current = gathering, current.sample.time == start, current.sample.user == user {
                if let merged = Self.merge(current.sample, sample) {
                    current.sample = merged
                    gathering = current
                    sink.batch.counts.merged += 1
                    return
                }
            }
            flushGathering()
            gathering = (sample, line, raw)
        } catch {
            try reject(error.reason, s, line: line)
        }
    }

    /// Two samples of one instant as one, nil when they disagree on a field.
    private static func merge(_ a: ContextSample, _ b: ContextSample) -> ContextSample? {
        func pick<T: Equatable>(_ x: T?, _ y: T?) -> (T?, Bool) {
            guard let x else { return (y, true) }
            guard let y else { return (x, true) }
            return (x, x == y)
        }
        var out = a
        var ok = true
        var agree: Bool
        (out.battery, agree) = pick(a.battery, b.battery)
        ok = ok && agree
        (out.charging, agree) = pick(a.charging, b.charging)
        ok = ok && agree
        (out.screenOn, agree) = pick(a.screenOn, b.screenOn)
        ok = ok && agree
        (out.lowPower, agree) = pick(a.lowPower, b.lowPower)
        ok = ok && agree
        return ok ? out : nil
    }

    private func flushGathering() {
        guard let g = gathering else { return }
        gathering = nil
        sink.batch.context.append(ContextRow(sample: g.sample, line: g.line, raw: g.raw))
    }

    private func reject(_ reason: String, _ s: OpaquePointer, line: Int) throws(IngestError) {
        if options.strict { throw IngestError(.malformedRow, source: source, line: line, message: reason) }
        sink.batch.counts.rejected += 1
        sink.batch.rejects.append(RejectedRow(line: line, reason: reason, raw: Self.describe(s)))
    }

    // MARK: Columns

    /// A Core Data date column as an instant, within `--earliest`..<`--latest`.
    private func time(_ s: OpaquePointer, _ column: Int32, _ name: String) throws(RowProblem) -> Instant {
        let type = sqlite3_column_type(s, column)
        if type == SQLITE_NULL { throw RowProblem("\(name) is NULL") }
        guard type == SQLITE_FLOAT || type == SQLITE_INTEGER else { throw RowProblem("\(name) is not a number") }
        let seconds = sqlite3_column_double(s, column)
        guard seconds.isFinite, abs(seconds) < 1e11 else { throw RowProblem("\(name) \(seconds) is not a date") }
        let us = Instant(sinceEpoch: Microseconds(((seconds + Self.referenceDate) * 1e6).rounded()))
        if us < options.earliest || us >= options.latest {
            throw RowProblem(
                "\(name) \(seconds) is outside \(RecordSink.isoDate(options.earliest))..\(RecordSink.isoDate(options.latest))"
                    + " (a placeholder?); change the range with --earliest/--latest")
        }
        return us
    }

    /// `ZSECONDSFROMGMT`: nil when missing or NULL.
    private func utcOffset(_ s: OpaquePointer, _ column: Int32) throws(RowProblem) -> Int32? {
        let type = sqlite3_column_type(s, column)
        if type == SQLITE_NULL { return nil }
        guard type == SQLITE_INTEGER || type == SQLITE_FLOAT else {
            throw RowProblem("ZSECONDSFROMGMT is not a number")
        }
        let value = sqlite3_column_double(s, column)
        guard value.isFinite, abs(value) <= 18 * 3600 else {
            throw RowProblem("ZSECONDSFROMGMT \(value) is not a UTC offset (at most 18 hours)")
        }
        return Int32(value)
    }

    /// The row's user: `--user`, else its device id, else the file's name.
    private func user(_ s: OpaquePointer, _ column: Int32) throws(RowProblem) -> Int32 {
        if let fixed = sink.fixedUser { return fixed }
        let name = Self.deviceName(s, column).flatMap { $0.isEmpty ? nil : $0 } ?? fileUser
        if let id = deviceUsers[name] { return id }
        guard name.utf8.count <= RecordSink.maxNameBytes else {
            throw RowProblem("device id longer than \(RecordSink.maxNameBytes) bytes")
        }
        let id = sink.users.id(of: name)
        deviceUsers[name] = id
        return id
    }

    /// A device id as a user name: its text, or — when its bytes are not UTF-8 — each byte that is
    /// not part of valid UTF-8 written `\xFF`, so that two devices never become one name.
    private static func deviceName(_ s: OpaquePointer, _ column: Int32) -> String? {
        guard sqlite3_column_type(s, column) != SQLITE_NULL, let raw = sqlite3_column_blob(s, column) else {
            return nil
        }
        let bytes = UnsafeRawBufferPointer(start: raw, count: Int(sqlite3_column_bytes(s, column)))
        if let text = String(validating: bytes, as: UTF8.self), !text.contains("\u{0}") { return text }
        var out = ""
        var i = 0
        while i < bytes.count {
            // The longest valid UTF-8 sequence starting here (1 to 4 bytes), else the byte escaped.
            var taken = false
            for length in stride(from: min(4, bytes.count - i), through: 1, by: -1) {
                if let piece = String(
                    validating: UnsafeRawBufferPointer(rebasing: bytes[i..<(i + length)]), as: UTF8.self),
                    piece.unicodeScalars.count == 1, piece != "\u{0}"
                {
                    out += piece
                    i += length
                    taken = true
                    break
                }
            }
            if !taken {
                out += String(format: "\\x%02X", bytes[i])
                i += 1
            }
        }
        return out
    }

    private static func text(_ s: OpaquePointer, _ column: Int32) -> String? {
        guard sqlite3_column_type(s, column) != SQLITE_NULL, let text = sqlite3_column_text(s, column) else {
            return nil
        }
        return String(
            decoding: UnsafeRawBufferPointer(start: text, count: Int(sqlite3_column_bytes(s, column))), as: UTF8.self)
    }

    /// A row as text for rejects: `Z_PK=… ZSTREAMNAME=… ZSTARTDATE=… ZENDDATE=… value=…`.
    private static func describe(_ s: OpaquePointer) -> String {
        let value = text(s, 3) ?? "NULL"
        let raw =
            "Z_PK=\(sqlite3_column_int64(s, 0)) ZSTREAMNAME=\(text(s, 6) ?? "NULL") ZSTARTDATE=\(text(s, 1) ?? "NULL")"
            + " ZENDDATE=\(text(s, 2) ?? "NULL") value=\(value) ZSECONDSFROMGMT=\(text(s, 4) ?? "NULL")"
        return String(decoding: raw.utf8.prefix(RejectedRow.maxRawBytes), as: UTF8.self)
    }

    // MARK: SQLite

    private static func open(_ uri: String, source: String) throws(IngestError) -> OpaquePointer {
        var handle: OpaquePointer?
        let rc = sqlite3_open_v2(uri, &handle, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nil)
        guard rc == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(handle)
            throw IngestError(.io, source: source, message: "cannot open as SQLite: \(message)")
        }
        return handle
    }

    /// Whether a connection reads the schema (a read-only WAL open can fail only then).
    private static func canRead(_ handle: OpaquePointer) -> Bool {
        var s: OpaquePointer?
        defer { sqlite3_finalize(s) }
        guard sqlite3_prepare_v2(handle, "SELECT count(*) FROM sqlite_master", -1, &s, nil) == SQLITE_OK, let s else {
            sqlite3_close_v2(handle)
            return false
        }
        if sqlite3_step(s) == SQLITE_ROW { return true }
        sqlite3_finalize(s)
        sqlite3_close_v2(handle)
        return false
    }

    /// A `file:` URI for `path` with `query`, its special characters percent-encoded.
    static func uri(_ path: String, _ query: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "/-._~")
        let escaped = absolute.addingPercentEncoding(withAllowedCharacters: allowed) ?? absolute
        return "file:\(escaped)?\(query)"
    }

    private func prepare(_ sql: String) throws(IngestError) -> OpaquePointer {
        var s: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &s, nil) == SQLITE_OK, let s else {
            sqlite3_finalize(s)
            throw sqliteError("cannot query ZOBJECT")
        }
        return s
    }

    private func sqliteError(_ what: String) -> IngestError {
        let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "no database"
        return IngestError(.format, source: source, message: "\(what): \(message)")
    }

    private func tableExists(_ name: String) throws(IngestError) -> Bool {
        let s = try prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '\(name)'")
        defer { sqlite3_finalize(s) }
        let rc = sqlite3_step(s)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        throw sqliteError("not a readable SQLite database")
    }

    private func columnNames(_ table: String) throws(IngestError) -> Set<String> {
        let s = try prepare("PRAGMA table_info(\(table))")
        defer { sqlite3_finalize(s) }
        var names: Set<String> = []
        while true {
            let rc = sqlite3_step(s)
            if rc == SQLITE_DONE { return names }
            guard rc == SQLITE_ROW else { throw sqliteError("cannot read the columns of \(table)") }
            if let name = Self.text(s, 1) { names.insert(name.uppercased()) }
        }
    }

    private func count(_ condition: String) throws(IngestError) -> Int64 {
        let s = try prepare("SELECT count(*) FROM ZOBJECT WHERE \(condition)")
        defer { sqlite3_finalize(s) }
        guard sqlite3_step(s) == SQLITE_ROW else { throw sqliteError("cannot count ZOBJECT rows") }
        return sqlite3_column_int64(s, 0)
    }

    // MARK: Files

    private static func fileSize(_ path: String) -> Int64? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.size].flatMap { ($0 as? NSNumber)?.int64Value }
    }

    private static func makeScratch(source: String) throws(IngestError) -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "fetchlab-knowledgec-\(UUID().uuidString)")
        do { try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true) } catch {
            throw IngestError(
                .io, source: source, message: "cannot create a temporary directory: \(error.localizedDescription)")
        }
        return dir
    }
}
