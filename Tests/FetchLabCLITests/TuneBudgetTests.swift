import Foundation
import Testing
import _FetchLabTestSupport

/// `fetchlab tune --time-budget`: a budget of zero stops the search after its first round (no
/// timing involved: the first round always runs, every later one is refused).
@Suite struct TuneBudgetTests {
    let dir = TemporaryDirectory()
    var db: String { dir.path("tune.sqlite") }

    @Test func aSpentBudgetTriesOneRowOfTheGridAndSaysSo() throws {
        let file = try dir.write("usage.csv", syntheticLaunchesCSV())
        #expect(try dir.fetchlab(["import", "--db", db, file]).status == 0)
        let json = try dir.fetchlab([
            "tune", "--db", db, "--family", "predictive", "--time-budget", "0s", "--format", "json",
        ])
        #expect(json.status == 0, "\(json.err)")
        #expect(
            !json.err.contains("user replays") && !json.err.contains("\u{1B}"),
            "no progress when stderr is not a terminal: \(json.err)")
        let object = try json.json()
        let fold = try #require((object["folds"] as? [[String: Any]])?.first)
        #expect(fold["cut_short"] as? Bool == true)
        #expect((fold["tried"] as? [[String: Any]])?.count == 4)
        #expect(object["replays"] as? Int == 4)
        #expect(fold["chosen_test"] is [String: Any])
        let text = try dir.fetchlab(["tune", "--db", db, "--family", "predictive", "--time-budget", "0s"])
        #expect(text.out.contains("search cut short by the time budget: 4 settings tried"), "\(text.out)")
        // Without a budget, no such key.
        let full = try dir.fetchlab(["tune", "--db", db, "--family", "fixed", "--format", "json"])
        #expect(!full.out.contains("cut_short"))
        let bad = try dir.fetchlab(["tune", "--db", db, "--family", "fixed", "--time-budget", "-5s"])
        #expect(bad.status == 64 && bad.err.contains("--time-budget"), "\(bad.err)")
    }
}
