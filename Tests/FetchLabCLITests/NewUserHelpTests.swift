import Foundation
import Testing
import _FetchLabTestSupport

@testable import fetchlab

/// `--users 0` is a usage error like the others, `compare --help` says what `--platform none`
/// means and the root overview names every command (issue 25).
@Suite struct NewUserHelpTests {
    let dir = TemporaryDirectory()
    var db: String { dir.path("none.sqlite") }

    @Test func noUsersIsAUsageError() throws {
        for command in [["compare"], ["tune", "--family", "fixed"]] {
            for value in ["--users=0", "--users=-2", "--users= 0"] {
                try dir.expectUsageError(
                    command + ["--db", db, value], ["--users", "out of range: expected 1 to 1000000"])
            }
            // A count from 1 and names are read as before.
            for value in ["--users=3", "--users=alice,bob"] {
                let r = try dir.fetchlab(command + ["--db", db, value])
                #expect(r.status == 1 && r.err.contains("no such database"), "\(command) \(value): \(r.err)")
            }
        }
    }

    @Test func compareHelpSaysWhatPlatformNoneMeans() throws {
        let help = try dir.fetchlab(["compare", "--help"])
        #expect(help.status == 0)
        let text = help.out.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(!text.lowercased().contains("no platform model"), "\(text)")
        #expect(
            text.contains("none (every fetch asked for happens: the pure policy, as DOMAIN.md's protocol measures it)"))
    }

    /// The overview, above the usage line, names every command in the order of a session.
    @Test func theRootOverviewNamesEveryCommand() throws {
        let help = try dir.fetchlab(["--help"])
        #expect(help.status == 0)
        // The paragraphs between the abstract and the usage line.
        let top = String(help.out[..<(help.out.range(of: "USAGE:")?.lowerBound ?? help.out.endIndex)])
        let overview = top.components(separatedBy: "\n\n").dropFirst().joined(separator: "\n\n")
        let words = overview.split(whereSeparator: { !$0.isLetter && $0 != "-" }).map(String.init)
        let order = [
            "demo", "import", "generate", "inspect", "describe", "predict", "evaluate-predictors", "compare", "merge",
            "tune", "runs", "report",
        ]
        #expect(Set(FetchLabCommand.configuration.subcommands.map { $0._commandName }) == Set(order))
        let at = order.map { words.firstIndex(of: $0) }
        #expect(!at.contains(nil), "\(overview)")
        #expect(at.compactMap { $0 } == at.compactMap { $0 }.sorted(), "\(overview)")
    }
}
