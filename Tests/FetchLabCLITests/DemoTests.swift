import Foundation
import Testing
import _FetchLabTestSupport

/// `fetchlab demo`, run as a new user would: the bundled sample in, the comparison out.
@Suite struct DemoTests {
    let dir = TemporaryDirectory()

    func fetchlab(_ arguments: [String], cwd: String) throws -> ProcessResult {
        try run(fetchlabBinary(), arguments, cwd: cwd)
    }

    @Test func importsTheSampleAndPrintsTheRankedComparison() throws {
        let root = packageRoot().path
        let db = dir.path("demo.sqlite")
        let text = try fetchlab(["demo", "--db", db], cwd: root)
        #expect(text.status == 0, "\(text.err)")
        #expect(text.out.hasPrefix("imported 115,087 rows of Datasets/sample into \(db)\n"))
        #expect(text.out.contains("25 users, 130 pairs (apps with ≥ 20 launches), 14,739 scored launches"))
        #expect(text.out.contains("\n    oracle "))
        #expect(text.out.contains("The database stays at \(db)"))

        // The database it leaves is an ordinary one: compare on it says the same.
        let demo = try fetchlab(["demo", "--db", dir.path("again.sqlite"), "--format", "json"], cwd: root)
        let compare = try fetchlab(["compare", "--db", db, "--format", "json"], cwd: root)
        #expect(demo.status == 0 && compare.status == 0)
        #expect(demo.out == compare.out)
        let json = try JSONSerialization.jsonObject(with: Data(demo.out.utf8)) as? [String: Any]
        let policies = json?["policies"] as? [[String: Any]] ?? []
        let oracle = policies.first { $0["name"] as? String == "oracle" }?["metrics"] as? [String: Any]
        #expect(oracle?["fresh_15m"] as? Double == 1)
    }

    @Test func withoutTheSampleItSaysWhereToRunIt() throws {
        let r = try fetchlab(["demo", "--db", dir.path("x.sqlite")], cwd: dir.url.path)
        #expect(r.status == 1)
        #expect(
            r.err.hasPrefix(
                "fetchlab: error: Datasets/sample: no sample directory here; run fetchlab demo from the top"))
        #expect(r.err.split(separator: "\n").count == 1)
    }
}
