import FetchLabCore
import FetchLabResults

/// Where the format decoders put what they read: the batch being filled, the name tables, and the
/// checks every format shares (timestamps in range, user and app names, `--exclude`).
struct RecordSink {
    var batch = RecordBatch()
    var users = NameTable()
    var apps = NameTable()
    /// The user of every row when `--user` names one (or a foreground log's file name does).
    private(set) var fixedUser: Int32?
    private var timestamps: TimestampParser
    /// A split timestamp's date and time joined (reused from row to row).
    private var joined: [UInt8] = []
    private let earliest: Instant
    private let latest: Instant
    private let excludes: GlobSet
    /// ``ReadOptions/systemApps`` when the format drops them (``dropSystemApps()``), else empty.
    private var systemApps = GlobSet([])
    /// ``ReadOptions/systemUIApps`` when the format drops system apps, else empty.
    private var systemUIApps = GlobSet([])
    /// Per app id: -1 not yet matched, 0 kept, 1 excluded by `--exclude`, 2 a system app dropped,
    /// 3 a system-UI app (a system app too, whose rows a format may read as signals).
    private var excludedApp: [Int8] = []
    /// The id of `AppID.device` (the app of device signals), once named.
    private var deviceApp: Int32?
    /// Per user id: whether the screen was on at the user's last sample that said (the battery
    /// sampler's screen-on transitions). Forgotten with the names when they start again.
    var screenWasOn: [Int32: Bool] = [:]

    /// User and app names longer than this are rejected (they are identifiers, not content).
    static let maxNameBytes = 1024

    init(options: ReadOptions) {
        timestamps = TimestampParser(timeZone: options.timeZone, epochUnit: options.epochUnit)
        timestamps.layout = options.dateLayout
        earliest = options.earliest
        latest = options.latest
        excludes = GlobSet(options.excludedApps)
    }

    /// Names handed out by earlier batches (each batch lists only the names new to it).
    private var reportedUsers = 0
    private var reportedApps = 0

    /// Starts an empty batch whose new names are numbered after those already handed out.
    mutating func startBatch(restartsNames: Bool = false) {
        batch = RecordBatch()
        batch.restartsNames = restartsNames
        batch.firstNewUser = Int32(reportedUsers)
        batch.firstNewApp = Int32(reportedApps)
    }

    /// The batch filled since ``startBatch(restartsNames:)``, with the names first seen in it; nil
    /// when the input is `finished` and the batch holds nothing at all.
    mutating func takeBatch(inputBytesRead: Int64, finished: Bool) -> RecordBatch? {
        var out = batch
        batch = RecordBatch()
        for id in reportedUsers..<users.count { out.newUsers.append(users.name(Int32(id))) }
        reportedUsers = users.count
        for id in reportedApps..<apps.count { out.newApps.append(apps.name(Int32(id))) }
        reportedApps = apps.count
        out.inputBytesRead = inputBytesRead
        if finished && out.recordCount == 0 && out.rejects.isEmpty && out.counts == ReadCounts()
            && out.newUsers.isEmpty && out.newApps.isEmpty
        {
            return nil
        }
        return out
    }

    /// Every row is `name`'s.
    mutating func fixUser(_ name: String) { fixedUser = users.id(of: name) }

    // MARK: Timestamps

    /// The instant of a timestamp field, within `--earliest`..<`--latest`.
    @inline(__always)
    mutating func time(_ field: UnsafeRawBufferPointer) throws(RowProblem) -> ParsedTimestamp {
        let ts: ParsedTimestamp
        let readAsUTC = timestamps.readAsUTC
        do { ts = try timestamps.parse(field) } catch { throw RowProblem(error.message) }
        if timestamps.readAsUTC != readAsUTC { batch.counts.readAsUTC += 1 }
        if ts.time < earliest || ts.time >= latest {
            if Self.isPlaceholder(ts.time) {
                batch.counts.placeholders += 1
                throw RowProblem(
                    "timestamp \(FieldText.quoted(field)) is a placeholder (epoch 0, 1970-01-01): rejected; nothing to change"
                        + " unless it is real")
            }
            throw RowProblem(
                "timestamp \(FieldText.quoted(field)) is outside \(Self.isoDate(earliest))..\(Self.isoDate(latest));"
                    + " change the range with --earliest/--latest")
        }
        return ts
    }

    /// Whether an out-of-range instant is a placeholder within a day of epoch 0 (1970-01-01) rather than a
    /// date outside the range: rejected all the same, but no range to change.
    static func isPlaceholder(_ time: Instant) -> Bool {
        time.sinceEpoch.value.magnitude < ReadOptions.placeholderDistance.value.magnitude
    }

