import FetchLabCore
import FetchLabResults

/// Text rendering of import summaries and progress.
public enum ImportRenderer {
    /// Every name in the text (paths, reject reasons quoting a field) is escaped
    /// (``TextFormat/escaped(_:)``): a control character in a log cannot reach the terminal.
    /// `formatStated`: the format was given with `--input-format` (no word on how the file was
    /// read is then needed).
    public static func text(_ s: ImportSummary, formatStated: Bool = false) -> String {
        let path = TextFormat.escaped(s.path)
        if s.status == .unchanged {
            return
                "\(path): unchanged — the same content was imported before (import #\(s.importID)) with the same read options; nothing to do (--force reads it again)"
        }
        var kind = s.format.rawValue
        if let syntax = s.syntax { kind += "/\(syntax)" }
        if let compression = s.compression { kind += ", \(compression)" }
        var lines = [
            "\(path) (\(TextFormat.escaped(kind)), \(TextFormat.bytes(s.bytes))): \(TextFormat.count(s.counts.rows)) rows → \(counts(s)) "
                + "in \(TextFormat.seconds(s.seconds)) (\(TextFormat.count(Int(s.rowsPerSecond))) rows/s)"
        ]
        for reject in s.firstRejects.prefix(3) {
            lines.append("  \(path):\(reject.line): \(TextFormat.escaped(reject.reason))")
        }
        if s.counts.rejected > 3 {
            lines.append(
                "  … \(TextFormat.count(s.counts.rejected - 3)) more rejects in the rejected_rows view (import #\(s.importID))"
            )
        }
        if let placeholders = placeholders(s) { lines.append("  " + placeholders) }
        if let signals = signals(s) { lines.append("  " + signals) }
        if let systemApps = systemApps(s) { lines.append("  " + systemApps) }
        if !formatStated, let reading = contentReading(s) { lines.append("  " + reading) }
        return lines.joined(separator: "\n")
    }

    /// How a detected content-update file was read (a `timestamp,app` header, no user: each row an
    /// app's new content, for every user) and the option that reads its rows as launches instead;
    /// nil for other formats.
    public static func contentReading(_ s: ImportSummary) -> String? {
        guard s.format == .content, s.status != .unchanged else { return nil }
        return "read as content updates (timestamp and app, no user: an app's new content, for every user); "
            + "if they are launches, --user NAME reads them as that user's launches"
    }

    /// How many rows of system apps the file's format dropped by default, and how to keep them;
    /// nil when none. Foreground logs read launchers and system UI as signals (``signals(_:)``):
    /// what they drop is the rest.
    public static func systemApps(_ s: ImportSummary) -> String? {
        guard s.counts.systemApps > 0 else { return nil }
        let n = s.counts.systemApps
        let which = s.format == .foreground ? ReadCounts.droppedSystemAppsInWords : ReadCounts.systemAppsInWords
        return "dropped \(TextFormat.count(n)) row\(n == 1 ? "" : "s") of system apps (\(which)): "
            + "not apps the user chose, as the evaluation protocol says; --keep-system-apps keeps them"
    }

    /// How many signal events the file gave (unlocks, screens on, notifications, system-UI
    /// screens: moments before use, never launches) and, for foreground logs, from how many rows
    /// of launchers and system UI; nil when none.
    public static func signals(_ s: ImportSummary) -> String? {
        let n = s.counts.signals
        guard n > 0 else { return nil }
        if s.format == .foreground {
            let rows = s.counts.signalRows
            return "\(TextFormat.count(rows)) row\(rows == 1 ? "" : "s") of \(ReadCounts.systemUIAppsInWords) became "
                + "\(TextFormat.count(n)) system-UI signal\(n == 1 ? "" : "s") (\(TextFormat.counted(rows - n, "row")) continued the one before): "
                + "moments before use a scheduler may act on, not launches; --keep-system-apps reads them as launches"
        }
        let what =
            s.format == .battery
            ? "screen-on signal\(n == 1 ? "" : "s") (isInteractive turning true)"
            : "signal event\(n == 1 ? "" : "s") (unlock, screen on, notification, system UI)"
        return "\(TextFormat.count(n)) \(what): moments before use a scheduler may act on, not launches"
    }

