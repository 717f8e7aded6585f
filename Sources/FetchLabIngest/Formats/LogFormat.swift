import FetchLabResults

extension LogFormat {
    /// The decoder of a format whose rows are delimited records under a header; nil for the line
    /// formats (``lineFormat``) and the Knowledge store. Used when reading the header.
    var delimited: (any DelimitedFormat.Type)? {
        switch self {
        case .usage: FetchLabUsageFormat.self
        case .context: FetchLabContextFormat.self
        case .content: ContentFormat.self
        case .battery: BatteryFormat.self
        case .lsapp: LSAppFormat.self
        case .foreground, .usagestats, .knowledgeC: nil
        }
    }

    /// The state of a format read line by line (headerless, sessionised): the reader makes one per
    /// file and asks it, not the format's name. Nil for delimited formats and the Knowledge store.
    var lineFormat: (any LineFormat.Type)? {
        switch self {
        case .foreground: ForegroundFormat.self
        case .usagestats: UsageStatsFormat.self
        case .usage, .context, .content, .battery, .lsapp, .knowledgeC: nil
        }
    }

    /// Whether rows of ``ReadOptions/systemApps`` are dropped by default (`--keep-system-apps`
    /// keeps them): the Android logs that record every app in front, the launcher and the system's
    /// own screens among them.
    public var dropsSystemApps: Bool { self == .foreground || self == .usagestats }

    /// Decodes one delimited row: a static call per format, no existential dispatch per row.
    @inline(__always)
    func decode(_ row: Row, into sink: inout RecordSink) throws(RowProblem) {
        switch self {
        case .usage: try FetchLabUsageFormat.decode(row, into: &sink)
        case .context: try FetchLabContextFormat.decode(row, into: &sink)
        case .content: try ContentFormat.decode(row, into: &sink)
        case .battery: try BatteryFormat.decode(row, into: &sink)
        case .lsapp: try LSAppFormat.decode(row, into: &sink)
        case .foreground, .usagestats: throw RowProblem("\(rawValue) lines are not delimited records")
        case .knowledgeC: throw RowProblem("a Knowledge store is a SQLite database, not delimited records")
        }
    }
}

/// How the rows of a FetchLab-format file are written.
public enum RowSyntax: String, Sendable, Hashable, Codable {
    case csv, tsv, jsonLines = "jsonl"
}

/// The fields a row's columns are read as.
enum Field: String, CaseIterable {
    case timestamp, user, app, event, battery, charging, network, lowPower = "low_power", screenOn = "screen_on"
    /// The Android battery sampler's `Cellular` column (FetchLab's own formats have `network`).
    case cellular
    /// Only by `--map COLUMN=date` / `COLUMN=time`: a timestamp written as a date column and a
    /// time-of-day column (joined with a space, then read as one timestamp).
    case date = "date (of a date and time pair)", clock = "time (of a date and time pair)"
    /// Only by `--map COLUMN=duration`: how long the use lasted (a close event that much later).
    case duration = "duration (of a use)"

    /// Position in `allCases`, for array-indexed lookups.
    var ordinal: Int {
        switch self {
        case .timestamp: 0
        case .user: 1
        case .app: 2
        case .event: 3
        case .battery: 4
        case .charging: 5
        case .network: 6
        case .lowPower: 7
        case .screenOn: 8
        case .cellular: 9
        case .date: 10
        case .clock: 11
        case .duration: 12
        }
    }

    /// The device-context fields of FetchLab's context format.
    static let context: Set<Field> = [.battery, .charging, .network, .lowPower, .screenOn]

    /// The fields only an explicit `--map` reads (their names are also aliases of `timestamp`).
    static let mapOnly: Set<Field> = [.date, .clock, .duration]

    /// The field `--map COLUMN=NAME` reads the column as: `date`, `time` and `duration` name the
    /// parts of a split timestamp and a use's length; other names as in ``canonical(_:)``.
    static func mapTarget(_ name: String) -> Field? {
        switch name.lowercased() {
        case "date": .date
        case "time": .clock
        case "duration": .duration
        default: nil
        }
    }

    /// The field a FetchLab header name (or one of its common aliases) stands for.
    static func canonical(_ header: String) -> Field? {
        let name = header.lowercased()
        if let field = Field(rawValue: name), field != .cellular, !Self.mapOnly.contains(field) { return field }
        switch name {
        case "time", "ts", "date", "datetime", "time_stamp": return .timestamp
        case "user_id", "userid", "device", "device_id", "uid": return .user
        case "package", "package_name", "bundle", "bundle_id", "app_id", "application", "app_name": return .app
        case "event_type", "type", "action": return .event
        case "battery_level", "level", "battery_pct": return .battery
        case "is_charging", "plugged": return .charging
        case "network_type", "connection": return .network
        case "lowpower", "low_power_mode", "power_save": return .lowPower
        case "screen", "interactive", "is_interactive", "screenon": return .screenOn
        default: return nil
        }
    }
}
