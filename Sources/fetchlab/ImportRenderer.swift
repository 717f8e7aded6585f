import FetchLabIngest
import FetchLabStore

/// Text rendering of import summaries.
enum ImportRenderer {
    static func text(_ s: ImportSummary) -> String {
        if s.status == .unchanged {
            return "\(s.path): unchanged — the same content was imported before (import #\(s.importID)); nothing to do"
        }
        var kind = s.format
        if let syntax = s.syntax { kind += "/\(syntax)" }
        if let compression = s.compression { kind += ", \(compression)" }
        var lines = [
            "\(s.path) (\(kind), \(Format.bytes(s.bytes))): \(Format.count(s.counts.rows)) rows → "
                + "\(Format.count(s.inserted.total)) new \(recordNoun(s)), \(Format.count(s.counts.duplicate)) duplicate, "
                + "\(Format.count(s.counts.rejected)) rejected, \(Format.count(s.counts.excluded)) excluded "
                + "in \(Format.seconds(s.seconds)) (\(Format.count(Int(s.rowsPerSecond))) rows/s)"
        ]
        for reject in s.firstRejects.prefix(3) {
            lines.append("  \(s.path):\(reject.line): \(reject.reason)")
        }
        if s.counts.rejected > 3 {
            lines.append(
                "  … \(Format.count(s.counts.rejected - 3)) more rejects in the rejected_rows view (import #\(s.importID))"
            )
        }
        return lines.joined(separator: "\n")
    }

    static func recordNoun(_ s: ImportSummary) -> String {
        switch s.format {
        case "context", "battery": "context samples"
        case "content": "content updates"
        default: "events"
        }
    }

    static func total(_ summaries: [ImportSummary], failed: Int) -> String {
        let rows = summaries.reduce(0) { $0 + $1.counts.rows }
        let new = summaries.reduce(0) { $0 + $1.inserted.total }
        let rejected = summaries.reduce(0) { $0 + $1.counts.rejected }
        let seconds = summaries.reduce(0) { $0 + $1.seconds }
        return
            "total: \(summaries.count) file\(summaries.count == 1 ? "" : "s") imported, \(failed) failed; \(Format.count(rows)) rows, "
            + "\(Format.count(new)) new records, \(Format.count(rejected)) rejected in \(Format.seconds(seconds))"
    }
}
