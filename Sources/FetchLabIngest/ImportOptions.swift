import FetchLabCore
import FetchLabResults
import Foundation

/// How to read one input file.
public struct ReadOptions: Sendable {
    /// Force a format instead of detecting it from the header.
    public var format: LogFormat?
    /// Read the bytes as raw deflate (no gzip/zlib header), which cannot be detected.
    public var rawDeflate = false
    /// Zone for local date-times that carry no offset; nil reads them as UTC.
    public var timeZone: TimeZone?
    /// Unit of numeric (epoch) timestamps.
    public var epochUnit: EpochUnit = .auto
    /// The layout of every timestamp (`--date-format`), for layouts automatic reading cannot tell
    /// apart (day-first dates, 12-hour clocks); nil reads ISO-8601, local date-times and epochs.
    public var dateLayout: DateLayout? = nil
    /// Header renames, `column → field` (`--map ts=timestamp`); a mapping wins over built-in aliases.
    public var columnMap: [String: String] = [:]
    /// Use this user (or device) name for every row instead of the file's. A header with a
    /// timestamp and an app but no user column then reads as usage events, not content updates.
    public var user: String?
    /// Foreground logs: a sample of the same app after this gap starts a new launch.
    public var sessionGap: Microseconds = 5 * .perMinute
    /// Foreground logs: how far back an out-of-order line may go and still be sorted in.
    public var reorderWindow: Microseconds = .perHour
    /// Apps (glob patterns with `*` and `?`) whose rows are skipped. In foreground logs their
    /// samples are dropped before sessions are formed: they do not end the session around them.
    public var excludedApps: [String] = []
    /// Foreground logs and usagestats dumps: keep the rows of ``systemApps`` (launchers, system UI,
    /// `android`, the logger) as launches, as other apps' (`--keep-system-apps`). By default they
    /// are not launches, as the evaluation protocol says: the rows of ``systemUIApps`` that bring
    /// them to the front (a foreground log's samples, a dump's resumes) are system-UI signals, the
    /// others are dropped. Other formats never drop them.
    public var keepSystemApps = false
    /// Stop at the first bad row instead of recording it as a reject.
    public var strict = false
    /// Timestamps outside `earliest..<latest` are rejected (1970 placeholders are common).
    public var earliest: Instant = Self.midnightUTC(CivilDate(year: 2000, month: 1, day: 1))
    public var latest: Instant = Self.midnightUTC(CivilDate(year: 2100, month: 1, day: 1))
    /// Rows per batch handed to the store.
    public var batchSize = 65_536
    /// Decompression-bomb limits: a file may not inflate more than `maxRatio` times its
    /// compressed size (checked once 64 MiB are out; nil = no limit), nor past
    /// `maxDecompressedBytes` (nil = no limit).
    public var maxRatio: Double? = 200
    public var maxDecompressedBytes: Int64? = nil

    public init() {}

    /// The apps that are not the user's choice of app: launchers (the home screen shows between
    /// two apps), `android` (the system's own dialogs), system UI (notification shade, lock screen)
    /// and the logging app itself. Glob patterns, as for ``excludedApps``; one list, used by
    /// every format that drops them (`LogFormat.dropsSystemApps`): ``systemUIApps`` and
    /// ``droppedSystemApps``.
    public static let systemApps = systemUIApps + droppedSystemApps

    /// The system apps whose screens show the user at the device, about to open something, or
    /// come to the front by themselves: foreground logs read their rows as `systemUI` signal
    /// events of that package, never as launches. The one list (Docs/formats.md, "System UI"):
    /// - launchers, the home screen between two apps (`*launcher*`);
    /// - system UI, the notification shade and the lock screen (`com.android.systemui`);
    /// - the in-call screen an incoming call brings up (`*incallui*`: AOSP's
    ///   `com.android.incallui`, Samsung's `com.samsung.android.incallui`); the dialer the user
    ///   opens (`com.google.android.dialer`, `com.samsung.android.dialer`) stays an app;
    /// - assistant and search overlays, a long press or a swipe away
    ///   (`com.google.android.googlequicksearchbox`, `com.google.android.apps.googleassistant`,
    ///   Samsung's Bixby `com.samsung.android.bixby.agent`).
    ///
    /// `--keep-system-apps` reads them as launches; `--exclude` drops them.
    public static let systemUIApps = [
        "*launcher*", "com.android.systemui", "*incallui*", "com.google.android.googlequicksearchbox",
        "com.google.android.apps.googleassistant", "com.samsung.android.bixby.agent",
    ]

    /// The system apps whose rows say nothing of the user (the system's own dialogs, the logger):
    /// dropped.
    public static let droppedSystemApps = ["android", "com.example.nextapp"]

    /// Whether a file of `format` read with these options drops the rows of ``systemApps``.
    public func dropsSystemApps(_ format: LogFormat) -> Bool { !keepSystemApps && format.dropsSystemApps }

    /// Timestamps within this distance of epoch 0 (1970-01-01 in any time zone) that are out of
    /// range are placeholders (a clock not yet set, a field left at 0), not a range to widen. Kept
    /// to a day: later 1970 dates are more often a wrong `--epoch-unit` (milliseconds read as
    /// microseconds land in January 1970).
    public static let placeholderDistance: Microseconds = .days(1)

    private static func midnightUTC(_ date: CivilDate) -> Instant {
        LocalCalendar.midnight(of: date.daysSince1970, offset: 0)
    }
}

/// Matches app names against `*`/`?` glob patterns.
struct GlobSet: Sendable {
    let patterns: [[UInt8]]

    init(_ patterns: [String]) { self.patterns = patterns.map { Array($0.utf8) } }

    var isEmpty: Bool { patterns.isEmpty }

    func matches(_ name: String) -> Bool {
        let text = Array(name.utf8)
        return patterns.contains { Self.match($0[...], text[...]) }
    }

    static func match(_ p: ArraySlice<UInt8>, _ t: ArraySlice<UInt8>) -> Bool {
        var pi = p.startIndex, ti = t.startIndex
        var star = -1, mark = t.startIndex
        while ti < t.endIndex {
            if pi < p.endIndex, p[pi] == UInt8(ascii: "?") || p[pi] == t[ti] {
                pi += 1
                ti += 1
            } else if pi < p.endIndex, p[pi] == UInt8(ascii: "*") {
                star = pi
                pi += 1
                mark = ti
            } else if star >= 0 {
                pi = star + 1
                mark += 1
                ti = mark
            } else {
                return false
            }
        }
        while pi < p.endIndex, p[pi] == UInt8(ascii: "*") { pi += 1 }
        return pi == p.endIndex
    }
}
