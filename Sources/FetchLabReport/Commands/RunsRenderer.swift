import FetchLabResults

/// What `fetchlab runs` prints: one line per stored run, then one per tuning run.
public enum RunsRenderer {
    /// `{"runs": [...], "tuning_runs": [...]}` for `--format json`.
    public struct JSON: Encodable {
        public var runs: [RunSummary]
        public var tuningRuns: [TuningRunSummary] = []

        public init(runs: [RunSummary], tuningRuns: [TuningRunSummary] = []) {
            self.runs = runs
            self.tuningRuns = tuningRuns
        }

        enum CodingKeys: String, CodingKey {
            case runs, tuningRuns = "tuning_runs"
        }
    }

    /// The comparison runs, then (when there are any) a `tuning runs` section.
    public static func text(_ runs: [RunSummary], tuning: [TuningRunSummary], database: String) -> String {
        guard !tuning.isEmpty else { return text(runs, database: database) }
        let pad = TextFormat.pad
        var lines = [
            runs.isEmpty
                ? "no comparison runs stored in \(database) (fetchlab compare stores one)"
                : text(runs, database: database),
            "",
            "tuning runs (fetchlab runs show-tune N):",
            [
                pad("id", 5, true), pad("created (UTC)", 19, false), pad("family", 11, false), pad("settings", 8, true),
                pad("chosen", 24, false), "best fixed",
            ].joined(separator: "  "),
        ]
        for r in tuning {
            lines.append(
                [
                    pad("\(r.id)", 5, true), pad(created(r.createdAt), 19, false),
                    pad(TextFormat.escaped(r.family), 11, false),
                    pad(TextFormat.count(r.settings), 8, true), pad(TextFormat.escaped(r.chosen), 24, false),
                    TextFormat.escaped(r.bestFixed ?? "none"),
                ].joined(separator: "  "))
        }
        return lines.joined(separator: "\n")
    }

    /// 2026-11-23T17:23:33.123Z → 2026-11-23 17:23:33
    public static func created(_ iso: String) -> String {
        String(iso.prefix(19)).replacingOccurrences(of: "T", with: " ")
    }

    public static func text(_ runs: [RunSummary], database: String) -> String {
        guard !runs.isEmpty else {
            return "no runs stored in \(database) (fetchlab compare stores one)"
        }
        let pad = TextFormat.pad
        var lines = [
            [
                pad("id", 5, true), pad("created (UTC)", 19, false), pad("command", 8, false), pad("policies", 8, true),
                pad("users", 7, true), pad("scored launches", 15, true), pad("τ", 6, true),
                pad("launch refreshes", 16, false), "platform",
            ].joined(separator: "  ")
        ]
        for r in runs {
            lines.append(
                [
                    pad("\(r.id)", 5, true), pad(created(r.createdAt), 19, false),
                    pad(TextFormat.escaped(r.command), 8, false),
                    pad(TextFormat.count(r.policies), 8, true), pad(TextFormat.count(r.users), 7, true),
                    pad(TextFormat.count(r.scoredLaunches), 15, true),
                    pad(CompareRenderer.minutes(r.tau.inMinutes), 6, true),
                    pad(r.launchRefreshes ? "on" : "off", 16, false),
                    TextFormat.escaped(r.platform),
                ].joined(separator: "  "))
        }
        return lines.joined(separator: "\n")
    }
}
