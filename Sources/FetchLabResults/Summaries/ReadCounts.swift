/// Counters of what the reader saw.
public struct ReadCounts: Sendable, Hashable, Codable {
    /// Data lines read (the header and blank lines excluded).
    public var rows = 0
    /// Rows that were valid.
    public var accepted = 0
    /// Rows recorded as rejects.
    public var rejected = 0
    /// Of the rejected rows, those whose timestamp is a placeholder within a day of epoch 0 (1970-01-01).
    public var placeholders = 0
    /// Rows dropped as exact duplicates inside the file (foreground logs).
    public var duplicate = 0
    /// Valid rows skipped on purpose (`--exclude`, non-usage LSApp events).
    public var excluded = 0
    /// Of the excluded rows, those of system apps (FetchLabIngest's `ReadOptions.systemApps`) dropped by default.
    public var systemApps = 0
    public var merged = 0
    /// Records a row gave beyond its first (the close event a row's duration adds): they count
    /// in the sums of new, duplicate and excluded records without being rows of their own.
    public var derived = 0
    /// Lines that are not events (`dumpsys usagestats` tables, section headers); not rows, and
    /// not rejects.
    public var notEvents = 0
    /// Signal events the reader made (unlock, screen on, notification, system UI: never launches),
    /// from rows of their own or derived from a row (a screen turning on in a battery sample).
    public var signals = 0
    /// Of the rows, those read as signals: each made a signal event or was merged into the one
    /// before it (a launcher or system-UI screen polled again within the session gap).
    public var signalRows = 0
    /// Timestamps written without a zone or offset and read as UTC (no `--timezone` given).
    public var readAsUTC = 0

    public init() {}

    /// What the system apps (FetchLabIngest's `ReadOptions.systemApps`) stand for, in words, for messages.
    public static let systemAppsInWords = "launchers, system UI, android, the logger"

    /// What the system-UI apps (`ReadOptions.systemUIApps`) stand for, in words, for messages.
    public static let systemUIAppsInWords = "launchers and system UI"

    /// What the dropped system apps (`ReadOptions.droppedSystemApps`) stand for, in words, for messages.
    public static let droppedSystemAppsInWords = "android and the logger"

    public static func += (lhs: inout ReadCounts, rhs: ReadCounts) {
        lhs.rows += rhs.rows
        lhs.accepted += rhs.accepted
        lhs.rejected += rhs.rejected
        lhs.duplicate += rhs.duplicate
        lhs.excluded += rhs.excluded
        lhs.systemApps += rhs.systemApps
        lhs.placeholders += rhs.placeholders
        lhs.merged += rhs.merged
        lhs.derived += rhs.derived
        lhs.notEvents += rhs.notEvents
        lhs.signals += rhs.signals
        lhs.signalRows += rhs.signalRows
        lhs.readAsUTC += rhs.readAsUTC
    }
}

/// A row that could not be read, with the reason.
public struct RejectedRow: Sendable, Hashable, Codable {
    public var line: Int
    public var reason: String
    /// The row as written, cut to ``RejectedRow/maxRawBytes``.
    public var raw: String

    /// The most bytes of a row a reject keeps.
    public static let maxRawBytes = 1_000

    public init(line: Int, reason: String, raw: String) {
        self.line = line
        self.reason = reason
        self.raw = raw
    }
}
