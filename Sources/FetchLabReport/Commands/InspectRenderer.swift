import FetchLabCore
import FetchLabResults
import Foundation

/// What `fetchlab inspect` shows: launches per user and app, device-context coverage per user and
/// the signal events stored.
public struct InspectReport: Encodable {
    public var launches: [AppUsage]
    public var context: [ContextCoverage]
    /// What the imports dropped by default and the context they could not link to a user.
    public var notes: ImportNotes
    /// The signal events stored, per kind (unlock, screen on, notification, system UI); nil when
    /// not counted (`--app`).
    public var signals: SignalCounts?

    public init(
        launches: [AppUsage], context: [ContextCoverage], notes: ImportNotes = ImportNotes(),
        signals: SignalCounts? = nil
    ) {
        self.launches = launches
        self.context = context
        self.notes = notes
        self.signals = signals
    }
}

/// The inspect table, with a 24-hour profile drawn in block characters.
public enum InspectRenderer {
    /// Per user, the `top` most launched apps (all when 0), users by name.
    public static func topApps(_ usage: [AppUsage], top: Int) -> [AppUsage] {
        var shown: [AppUsage] = []
        for (_, group) in Dictionary(grouping: usage, by: \.user).sorted(by: { $0.key < $1.key }) {
            let sorted = group.sorted { ($1.launches, $0.app) < ($0.launches, $1.app) }
            shown += top > 0 ? Array(sorted.prefix(top)) : sorted
        }
        return shown
    }

    /// The launch table, then the context table, the signals and the notes; nil when there is
    /// nothing to show.
    public static func text(_ report: InspectReport) -> String? {
        var parts: [String] = []
        if !report.launches.isEmpty { parts.append(table(report.launches)) }
        if !report.context.isEmpty { parts.append(contextTable(report.context)) }
        if let counts = report.signals, !parts.isEmpty || counts.events > 0 { parts.append(signals(counts)) }
        if let notes = notes(report.notes) { parts.append(notes) }
        return parts.isEmpty ? nil : parts.joined(separator: "\n\n")
    }

    /// One line: the signal events stored per kind (with their users), and what a figure acting on
    /// unlocks can mean when there are none.
    public static func signals(_ counts: SignalCounts) -> String {
        let parts = SignalCounts.kinds.map {
            "\(DescribeRenderer.signalName($0)) \(DescribeRenderer.tally(counts[$0]))"
        }
        var line = "Signals (moments before use, never launches): " + parts.joined(separator: ", ") + "."
        if counts.unlock.events == 0 && counts.screenOn.events == 0 {
            line += " No unlock or screen-on events: figures that act on them equal those without."
        }
        return line
    }

    /// The import notes, one line each; nil when there are none.
    public static func notes(_ notes: ImportNotes) -> String? {
        var lines: [String] = []
        if notes.systemAppRowsDropped > 0 {
            let n = notes.systemAppRowsDropped
            lines.append(
                "Imports dropped \(TextFormat.count(n)) row\(n == 1 ? "" : "s") of system apps "
                    + "(\(ReadCounts.droppedSystemAppsInWords); from usagestats dumps also the pauses of "
                    + "\(ReadCounts.systemUIAppsInWords), whose screens are signals), "
                    + "as the evaluation protocol says; "
                    + "import them again with --keep-system-apps to keep them as launches.")
        }
        let unmatched = notes.unmatchedContextUsers
        if !unmatched.isEmpty {
            let one = unmatched.count == 1
            let shown = unmatched.prefix(3).map { TextFormat.escaped(ImportRenderer.shortName($0)) }
                .joined(separator: ", ") + (unmatched.count > 3 ? " and \(TextFormat.count(unmatched.count - 3)) more" : "")
            lines.append(
                "Context samples of \(TextFormat.count(unmatched.count)) user\(one ? "" : "s") or device\(one ? "" : "s") "
                    + "with no launches (\(shown)): no replay uses them; import \(one ? "its" : "each") file again with "
                    + "--user NAME (the user of the launches).")
        }
        return lines.isEmpty ? nil : lines.joined(separator: "\n")
    }

