import Foundation
import Testing
import _FetchLabTestSupport

/// The per-signal ceilings in `compare` (JSON and table) and `describe`, on a small log with unlocks.
@Suite struct CeilingsTests {
    let dir = TemporaryDirectory()
    var db: String { dir.path("ceilings.sqlite") }

    /// The synthetic launches, and an unlock of the device two minutes before every third one.
    static func usageWithUnlocks() -> String {
        let lines = syntheticLaunchesCSV().split(separator: "\n")
        var text = String(lines[0]) + "\n"
        for (i, line) in lines.dropFirst().enumerated() {
            text += line + "\n"
            let cells = line.split(separator: ",")
            if i % 3 == 0, let t = Int(cells[0]) { text += "\(t - 120),\(cells[1]),(device),unlock\n" }
        }
        return text
    }

    @Test func compareAndDescribeShowTheCeilings() throws {
        try dir.importUsage(Self.usageWithUnlocks(), into: db)
        let json = try dir.fetchlab(["compare", "--db", db, "--format", "json", "--no-store"])
        #expect(json.status == 0, "\(json.err)")
        let object = try json.json()
        let ceilings = try #require(object["ceilings"] as? [String: Any])
        #expect(ceilings["budgets"] as? [Double] == [0.5, 1, 2, 5, 10])
        let events = try #require(ceilings["signal_events"] as? [String: Int])
        #expect((events["unlock"] ?? 0) > 0 && events["notification"] == 0)
        let sets = try #require(ceilings["sets"] as? [[String: Any]])
        #expect(sets.map { $0["set"] as? String } == ["launches", "device", "notifications", "anywhere"])
        #expect(sets.map { $0["signals_present"] as? Bool } == [true, true, false, true])
        #expect(sets[2]["note"] as? String != nil && sets[1]["note"] == nil)
        let unlimited = sets.compactMap { $0["fresh_unlimited"] as? Double }
        #expect(unlimited.count == 4 && unlimited[0] < unlimited[1] && unlimited[1] <= unlimited[3])
        // `anywhere` is the budget curve's bound, budget by budget.
        let curve = try #require(object["budget_curve"] as? [[String: Any]])
        let anywhere = try #require(sets[3]["fresh_at_budget"] as? [[String: Any]])
        #expect(anywhere.map { $0["fresh"] as? Double } == curve.map { $0["bound"] as? Double })

        let table = try dir.fetchlab(["compare", "--db", db, "--no-store"])
        #expect(table.status == 0, "\(table.err)")
        let lines = table.out.split(separator: "\n").map(String.init)
        let head = try #require(lines.firstIndex { $0.hasPrefix("ceiling, fresh@15 min, fetching only at") })
        #expect(lines[head].hasSuffix("unlimited"))
        #expect(lines[head + 1].hasPrefix("launches of other apps") && lines[head + 1].hasSuffix("%"))
        #expect(lines[head + 2].hasPrefix("+ unlock, screen on, system UI") && lines[head + 2].hasSuffix("%"))
        #expect(
            lines[head + 3].hasPrefix("+ notifications for the app") && lines[head + 3].contains("none in these logs"))
        #expect(lines[head + 4].hasPrefix("anywhere (the bound)"))

        let described = try dir.fetchlab(["describe", "--db", db, "--format", "json"])
        #expect(described.status == 0, "\(described.err)")
        let d = try #require(try described.json()["ceilings"] as? [String: Any])
        let dsets = try #require(d["sets"] as? [[String: Any]])
        #expect(dsets.compactMap { $0["fresh_unlimited"] as? Double } == unlimited)
        let text = try dir.fetchlab(["describe", "--db", db])
        #expect(text.out.contains("Ceilings (fresh@15 min") && text.out.contains("  launches of other apps"))
    }
}

/// The figure on the real dev logs, imported with no options.
@Suite struct DevLogCeilingTests {
    let dir = TemporaryDirectory()

    @Test(.enabled(if: sharedDatasets() != nil, "../shared/datasets is not here"))
    func launchOnlyCeilingOnTheDevLogs() throws {
        let data = try #require(sharedDatasets())
        let logs = try FileManager.default.contentsOfDirectory(atPath: data.path)
            .filter { $0.hasPrefix("foreground") && $0.hasSuffix(".csv.gz") }.sorted()
            .map { data.appendingPathComponent($0).path }
        let db = dir.path("dev.sqlite")
        let imported = try dir.fetchlab(["import", "--db", db] + logs)
        #expect(imported.status == 0, "\(imported.err)")
        let json = try dir.fetchlab(["compare", "--db", db, "--format", "json", "--no-store"])
        #expect(json.status == 0, "\(json.err)")
        let ceilings = try #require(try json.json()["ceilings"] as? [String: Any])
        let sets = try #require(ceilings["sets"] as? [[String: Any]])
        let launches = try #require(sets.first { $0["set"] as? String == "launches" })
        let unlimited = try #require(launches["fresh_unlimited"] as? Double)
        #expect(abs(unlimited - 0.605) <= 0.005, "\(unlimited)")
    }
}