    /// How many rows were rejected for a placeholder timestamp (near 1970-01-01); nil when none.
    public static func placeholders(_ s: ImportSummary) -> String? {
        guard s.counts.placeholders > 0 else { return nil }
        let n = s.counts.placeholders
        return
            "\(TextFormat.count(n)) row\(n == 1 ? "" : "s") at 1970-01-01 \(n == 1 ? "looks like a placeholder timestamp" : "look like placeholder timestamps") (epoch 0): "
            + "\(n == 1 ? "it is" : "they are") rejected; nothing to change unless \(n == 1 ? "it is" : "they are") real"
    }

    /// The warning for a file whose context samples belong to devices (users) with no launches in
    /// the database: stored, but read by no replay. Nil when every device matched a user.
    public static func unmatchedContext(_ s: ImportSummary) -> String? {
        unmatchedContext(s, names: s.unmatchedContextUsers)
    }

    /// The same for `names`, of devices whose samples a `--user` mapping could put to use.
    static func unmatchedContext(_ s: ImportSummary, names: [String]) -> String? {
        guard !names.isEmpty else { return nil }
        let noun = s.format == .battery ? "device" : "user"
        let one = names.count == 1
        return
            "\(TextFormat.escaped(s.path)): \(noun)\(one ? "" : "s") \(shortNames(names)) match\(one ? "es" : "") no user with launches: "
            + "\(one ? "its" : "their") samples are stored but no user's replay will use them; "
            + "map \(one ? "it" : "them") with --user NAME (the user of the launches)"
    }

    /// The warnings on the context samples of an import, once every file is in (`overlaps`: per
    /// import id, each user's samples beside the user's launches; `launches`: the first and last
    /// launch in the database):
    /// - a user whose launches the samples do not overlap in time: one warning per file, for the
    ///   samples are read at the launches' times and no replay reads these (a `--user` mapping
    ///   to the wrong user, or timestamps read in the wrong unit or zone);
    /// - devices with no launches whose samples do overlap some launch: per file, the hint to map
    ///   them with `--user` (``unmatchedContext(_:)``);
    /// - devices with no launches whose samples overlap no launch at all: one warning for all the
    ///   files, since mapping them to a user cannot help.
    public static func contextWarnings(
        _ summaries: [ImportSummary], overlaps: [Int64: [ContextOverlap]], launches: ClosedRange<Instant>?
    ) -> [String] {
        var lines: [String] = []
        var apart: [(path: String, format: LogFormat, overlap: ContextOverlap)] = []
        for s in summaries {
            let spans = overlaps[s.importID] ?? []
            for o in spans where o.launches != nil && !o.overlapsLaunches {
                let launches = o.launches ?? o.samples
                lines.append(
                    "\(TextFormat.escaped(s.path)): the samples of user \(TextFormat.escaped(o.user)) "
                        + "(\(days(o.samples))) do not overlap its launches (\(days(launches))) in time: "
                        + "no replay will use them; check the user named and the timestamps (--epoch-unit, --timezone)")
            }
            let unmatched = s.unmatchedContextUsers
            guard let launches else {
                if let line = unmatchedContext(s, names: unmatched) { lines.append(line) }
                continue
            }
            let byUser = Dictionary(spans.map { ($0.user, $0) }, uniquingKeysWith: { a, _ in a })
            var mappable: [String] = []
            for name in unmatched {
                if let o = byUser[name], !launches.overlaps(o.samples) {
                    apart.append((s.path, s.format, o))
                } else {
                    mappable.append(name)
                }
            }
            if let line = unmatchedContext(s, names: mappable) { lines.append(line) }
        }
        if let launches, !apart.isEmpty {
            let first = apart.map(\.overlap.firstSample).min() ?? .epoch
            let last = apart.map(\.overlap.lastSample).max() ?? .epoch
            let names = apart.map(\.overlap.user)
            let files = Set(apart.map(\.path)).count
            let noun = apart.allSatisfy { $0.format == .battery } ? "device" : "user"
            let one = names.count == 1
            let whose =
                files == 1
                ? "\(TextFormat.escaped(apart[0].path)): \(noun)\(one ? "" : "s") \(shortNames(names))"
                : "\(TextFormat.count(files)) context files: \(TextFormat.count(names.count)) \(noun)s (\(shortNames(names)))"
            lines.append(
                "\(whose) with samples from \(days(first...max(first, last))) that overlap no launch in the database "
                    + "(launches \(days(launches))): \(one ? "its" : "their") samples are stored but no replay will use them, "
                    + "and --user cannot help (import the usage logs of the same days)")
        }
        return lines
    }

