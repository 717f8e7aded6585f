import ArgumentParser
import FetchLabCore
import FetchLabIngest
import FetchLabResults
import Foundation

extension LogFormat: CaseInsensitiveArgument {}
extension EpochUnit: CaseInsensitiveArgument {}

/// How `import` reads its files: every option that changes what is read (and so the import's
/// fingerprint), each parsed once into its type.
struct ReadingOptions: ParsableArguments {
    @Option(
        name: .customLong("input-format"),
        help: "Read as this format instead of detecting it.")
    var inputFormat: LogFormat?

    @Flag(name: .customLong("raw-deflate"), help: "The input is raw deflate data (no gzip or zlib header).")
    var rawDeflate = false

    @Option(help: "IANA time zone for date-times without an offset (default: UTC), e.g. Europe/Berlin.")
    var timezone: TimeZoneArgument?

    @Option(name: .customLong("epoch-unit"), help: "Unit of numeric timestamps (auto detects by magnitude).")
    var epochUnit: EpochUnit = .auto

    @Option(
        name: .customLong("map"),
        help: """
            Read header COLUMN as FIELD (timestamp, user, app, event, battery, charging, network, low_power, \
            screen_on; date and time for a timestamp split in two columns; duration for a use's length, \
            closed that much later); wins over the built-in header names. Repeatable.
            """)
    var maps: [ColumnMapping] = []

    @Option(
        name: .customLong("date-format"),
        help: """
            Layout of every timestamp, strftime-like, for day-first or month-first dates, 2-digit years, \
            12-hour clocks (e.g. '%d/%m/%Y %H:%M', '%m/%d/%y %I:%M %p'; a split date and time are joined with a space).
            """)
    var dateFormat: String?

    @Option(
        help: """
            User (or device) name for every row; foreground logs default to the file name, usagestats \
            dumps to <file name>-user<N> per Android user.
            """)
    var user: String?

    @Option(
        name: .customLong("session-gap"), parsing: .unconditional,
        help: """
            Foreground logs and usagestats dumps: the same app after this gap is a new launch \
            (e.g. 300s, 5m; 1s to 1d).
            """)
    var sessionGap = DurationArgument(ReadOptions().sessionGap)

    @Option(
        name: .customLong("reorder-window"), parsing: .unconditional,
        help: "Foreground logs: how far back an out-of-order line may go (e.g. 1h; 0 to 7d).")
    var reorderWindow = DurationArgument(ReadOptions().reorderWindow)

    @Option(name: .customLong("exclude"), help: "Skip apps matching this glob (e.g. '*launcher*'). Repeatable.")
    var excludes: [String] = []

    @Flag(
        name: .customLong("keep-system-apps"),
        help: """
            Foreground logs and usagestats dumps: read the rows of launchers, system UI, android and the \
            logger as launches (by default they are not, as the evaluation protocol says: launchers and \
            system UI coming to the front are signal events, the other rows are dropped).
            """)
    var keepSystemApps = false

    @Option(
        parsing: .unconditional,
        help: """
            Reject timestamps before this instant (ISO-8601 or epoch); a date alone (YYYY-MM-DD) is its start, \
            midnight UTC.
            """)
    var earliest = InstantArgument(ReadOptions().earliest)

    @Option(
        parsing: .unconditional,
        help: """
            Reject timestamps at or after this instant (ISO-8601 or epoch; after --earliest); a date alone \
            (YYYY-MM-DD) is read through its end: timestamps on that day (UTC) are accepted.
            """)
    var latest = InstantArgument(through: ReadOptions().latest)

    static let sessionGapRange = Microseconds.perSecond...Microseconds.days(1)
    static let reorderWindowRange = 0...Microseconds.days(7)

