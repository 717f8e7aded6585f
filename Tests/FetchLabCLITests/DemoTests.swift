import Foundation
import Testing
import _FetchLabTestSupport

/// `fetchlab demo`, run as a new user would: the bundled sample in, the comparison out.
@Suite struct DemoTests {
    let dir = TemporaryDirectory()

    @Test func importsTheSampleAndPrintsTheRankedComparison() throws {
        let root = packageRoot().path
        let db = dir.path("demo.sqlite")
        let text = try dir.fetchlab(["demo", "--db", db], cwd: root)
        #expect(text.status == 0, "\(text.err)")
        #expect(text.out.hasPrefix("imported 174,828 rows of Datasets/sample into \(db)\n"))
        // (the summary wrapped to 120 columns, read with its continuation joined)
        #expect(
            text.out.replacingOccurrences(of: "\n +", with: " ", options: .regularExpression).contains(
                "25 users, 269 pairs (apps with ≥ 20 launches), 35,097 scored launches"))
        #expect(text.out.contains("\n    oracle "))
        #expect(text.out.contains("The database stays at \(db)"))
        // Inside the package, run from its .build: the commands to try again are `swift run fetchlab`.
        #expect(text.out.contains("\n  `swift run fetchlab inspect --db \(db)`"), "\(text.out.suffix(400))")
        // The sample's table and the prose around it keep to 120 columns; the key is under the table.
        // (the commands to try stay whole, to be copied, however long the paths)
        let widest = text.out.split(separator: "\n").filter { !$0.hasPrefix("  `") }.max { $0.count < $1.count } ?? ""
        #expect(widest.count <= 120, "\(widest)")
        #expect(
            text.out.contains("\nfresh@15 min: the share of launches that found their app's content at most 15 min old")
        )
        #expect(text.out.contains("\n 1  learned(0.5) "), "\(text.out.prefix(3_000))")

        // The database it leaves is an ordinary one: compare on it says the same.
        let demo = try dir.fetchlab(["demo", "--db", dir.path("again.sqlite"), "--format", "json"], cwd: root)
        let compare = try dir.fetchlab(["compare", "--db", db, "--format", "json"], cwd: root)
        #expect(demo.status == 0 && compare.status == 0)
        // Each stored its run: the demo's is run 1 of its database, the comparison run 2 of this one.
        #expect(demo.out.contains("\n  \"run_id\" : 1,\n") && compare.out.contains("\n  \"run_id\" : 2,\n"))
        #expect(
            demo.out.replacingOccurrences(of: "\"run_id\" : 1,", with: "")
                == compare.out.replacingOccurrences(of: "\"run_id\" : 2,", with: ""))
        #expect(demo.err == "run 1 stored in \(dir.path("again.sqlite"))\n")
        let runs = try dir.fetchlab(["runs", "--db", db], cwd: root).out.split(separator: "\n")
        #expect(runs.count == 3, "\(runs)")
        #expect(runs.dropFirst().map { $0.split(separator: " ")[0] } == ["1", "2"])
        #expect(runs.last?.contains(" compare ") == true && runs.dropFirst().first?.contains(" demo ") == true)
        let json = try JSONSerialization.jsonObject(with: Data(demo.out.utf8)) as? [String: Any]
        let policies = json?["policies"] as? [[String: Any]] ?? []
        let oracle = policies.first { $0["name"] as? String == "oracle" }?["metrics"] as? [String: Any]
        #expect(oracle?["fresh_15m"] as? Double == 1)
    }
}