    public static func nothingStored(user: String?, app: String?) -> String {
        if let app { return "no launches stored of app \(app)\(user.map { " for user \($0)" } ?? "")" }
        return "no launches or context samples stored\(user.map { " for user \($0)" } ?? "")"
    }

    /// Per user: context samples, their span, and the shares charging, per network and in low power.
    public static func contextTable(_ rows: [ContextCoverage]) -> String {
        let users = rows.map { TextFormat.escaped($0.user) }
        let userWidth = max(4, users.map(\.count).max() ?? 4)
        func percent(_ share: Double?) -> String { share.map { String(format: "%.0f%%", $0 * 100) } ?? "–" }
        var lines = [
            TextFormat.pad("user", userWidth)
                + "   samples  first (UTC)           last (UTC)            days  charging  wifi  cellular  none  low power"
        ]
        for (r, user) in zip(rows, users) {
            lines.append(
                TextFormat.pad(user, userWidth) + "  " + TextFormat.pad(TextFormat.count(r.samples), 8, right: true)
                    + "  "
                    + r.first + "  " + r.last + "  " + TextFormat.pad(TextFormat.count(r.daysCovered), 4, right: true)
                    + "  "
                    + TextFormat.pad(percent(r.chargingShare), 8, right: true) + "  "
                    + TextFormat.pad(percent(r.wifiShare), 4, right: true) + "  "
                    + TextFormat.pad(percent(r.cellularShare), 8, right: true) + "  "
                    + TextFormat.pad(percent(r.noNetworkShare), 4, right: true) + "  "
                    + TextFormat.pad(percent(r.lowPowerShare), 9, right: true))
        }
        lines.append("")
        lines.append(
            "Context: device samples per user; shares are of the samples that recorded the field (– where none did).")
        return lines.joined(separator: "\n")
    }

    static let blocks: [Character] = [" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]

    public static func sparkline(_ hourly: [Int]) -> String {
        let peak = hourly.max() ?? 0
        guard peak > 0 else { return String(repeating: " ", count: hourly.count) }
        return String(
            hourly.map { n in
                n == 0 ? blocks[0] : blocks[max(1, Int((Double(n) / Double(peak) * 8).rounded()))]
            })
    }

    /// Names are escaped (``TextFormat/escaped(_:)``): a newline or ESC in an app's name keeps
    /// to its row and cannot drive the terminal.
    public static func table(_ rows: [AppUsage]) -> String {
        let users = rows.map { TextFormat.escaped($0.user) }
        let apps = rows.map { TextFormat.escaped($0.app) }
        let userWidth = max(4, users.map(\.count).max() ?? 4)
        let appWidth = max(3, min(40, apps.map(\.count).max() ?? 3))
        var lines: [String] = []
        lines.append(
            TextFormat.pad("user", userWidth) + "  " + TextFormat.pad("app", appWidth)
                + "  launches  days  /day  first       last        "
                + "0     6     12    18    ")
        for (i, r) in rows.enumerated() {
            let app = apps[i].count > appWidth ? String(apps[i].prefix(appWidth - 1)) + "…" : apps[i]
            lines.append(
                TextFormat.pad(users[i], userWidth) + "  " + TextFormat.pad(app, appWidth) + "  "
                    + TextFormat.pad(TextFormat.count(r.launches), 8, right: true) + "  "
                    + TextFormat.pad(String(r.daysCovered), 4, right: true) + "  "
                    + TextFormat.pad(String(format: "%.1f", r.launchesPerDay), 4, right: true) + "  "
                    + r.firstDay + "  " + r.lastDay + "  |" + sparkline(r.hourly) + "|"
                    + (r.localTime ? "" : " UTC"))
        }
        lines.append("")
        lines.append(
            "Profile: launches per hour of the local day (UTC where the log gave no offset or --timezone), scaled to each row's peak."
        )
        return lines.joined(separator: "\n")
    }
}
