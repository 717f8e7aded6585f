import ArgumentParser
import FetchLabStore
import Foundation

struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Per user and app: launches, days covered, launches per day and a 24-hour usage profile.")

    @OptionGroup var database: DatabaseOptions

    @Option(help: "Only this user.")
    var user: String?

    @Option(help: "Only this app.")
    var app: String?

    @Option(help: "Show at most this many apps per user, most launched first (0 = all).")
    var top = 0

    @Option(help: "Output: text or json.")
    var format: OutputFormat = .text

    func run() throws {
        let usage: [AppUsage]
        do {
            let store = try FetchLabDatabase(path: database.db, readOnly: true)
            usage = try UsageQueries(database: store).appUsage(user: user, app: app)
        } catch {
            Terminal.error(error.description)
            throw ExitCode(2)
        }
        var shown: [AppUsage] = []
        for (_, group) in Dictionary(grouping: usage, by: \.user).sorted(by: { $0.key < $1.key }) {
            let sorted = group.sorted { ($1.launches, $0.app) < ($0.launches, $1.app) }
            shown += top > 0 ? Array(sorted.prefix(top)) : sorted
        }
        if format == .json {
            print(Format.json(shown))
            return
        }
        if shown.isEmpty {
            Terminal.note(
                "no launches stored\(user.map { " for user \($0)" } ?? "")\(app.map { " of app \($0)" } ?? "")")
            return
        }
        print(InspectRenderer.table(shown))
    }
}

/// The inspect table, with a 24-hour profile drawn in block characters.
enum InspectRenderer {
    static let blocks: [Character] = [" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]

    static func sparkline(_ hourly: [Int]) -> String {
        let peak = hourly.max() ?? 0
        guard peak > 0 else { return String(repeating: " ", count: hourly.count) }
        return String(
            hourly.map { n in
                n == 0 ? blocks[0] : blocks[max(1, Int((Double(n) / Double(peak) * 8).rounded()))]
            })
    }

    static func table(_ rows: [AppUsage]) -> String {
        let userWidth = max(4, rows.map(\.user.count).max() ?? 4)
        let appWidth = max(3, min(40, rows.map(\.app.count).max() ?? 3))
        var lines: [String] = []
        lines.append(
            Format.pad("user", userWidth) + "  " + Format.pad("app", appWidth)
                + "  launches  days  /day  first       last        "
                + "0     6     12    18    ")
        for r in rows {
            let app = r.app.count > appWidth ? String(r.app.prefix(appWidth - 1)) + "…" : r.app
            lines.append(
                Format.pad(r.user, userWidth) + "  " + Format.pad(app, appWidth) + "  "
                    + Format.pad(Format.count(r.launches), 8, right: true) + "  "
                    + Format.pad(String(r.daysCovered), 4, right: true) + "  "
                    + Format.pad(String(format: "%.1f", r.launchesPerDay), 4, right: true) + "  "
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