    /// (Run by `import`'s `validate()`; see ``ReplayOptions/check()``.)
    func check() throws {
        if let user, user.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw ValidationError("--user '\(user)': a user needs a name (no command could address an empty one)")
        }
        for map in maps where !MappableField.isKnown(map.field) {
            throw ValidationError(
                "--map \(map.column)=\(map.field): unknown field \"\(map.field)\"; expected one of "
                    + MappableField.names.joined(separator: ", "))
        }
        if let dateFormat {
            do { _ = try DateLayout(dateFormat) } catch { throw ValidationError(error.message) }
        }
        try Bounds.check("--session-gap", sessionGap, Self.sessionGapRange)
        try Bounds.check("--reorder-window", reorderWindow, Self.reorderWindowRange)
        guard earliest.start < latest.end else {
            throw ValidationError(
                "--earliest \(earliest) is not before --latest \(latest): no timestamp could be accepted")
        }
    }

    var readOptions: ReadOptions {
        var options = ReadOptions()
        options.format = inputFormat
        options.rawDeflate = rawDeflate
        options.timeZone = timezone?.zone
        options.epochUnit = epochUnit
        options.dateLayout = dateFormat.flatMap { try? DateLayout($0) }
        for map in maps { options.columnMap[map.column] = map.field }
        options.user = user
        options.sessionGap = sessionGap.microseconds
        options.reorderWindow = reorderWindow.microseconds
        options.excludedApps = excludes
        options.keepSystemApps = keepSystemApps
        options.earliest = earliest.start
        options.latest = latest.end
        return options
    }
}

/// An IANA time zone (`--timezone Europe/Berlin`).
struct TimeZoneArgument: ExpressibleByArgument {
    var zone: TimeZone

    /// An IANA name, in any case (`europe/berlin` is `Europe/Berlin`), or `UTC`.
    init?(argument: String) {
        guard let zone = TimeZone(identifier: argument) ?? Self.canonical(argument).flatMap(TimeZone.init(identifier:))
        else { return nil }
        self.zone = zone
    }

    /// The known IANA name that `name` spells in another case (`europe/berlin` → `Europe/Berlin`);
    /// nil when none does.
    static func canonical(_ name: String) -> String? {
        let lower = name.lowercased()
        if lower == "utc" || lower == "gmt" { return lower.uppercased() }
        return TimeZone.knownTimeZoneIdentifiers.first { $0.lowercased() == lower }
    }
}

/// `COLUMN=FIELD` (`--map Time=timestamp`).
struct ColumnMapping: ExpressibleByArgument {
    var column: String
    var field: String

    init?(argument: String) {
        let parts = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return nil }
        column = String(parts[0])
        field = String(parts[1])
    }
}

/// A bound of `import`'s time range: an instant written as ISO-8601 (`2024-01-01T00:00:00Z`) or epoch,
/// or a day (`2024-01-01`, UTC), which starts the range at its first instant (`--earliest`) or ends it
/// after its last (`--latest`: the day's timestamps are accepted).
struct InstantArgument: ExpressibleByArgument, CustomStringConvertible {
    /// The instant, or the start of the day (midnight UTC).
    var instant: Instant
    /// The day, when one was given without a time.
    var day: CivilDate?

    init(_ instant: Instant) { self.instant = instant }

    /// The day that ends at `end` (a midnight UTC), so that ``end`` is `end` and help shows the
    /// last day accepted.
    init(through end: Instant) {
        let day = CivilDate(daysSince1970: LocalCalendar.day(end, offset: 0) - 1)
        self.day = day
        instant = LocalCalendar.midnight(of: day.daysSince1970, offset: 0)
    }

    init?(argument: String) {
        if let day = CivilDate(argument) {
            self.day = day
            instant = LocalCalendar.midnight(of: day.daysSince1970, offset: 0)
            return
        }
        var parser = TimestampParser()
        guard let parsed = try? parser.parse(argument) else { return nil }
        instant = parsed.time
    }

    /// As the first instant of a range (`--earliest`): the instant, or the start of the day.
    var start: Instant { instant }

    /// As the first instant after a range (`--latest`): the instant, or the end of the day (the
    /// next midnight UTC).
    var end: Instant { day.map { LocalCalendar.midnight(of: $0.daysSince1970 + 1, offset: 0) } ?? instant }

    var description: String {
        if let day { return day.description }
        return CivilDate(daysSince1970: LocalCalendar.day(instant, offset: 0)).description
    }

    var defaultValueDescription: String { description }
}