    /// `YYYY-MM-DD to YYYY-MM-DD` (UTC) of a span; one date when it is one day.
    static func days(_ span: ClosedRange<Instant>) -> String {
        let first = CivilDate(daysSince1970: LocalCalendar.day(span.lowerBound, offset: 0)).description
        let last = CivilDate(daysSince1970: LocalCalendar.day(span.upperBound, offset: 0)).description
        return first == last ? first : "\(first) to \(last)"
    }

    /// Up to three names (each cut by ``shortName(_:)``) and how many more.
    static func shortNames(_ names: [String]) -> String {
        names.prefix(3).map { TextFormat.escaped(shortName($0)) }.joined(separator: ", ")
            + (names.count > 3 ? " and \(TextFormat.count(names.count - 3)) more" : "")
    }

    /// The note for timestamps written without a zone and read as UTC (no `--timezone` given),
    /// over all the files; nil when every timestamp carried a zone (or was an epoch number).
    public static func readAsUTC(_ summaries: [ImportSummary]) -> String? {
        let n = summaries.reduce(0) { $0 + $1.counts.readAsUTC }
        guard n > 0 else { return nil }
        return "note: \(TextFormat.count(n)) timestamp\(n == 1 ? " had" : "s had") no zone and "
            + "\(n == 1 ? "was" : "were") read as UTC; give --timezone ZONE (e.g. Europe/Berlin) if "
            + "\(n == 1 ? "it is" : "they are") local time"
    }

    /// A long device id cut to its first 6 characters and "…" (ids are often 32 hex digits).
    public static func shortName(_ name: String) -> String {
        name.count > 12 ? String(name.prefix(6)) + "…" : name
    }

    /// Where every row read went: new, duplicate, rejected, excluded, merged into a session (shown
    /// for foreground logs, or whenever there are some) and, should a reader miscount, unaccounted.
    public static func counts(_ s: ImportSummary) -> String {
        var parts = [
            newRecords(s),
            "\(TextFormat.count(s.counts.duplicate)) duplicate",
            "\(TextFormat.count(s.counts.rejected)) rejected", "\(TextFormat.count(s.counts.excluded)) excluded",
        ]
        if s.counts.merged > 0 || s.format == .foreground || s.format == .usagestats {
            parts.append("\(TextFormat.count(s.counts.merged)) merged into sessions")
        }
        if s.counts.notEvents > 0 || s.format == .usagestats {
            parts.append("\(TextFormat.count(s.counts.notEvents)) lines skipped as not events")
        }
        if s.unaccounted != 0 { parts.append("\(TextFormat.count(s.unaccounted)) unaccounted") }
        return parts.joined(separator: ", ")
    }

    /// The new records, in the file's own noun; split by table when it gave more than one kind
    /// (a battery log's screen-on events beside its samples, a dump's screen samples beside its
    /// events): "10,056 new records (9,893 context samples, 163 events)".
    public static func newRecords(_ s: ImportSummary) -> String {
        let i = s.inserted
        let tables = [
            (i.usageEvents, "event"), (i.contextSamples, "context sample"), (i.contentUpdates, "content update"),
        ]
        let present = tables.filter { $0.0 > 0 }
        guard present.count > 1 else {
            let noun = recordNoun(s)
            return TextFormat.counted(i.total, "new " + noun.dropLast(), plural: "new " + noun)
        }
        return TextFormat.counted(i.total, "new record") + " ("
            + present.map { TextFormat.counted($0.0, $0.1) }.joined(separator: ", ") + ")"
    }

