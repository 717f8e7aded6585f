import FetchLabStore

/// What `fetchlab runs` prints: one line per stored run.
enum RunsRenderer {
    /// `{"runs": [...]}` for `--format json`.
    struct JSON: Encodable {
        var runs: [RunSummary]
    }

    static func text(_ runs: [RunSummary], database: String) -> String {
        guard !runs.isEmpty else {
            return "no runs stored in \(database) (fetchlab compare stores one)"
        }
        let pad = Format.pad
        var lines = [
            [
                pad("id", 5, true), pad("created (UTC)", 19, false), pad("command", 8, false), pad("policies", 8, true),
                pad("users", 7, true), pad("scored launches", 15, true),
            ].joined(separator: "  ")
        ]
        for r in runs {
            // 2026-11-23T17:23:33.123Z → 2026-11-23 17:23:33
            let created = String(r.createdAt.prefix(19)).replacingOccurrences(of: "T", with: " ")
            lines.append(
                [
                    pad("\(r.id)", 5, true), pad(created, 19, false), pad(Format.escaped(r.command), 8, false),
                    pad(Format.count(r.policies), 8, true), pad(Format.count(r.users), 7, true),
                    pad(Format.count(r.scoredLaunches), 15, true),
                ].joined(separator: "  "))
        }
        return lines.joined(separator: "\n")
    }
}
