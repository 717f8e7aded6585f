import Foundation
import GRDB
import Testing
import _FetchLabTestSupport

/// `fetchlab tune` keeps its run in the database, `runs` lists it, `runs show-tune` prints it
/// again in every format, `report` ends with its section.
extension TuneTests {
    static let tune = ["tune", "--family", "fixed", "--grid", "interval=1h,2h,4h"]

    @Test func aTuningRunIsStoredAndPrintedAgainAsTunePrintedIt() throws {
        try dir.importUsage(into: db)
        let table = try dir.fetchlab(Self.tune + ["--db", db])
        #expect(table.status == 0, "\(table.err)")
        #expect(table.err == "tuning run 1 stored in \(db)\n")
        #expect(table.out.contains("chosen on train: fixed("), "\(table.out)")
        let json = try dir.fetchlab(Self.tune + ["--db", db, "--format", "json"])
        #expect(json.err == "tuning run 2 stored in \(db)\n")
        let object = try json.json()
        #expect(object["run_id"] as? Int == 2)
        let folds = try #require(object["folds"] as? [[String: Any]])
        let tried = try #require(folds.first?["tried"] as? [[String: Any]])

        // The same bytes again, and no new run.
        let shown = try dir.fetchlab(["runs", "show-tune", "1", "--db", db])
        #expect(shown.status == 0 && shown.out == table.out, "\(shown.err)")
        let shownJSON = try dir.fetchlab(["runs", "show-tune", "2", "--db", db, "--format", "json"])
        #expect(shownJSON.out == json.out)
        #expect(shownJSON.err.isEmpty)

        // Each format's shape.
        let csv = try dir.fetchlab(["runs", "show-tune", "2", "--db", db, "--format", "csv"])
        let lines = csv.out.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("fold,rank,name,values,objective,fresh_15m,") == true)
        let settingRows = lines.dropFirst().filter { !$0.hasPrefix("1,,") }
        #expect(settingRows.count == tried.count)
        #expect(lines.dropFirst().filter { $0.contains(",true,") }.count >= 1)
        let markdown = try dir.fetchlab(["runs", "show-tune", "2", "--db", db, "--format", "markdown"])
        #expect(markdown.out.contains("| rank | setting | fresh@15m |"))
        #expect(
            markdown.out.split(separator: "\n").filter { $0.hasPrefix("| ") && $0.contains("fixed(") }.count
                >= tried.count)
        let page = dir.path("tune.html")
        let html = try dir.fetchlab(Self.tune + ["--db", db, "--format", "html", "--output", page])
        #expect(html.status == 0 && html.out.isEmpty, "\(html.err)")
        let text = try String(contentsOfFile: page, encoding: .utf8)
        #expect(text.hasPrefix("<!DOCTYPE html>") && text.contains("<section id=\"tuning-section\">"))
        #expect(text.contains("data-points=\"\(tried.count)\""))

        // Listed after the comparisons (none here), numbered apart.
        let listed = try dir.fetchlab(["runs", "--db", db])
        #expect(listed.out.contains("no comparison runs stored"), "\(listed.out)")
        #expect(listed.out.contains("tuning runs (fetchlab runs show-tune N):"))
        #expect(listed.out.split(separator: "\n").filter { $0.contains("  fixed  ") }.count == 3, "\(listed.out)")
        let listedJSON = try dir.fetchlab(["runs", "--db", db, "--format", "json"])
        let runs = try listedJSON.json()
        #expect((runs["runs"] as? [Any])?.isEmpty == true)
        #expect((runs["tuning_runs"] as? [[String: Any]])?.map { $0["id"] as? Int } == [1, 2, 3])

        // In SQL, the figures the JSON printed.
        let queue = try DatabaseQueue(path: db)
        let rows = try queue.read {
            try Row.fetchAll(
                $0, sql: "SELECT name, fresh_15m, chosen FROM tune_settings WHERE run_id = 2 ORDER BY rank")
        }
        #expect(rows.map { $0["name"] as String } == tried.map { $0["name"] as? String ?? "" })
        #expect(
            zip(rows, tried).allSatisfy { row, t in
                abs((row["fresh_15m"] as Double) - ((t["train"] as? [String: Any])?["fresh_15m"] as? Double ?? -1))
                    < 1e-12
            })
        #expect(
            rows.filter { $0["chosen"] as Bool }.map { $0["name"] as String } == [folds[0]["chosen"] as? String ?? ""])
        try queue.close()

        let missing = try dir.fetchlab(["runs", "show-tune", "9", "--db", db])
        #expect(missing.status == 1 && missing.err.split(separator: "\n").count == 1, "\(missing.err)")
        #expect(missing.err.contains("no tuning run 9"))
    }

    @Test func theReportEndsWithTheLatestTuningRun() throws {
        try dir.importUsage(into: db)
        #expect(try dir.fetchlab(["compare", "--db", db, "--policies", "fixed(1h),oracle"]).status == 0)
        let before = try dir.fetchlab(["report", "--db", db, "--output", dir.path("before.html")])
        #expect(before.status == 0 && before.out.contains("run 1 of \(db)"), "\(before.err)")
        let without = try String(contentsOfFile: dir.path("before.html"), encoding: .utf8)
        #expect(!without.contains("tuning-section"))
        for grid in ["interval=2h,4h", "interval=1h,2h,4h"] {
            #expect(try dir.fetchlab(["tune", "--db", db, "--family", "fixed", "--grid", grid]).status == 0)
        }
        let after = try dir.fetchlab(["report", "--db", db, "--output", dir.path("after.html")])
        #expect(after.status == 0 && after.out.contains("run 1 and tuning run 2 of \(db)"), "\(after.out)")
        let with = try String(contentsOfFile: dir.path("after.html"), encoding: .utf8)
        let sections = with.components(separatedBy: "<section id=\"").dropFirst().map { $0.prefix { $0 != "\"" } }
        #expect(sections.last == "tuning-section" && sections.count == 9, "\(sections)")
        // The latest run: three settings tried.
        #expect(with.contains("id=\"tuning-scatter\"") && with.contains("data-points=\"3\" data-front="))
    }

    /// Storing is part of the command: a run that cannot be stored is an error — the results are
    /// printed, then the command exits 1 — unless `--no-store` was asked for.
    @Test func aDatabaseThatCannotBeWrittenFailsTheCommandAfterItsResults() throws {
        try dir.importUsage(into: db)
        func tune(_ extra: [String]) throws -> ProcessResult {
            let arguments = Self.tune + ["--db", db] + extra
            if getuid() == 0 {
                // Root ignores file modes: run as nobody, who may read but not write.
                chmod(dir.url.path, 0o755)
                chmod(db, 0o644)
                return try fetchlabAsNobody(arguments)
            }
            chmod(db, 0o444)
            chmod(dir.url.path, 0o555)
            defer { chmod(dir.url.path, 0o755) }
            return try dir.fetchlab(arguments)
        }
        let result = try tune([])
        #expect(result.status == 1, "\(result.err)")
        #expect(result.out.contains("chosen on train: fixed("))
        #expect(result.err.split(separator: "\n").count == 1, "\(result.err)")
        #expect(result.err.hasPrefix("fetchlab: error: tuning run not stored: "), "\(result.err)")
        #expect(result.err.contains("--no-store"), "\(result.err)")
        let unstored = try tune(["--no-store"])
        #expect(unstored.status == 0, "\(unstored.err)")
        #expect(unstored.out.contains("chosen on train: fixed("))
        #expect(!unstored.err.contains("not stored"), "\(unstored.err)")
        let listed = try dir.fetchlab(["runs", "--db", db, "--format", "json"])
        let runs = try listed.json()
        #expect((runs["tuning_runs"] as? [Any])?.isEmpty == true)
    }
}