    public static func recordNoun(_ s: ImportSummary) -> String {
        switch s.format {
        case .context, .battery: "context samples"
        case .content: "content updates"
        default: "events"
        }
    }

    /// The one-line error for a file of which no row was accepted, with what to try.
    public static func nothingAccepted(_ s: ImportSummary) -> String {
        guard s.counts.rows > 0 else {
            return
                "\(s.path): no data rows (an empty file, or a header only); nothing was imported — check that this is the file you meant"
        }
        let first = s.firstRejects.first.map { " (first: line \($0.line): \(TextFormat.escaped($0.reason)))" } ?? ""
        return
            "\(s.path): none of its \(TextFormat.count(s.counts.rows)) rows was accepted\(first); nothing was imported — "
            + "check --input-format, --epoch-unit, --timezone, --earliest/--latest and --map, then import it again"
    }

    public static func total(_ summaries: [ImportSummary], failed: Int) -> String {
        let imported = summaries.filter { $0.status != .nothingAccepted }.count
        let rows = summaries.reduce(0) { $0 + $1.counts.rows }
        let new = summaries.reduce(0) { $0 + $1.inserted.total }
        let rejected = summaries.reduce(0) { $0 + $1.counts.rejected }
        let seconds = summaries.reduce(0) { $0 + $1.seconds }
        return
            "total: \(imported) file\(imported == 1 ? "" : "s") imported, \(failed) failed; \(TextFormat.count(rows)) rows, "
            + "\(TextFormat.count(new)) new records, \(TextFormat.count(rejected)) rejected in \(TextFormat.seconds(seconds))"
    }

    /// The progress line (stderr, on a terminal).
    public static func progress(_ p: ImportProgress) -> String {
        if p.phase == .storing {
            let fraction = p.rows > 0 ? Double(p.stored) / Double(p.rows) : 1
            return
                "\(ProgressLine.bar(fraction: fraction)) storing \(TextFormat.count(p.stored))/\(TextFormat.count(p.rows)) events in key order  \(p.path)"
        }
        var line = "\(p.path)  \(TextFormat.count(p.rows)) rows"
        let rate = p.elapsed > 0 ? Double(p.rows) / p.elapsed : 0
        line += "  \(TextFormat.count(Int(rate))) rows/s"
        if let total = p.totalBytes, total > 0 {
            let fraction = Double(p.bytesRead) / Double(total)
            line =
                "\(ProgressLine.bar(fraction: fraction)) \(TextFormat.bytes(p.bytesRead))/\(TextFormat.bytes(total))  "
                + line
            if fraction > 0.01 { line += "  ETA \(TextFormat.seconds(p.elapsed / fraction - p.elapsed))" }
        }
        return line
    }
}

/// `fetchlab import --format json`: one document for all files.
public struct ImportReport: Encodable {
    public var database: String
    public var files: [ImportSummary]
    public var errors: [String]

    public init(database: String, files: [ImportSummary], errors: [String]) {
        self.database = database
        self.files = files
        self.errors = errors
    }

    enum CodingKeys: String, CodingKey { case database, files, errors }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(database, forKey: .database)
        try c.encode(files.map(FileReport.init), forKey: .files)
        try c.encode(errors, forKey: .errors)
    }

    /// A file's summary plus the total of new records and, should a reader miscount, the rows
    /// that are none of new, duplicate, rejected, excluded or merged.
    public struct FileReport: Encodable {
        var summary: ImportSummary

        enum Extra: String, CodingKey { case newRecords, unaccounted }

        public func encode(to encoder: any Encoder) throws {
            try summary.encode(to: encoder)
            var c = encoder.container(keyedBy: Extra.self)
            try c.encode(summary.inserted.total, forKey: .newRecords)
            if summary.unaccounted != 0 { try c.encode(summary.unaccounted, forKey: .unaccounted) }
        }
    }
}