    /// The instant of a row's timestamp column.
    @inline(__always)
    mutating func time(of row: Row) throws(RowProblem) -> ParsedTimestamp {
        if let field = row.value(.timestamp) { return try time(field) }
        guard let date = row.value(.date) else { throw RowProblem("empty timestamp") }
        guard let clock = row.value(.clock) else {
            if row.columns[Field.clock.ordinal] >= 0 { throw RowProblem("empty time") }
            return try time(date)
        }
        // A split timestamp: the date, one space, the time of day, read as one.
        joined.removeAll(keepingCapacity: true)
        joined.append(contentsOf: date)
        joined.append(0x20)
        joined.append(contentsOf: clock)
        let text = joined  // shares the buffer; `time` may not touch `joined` while it reads it
        let result: Result<ParsedTimestamp, RowProblem> = text.withUnsafeBytes { bytes in
            do throws(RowProblem) { return .success(try time(bytes)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// `YYYY-MM-DD` of an instant (UTC).
    static func isoDate(_ time: Instant) -> String {
        CivilDate(daysSince1970: LocalCalendar.day(time, offset: 0)).description
    }

    // MARK: Names

    /// The user of a row: the stated one, or the row's user column.
    @inline(__always)
    mutating func user(of row: Row) throws(RowProblem) -> Int32 {
        if let fixedUser { return fixedUser }
        guard let name = row.value(.user) else { throw RowProblem("empty user") }
        return try Self.id(of: name, in: &users, noun: "user")
    }

    /// The id of an app name; `noun` names it in messages (`app`, `package`).
    @inline(__always)
    mutating func app(_ name: UnsafeRawBufferPointer, noun: String = "app") throws(RowProblem) -> Int32 {
        try Self.id(of: name, in: &apps, noun: noun)
    }

    @inline(__always)
    private static func id(
        of name: UnsafeRawBufferPointer, in table: inout NameTable, noun: String
    ) throws(RowProblem) -> Int32 {
        guard name.count <= maxNameBytes else { throw RowProblem("\(noun) name longer than \(maxNameBytes) bytes") }
        guard let id = table.validID(of: name) else { throw RowProblem("\(noun) name is not valid UTF-8") }
        return id
    }

    // MARK: Records

    /// Drops the rows of ``ReadOptions/systemApps`` from now on (formats where
    /// ``ReadOptions/dropsSystemApps(_:)``).
    mutating func dropSystemApps() {
        systemApps = GlobSet(ReadOptions.systemApps)
        systemUIApps = GlobSet(ReadOptions.systemUIApps)
        excludedApp.removeAll()
    }

    /// What a format that reads system-UI screens as signals does with an app's rows.
    enum Route {
        /// An app of the user's: its rows are uses.
        case use
        /// A system-UI app (``ReadOptions/systemUIApps``): its rows are signals, not uses.
        case systemUI
        /// Dropped: `--exclude`, or another system app (counted, as ``drops(_:)`` counts).
        case dropped
    }

    /// Where an app's rows go in a format that reads system-UI screens as signals (foreground
    /// logs): uses, signals, or dropped (then counted as excluded, and as a system app's when one).
    @inline(__always)
    mutating func route(_ app: Int32) -> Route {
        if excludes.isEmpty && systemApps.isEmpty { return .use }
        switch match(app) {
        case 0: return .use
        case 3: return .systemUI
        case 2: batch.counts.systemApps += 1
        default: break
        }
        batch.counts.excluded += 1
        return .dropped
    }

    /// The match of an app against `--exclude` and the system apps (the codes of `excludedApp`),
    /// made once per app.
    @inline(__always)
    private mutating func match(_ app: Int32) -> Int8 {
        let index = Int(app)
        while excludedApp.count <= index { excludedApp.append(-1) }
        if excludedApp[index] < 0 {
            let name = apps.name(app)
            excludedApp[index] =
                excludes.matches(name) ? 1 : systemUIApps.matches(name) ? 3 : systemApps.matches(name) ? 2 : 0
        }
        return excludedApp[index]
    }

    /// The app id of `AppID.device`, the app of every device signal (unlock, screen on).
    mutating func device() -> Int32 {
        if let deviceApp { return deviceApp }
        let id = apps.id(of: AppID.device.name)
        deviceApp = id
        return id
    }

    /// A signal event (`UsageEventKind.isSignal`) of a row already counted as accepted: kept,
    /// or counted as excluded (`--exclude`, or a system app a format drops). `derived` when the
    /// row made another record first (a battery sample, a screen-on context sample).
    @inline(__always)
    mutating func signal(_ event: UsageEvent, derived: Bool = false) {
        if derived { batch.counts.derived += 1 }
        if drops(event.app) { return }
        batch.counts.signals += 1
        if !derived { batch.counts.signalRows += 1 }
        batch.usage.append(event)
    }

    /// Whether this app's rows are dropped (`--exclude`, or a system app the format drops); a row
    /// dropped is counted as excluded (and as a system app's) here. Each app is matched once.
    mutating func drops(_ app: Int32) -> Bool {
        if excludes.isEmpty && systemApps.isEmpty { return false }
        switch match(app) {
        case 0: return false
        case 2, 3: batch.counts.systemApps += 1
        default: break
        }
        batch.counts.excluded += 1
        return true
    }

    /// A valid usage event: kept, or counted as excluded.
    @inline(__always)
    mutating func accept(_ event: UsageEvent) {
        if keeps(event.app) { batch.usage.append(event) }
    }

    /// A valid content update: kept, or counted as excluded.
    @inline(__always)
    mutating func accept(_ update: ContentUpdate) {
        if keeps(update.app) { batch.content.append(update) }
    }

    /// Counts a valid record of `app` as accepted; whether it is kept, or counted as excluded.
    @inline(__always)
    private mutating func keeps(_ app: Int32) -> Bool {
        batch.counts.accepted += 1
        return !drops(app)
    }

    /// A valid device-context sample, with the row it came from.
    mutating func accept(_ sample: ContextSample, from row: Row) {
        batch.counts.accepted += 1
        batch.context.append(
            ContextRow(
                sample: sample, line: row.line,
                raw: String(decoding: row.raw.prefix(RejectedRow.maxRawBytes), as: UTF8.self)))
    }

    /// A valid row skipped on purpose (a dataset's non-usage event).
    mutating func skip() {
        batch.counts.accepted += 1
        batch.counts.excluded += 1
    }
}
