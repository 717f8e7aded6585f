import ArgumentParser
import FetchLabReport
import FetchLabResults
import FetchLabTerminal
import FetchLabWorkflows
import Foundation

struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract:
            "Per user and app: launches, days covered, launches per day and a 24-hour usage profile; per user: device-context coverage."
    )

    @OptionGroup var database: DatabaseOptions

    @Option(help: "Only this user.")
    var user: String?

    @Option(help: "Only this app (device context, which is per user, is then not shown).")
    var app: String?

    @Option(
        parsing: .unconditional,
        help: "Show at most this many apps per user, most launched first (0 = all; at most 1,000,000).")
    var top = 0

    @Option(help: "Output: text or json.")
    var format: OutputFormat = .text

    func validate() throws {
        try Bounds.check("--top", top, 0...1_000_000)
        for (option, name) in [("--user", user), ("--app", app)] {
            if let name, name.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                throw ValidationError("\(option) '\(name)': give a name (fetchlab inspect lists them)")
            }
        }
    }

    func run() throws {
        let held = try Inspection.run(database: database.db, user: user, app: app)
        let report = InspectReport(
            launches: InspectRenderer.topApps(held.launches, top: top), context: held.context, notes: held.notes,
            signals: held.signals)
        if format == .json {
            print(Format.json(report))
        } else if let text = InspectRenderer.text(report) {
            print(text)
        } else {
            Terminal.note(InspectRenderer.nothingStored(user: user, app: app))
        }
    }
}
