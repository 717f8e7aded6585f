import FetchLabIngest
import FetchLabReport
import FetchLabStore

/// Text rendering of import summaries and progress.
enum ImportRenderer {
    /// Every name in the text (paths, reject reasons quoting a field) is escaped
    /// (``TextFormat/escaped(_:)``): a control character in a log cannot reach the terminal.
    static func text(_ s: ImportSummary) -> String {
        let path = Format.escaped(s.path)
        if s.status == .unchanged {
            return
                "\(path): unchanged — the same content was imported before (import #\(s.importID)) with the same read options; nothing to do (--force reads it again)"
        }
        var kind = s.format
        if let syntax = s.syntax { kind += "/\(syntax)" }
        if let compression = s.compression { kind += ", \(compression)" }
        var lines = [
            "\(path) (\(Format.escaped(kind)), \(Format.bytes(s.bytes))): \(Format.count(s.counts.rows)) rows → \(counts(s)) "
                + "in \(Format.seconds(s.seconds)) (\(Format.count(Int(s.rowsPerSecond))) rows/s)"
        ]
        for reject in s.firstRejects.prefix(3) {
            lines.append("  \(path):\(reject.line): \(Format.escaped(reject.reason))")
        }
        if s.counts.rejected > 3 {
            lines.append(
                "  … \(Format.count(s.counts.rejected - 3)) more rejects in the rejected_rows view (import #\(s.importID))"
            )
        }
        return lines.joined(separator: "\n")
    }

    /// Where every row read went: new, duplicate, rejected, excluded, merged into a session (shown
    /// for foreground logs, or whenever there are some) and, should a reader miscount, unaccounted.
    static func counts(_ s: ImportSummary) -> String {
        var parts = [
            "\(Format.count(s.inserted.total)) new \(recordNoun(s))", "\(Format.count(s.counts.duplicate)) duplicate",
            "\(Format.count(s.counts.rejected)) rejected", "\(Format.count(s.counts.excluded)) excluded",
        ]
        if s.counts.merged > 0 || s.format == LogFormat.foreground.rawValue || s.format == LogFormat.usagestats.rawValue
        {
            parts.append("\(Format.count(s.counts.merged)) merged into sessions")
        }
        if s.counts.notEvents > 0 || s.format == LogFormat.usagestats.rawValue {
            parts.append("\(Format.count(s.counts.notEvents)) lines skipped as not events")
        }
        if s.unaccounted != 0 { parts.append("\(Format.count(s.unaccounted)) unaccounted") }
        return parts.joined(separator: ", ")
    }

    static func recordNoun(_ s: ImportSummary) -> String {
        switch s.format {
        case "context", "battery": "context samples"
        case "content": "content updates"
        default: "events"
        }
    }

    /// The one-line error for a file of which no row was accepted, with what to try.
    static func nothingAccepted(_ s: ImportSummary) -> String {
        guard s.counts.rows > 0 else {
            return
                "\(s.path): no data rows (an empty file, or a header only); nothing was imported — check that this is the file you meant"
        }
        let first = s.firstRejects.first.map { " (first: line \($0.line): \(Format.escaped($0.reason)))" } ?? ""
        return
            "\(s.path): none of its \(Format.count(s.counts.rows)) rows was accepted\(first); nothing was imported — "
            + "check --input-format, --epoch-unit, --timezone, --earliest/--latest and --map, then import it again"
    }

    static func total(_ summaries: [ImportSummary], failed: Int) -> String {
        let imported = summaries.filter { $0.status != .nothingAccepted }.count
        let rows = summaries.reduce(0) { $0 + $1.counts.rows }
        let new = summaries.reduce(0) { $0 + $1.inserted.total }
        let rejected = summaries.reduce(0) { $0 + $1.counts.rejected }
        let seconds = summaries.reduce(0) { $0 + $1.seconds }
        return
            "total: \(imported) file\(imported == 1 ? "" : "s") imported, \(failed) failed; \(Format.count(rows)) rows, "
            + "\(Format.count(new)) new records, \(Format.count(rejected)) rejected in \(Format.seconds(seconds))"
    }

    /// The progress line (stderr, on a terminal).
    static func progress(_ p: ImportProgress) -> String {
        if p.phase == .storing {
            let fraction = p.rows > 0 ? Double(p.stored) / Double(p.rows) : 1
            return
                "\(ProgressLine.bar(fraction: fraction)) storing \(Format.count(p.stored))/\(Format.count(p.rows)) events in key order  \(p.path)"
        }
        var line = "\(p.path)  \(Format.count(p.rows)) rows"
        let rate = p.elapsed > 0 ? Double(p.rows) / p.elapsed : 0
        line += "  \(Format.count(Int(rate))) rows/s"
        if let total = p.totalBytes, total > 0 {
            let fraction = Double(p.bytesRead) / Double(total)
            line =
                "\(ProgressLine.bar(fraction: fraction)) \(Format.bytes(p.bytesRead))/\(Format.bytes(total))  " + line
            if fraction > 0.01 { line += "  ETA \(Format.seconds(p.elapsed / fraction - p.elapsed))" }
        }
        return line
    }
}

/// `fetchlab import --format json`: one document for all files.
struct ImportReport: Encodable {
    var database: String
    var files: [ImportSummary]
    var errors: [String]

    enum CodingKeys: String, CodingKey { case database, files, errors }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(database, forKey: .database)
        try c.encode(files.map(FileReport.init), forKey: .files)
        try c.encode(errors, forKey: .errors)
    }

    /// A file's summary plus the total of new records and, should a reader miscount, the rows
    /// that are none of new, duplicate, rejected, excluded or merged.
    struct FileReport: Encodable {
        var summary: ImportSummary

        enum Extra: String, CodingKey { case newRecords, unaccounted }

        func encode(to encoder: any Encoder) throws {
            try summary.encode(to: encoder)
            var c = encoder.container(keyedBy: Extra.self)
            try c.encode(summary.inserted.total, forKey: .newRecords)
            if summary.unaccounted != 0 { try c.encode(summary.unaccounted, forKey: .unaccounted) }
        }
    }
}
