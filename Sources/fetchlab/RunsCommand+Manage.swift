import ArgumentParser
import FetchLabReport
import FetchLabResults
import FetchLabTerminal
import FetchLabWorkflows

extension RunsCommand {
    /// `fetchlab runs delete ID…`
    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete stored comparison runs and all their rows, in one transaction.",
            discussion: """
                Deletes each run and its policy, per-app and per-user rows. Every id is checked \
                first: when one names no run, the command says which in one line, exits 1 and \
                deletes nothing.
                """)

        @OptionGroup var database: DatabaseOptions

        @Argument(help: "The runs' ids (see fetchlab runs).")
        var ids: [Int64]

        func validate() throws {
            if ids.isEmpty { throw ValidationError("runs delete: give the id of at least one run (see fetchlab runs)") }
        }

        func run() throws {
            let deleted = try StoredRuns.delete(ids, database: database.db)
            let list = deleted.map(String.init).joined(separator: ", ")
            print("deleted run\(deleted.count == 1 ? "" : "s") \(list) from \(database.db)")
        }
    }

    /// `fetchlab runs diff A B`
    struct Diff: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Compare two stored runs policy by policy: A, B and B − A.",
            discussion: """
                For each policy in both runs: fresh@τ, fetches per app per day and energy (J per user \
                per day) in run A and run B, and the difference B − A; the difference in fresh has \
                its 95 % bootstrap interval over users when both runs were stored with per-user \
                figures (compare --per-user), else the output says there is none. Policies in one \
                run only are listed as such. Runs with a different τ or evaluation protocol \
                (launch refreshes, warm-up, min launches, platform, context defaults, cost model) \
                are refused unless --force, which prints a warning naming the settings instead.
                """)

        @OptionGroup var database: DatabaseOptions

        @Argument(help: "The first run's id (A).")
        var a: Int64

        @Argument(help: "The second run's id (B).")
        var b: Int64

        @Flag(help: "Diff runs whose τ or protocol settings differ (with a warning naming them).")
        var force = false

        @Option(help: "Output: text or json.")
        var format: OutputFormat = .text

        func run() throws {
            let diff = try StoredRuns.diff(a, b, database: database.db, force: force)
            if !diff.differingSettings.isEmpty {
                let settings = diff.differingSettings.joined(separator: ", ")
                Terminal.warning("runs \(a) and \(b) differ in \(settings); their figures may not compare")
            }
            switch format {
            case .json: print(Format.json(diff))
            case .text: print(RunsRenderer.diff(diff))
            }
        }
    }
}
