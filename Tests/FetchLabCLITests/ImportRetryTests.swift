import Foundation
import GRDB
import Testing
import _FetchLabTestSupport

/// `fetchlab import` when a file gave nothing, was read with other options, or is forced.
@Suite struct ImportRetryTests {
    let dir = TemporaryDirectory()
    var db: String { dir.path("retry.sqlite") }

    func count(_ table: String) throws -> Int {
        let queue = try DatabaseQueue(path: db)
        defer { try? queue.close() }
        return try queue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM \(table)") ?? -1 }
    }

    @Test func everyRowRejectedExitsNonZeroAndTheFixedRetryImports() throws {
        let file = try dir.write("ms.csv", "timestamp,user,app\n1709294400000,u1,com.a\n1709294460000,u1,com.b\n")
        let wrong = try dir.fetchlab(["import", "--db", db, "--epoch-unit", "microseconds", file])
        #expect(wrong.status == 1)
        let lines = wrong.err.split(separator: "\n")
        #expect(lines.count == 1, "\(wrong.err)")
        #expect(wrong.err.hasPrefix("fetchlab: error: \(file): none of its 2 rows was accepted"), "\(wrong.err)")
        #expect(wrong.err.contains("--epoch-unit"))
        #expect(wrong.out.contains("2 rejected"))
        // The same options again: read again, not "unchanged".
        let same = try dir.fetchlab(["import", "--db", db, "--epoch-unit", "microseconds", file])
        #expect(same.status == 1)
        #expect(!same.out.contains("unchanged"))
        let fixed = try dir.fetchlab(["import", "--db", db, "--epoch-unit", "milliseconds", file])
        #expect(fixed.status == 0, "\(fixed.err)")
        #expect(fixed.out.contains("2 rows → 2 new events"), "\(fixed.out)")
        #expect(try count("usage_event") == 2)
    }

    @Test func aFileWithoutDataRowsExitsNonZero() throws {
        let file = try dir.write("header.csv", "timestamp,user,app\n")
        let result = try dir.fetchlab(["import", "--db", db, "--format", "json", file])
        #expect(result.status == 1)
        #expect(result.err.split(separator: "\n").count == 1)
        #expect(result.err.contains("\(file): no data rows"))
        let report = try result.json()
        let files = try #require(report["files"] as? [[String: Any]])
        #expect(files.first?["status"] as? String == "nothing_accepted")
        #expect((report["errors"] as? [String])?.first?.contains("no data rows") == true)
    }

    @Test func otherReadOptionsAreANewImportAndForceReadsAgain() throws {
        let file = try dir.write(
            "local.csv", "timestamp,user,app\n2024-03-01 12:00:00,u1,com.a\n2024-03-01 12:30:00,u1,com.b\n")
        #expect(try dir.fetchlab(["import", "--db", db, file]).status == 0)
        let unchanged = try dir.fetchlab(["import", "--db", db, file])
        #expect(unchanged.status == 0)
        #expect(unchanged.out.contains("unchanged — the same content was imported before"))
        #expect(unchanged.out.contains("--force"))
        // Another time zone: the same bytes say other instants.
        let berlin = try dir.fetchlab(["import", "--db", db, "--timezone", "Europe/Berlin", file])
        #expect(berlin.status == 0)
        #expect(berlin.out.contains("2 rows → 2 new events"), "\(berlin.out)")
        #expect(try count("usage_event") == 4)
        // Forced: read again, every row a duplicate, nothing doubled.
        let forced = try dir.fetchlab(["import", "--db", db, "--force", file])
        #expect(forced.status == 0, "\(forced.err)")
        #expect(forced.out.contains("2 rows → 0 new events, 2 duplicate"), "\(forced.out)")
        #expect(try count("usage_event") == 4)
    }

    @Test func durationAndSizeOptionsAreParsedOnce() throws {
        let file = try dir.write("u.csv", "timestamp,user,app\n2024-03-01T12:00:00Z,u1,com.a\n")
        let badGap = try dir.fetchlab(["import", "--db", db, "--session-gap", "soon", file])
        #expect(badGap.status == 64)
        #expect(badGap.err.contains("--session-gap"))
        let badSize = try dir.fetchlab(["import", "--db", db, "--max-size", "big", file])
        #expect(badSize.status == 64)
        #expect(badSize.err.contains("--max-size"))
        #expect(!FileManager.default.fileExists(atPath: db))
        let ok = try dir.fetchlab(["import", "--db", db, "--session-gap", "90s", "--max-size", "1M", file])
        #expect(ok.status == 0, "\(ok.err)")
        // The limit applies to compressed input.
        let gz = try dir.writeGzip("u.csv.gz", "timestamp,user,app\n2024-03-01T12:00:00Z,u1,com.a\n")
        let tooSmall = try dir.fetchlab(["import", "--db", db, "--max-size", "10", gz])
        #expect(tooSmall.status == 1)
        #expect(tooSmall.err.contains("more than 10 bytes"), "\(tooSmall.err)")
    }

    /// The text and JSON summaries of a foreground log carry the rows merged into sessions.
    @Test func foregroundSummariesShowMergedRows() throws {
        let file = try dir.writeGzip(
            "foreground-pat.csv.gz",
            "2023-12-19 13:00:00,com.a\n2023-12-19 13:01:00,com.a\n2023-12-19 13:02:00,com.b\n2023-12-19 13:20:00,com.b\n"
        )
        let text = try dir.fetchlab(["import", "--db", db, file])
        #expect(text.status == 0, "\(text.err)")
        #expect(text.out.contains("merged into sessions"), "\(text.out)")
        let json = try dir.fetchlab(["import", "--db", dir.path("j.sqlite"), "--format", "json", file])
        let report = try json.json()
        let summary = try #require((report["files"] as? [[String: Any]])?.first)
        let counts = try #require(summary["counts"] as? [String: Int])
        #expect(counts["merged"] != nil)
        // Every row is accounted for: new + duplicate + rejected + excluded + merged (+ any a reader missed).
        let new = try #require(summary["newRecords"] as? Int)
        let unaccounted = summary["unaccounted"] as? Int ?? 0
        let accounted =
            new + (counts["duplicate"] ?? 0) + (counts["rejected"] ?? 0) + (counts["excluded"] ?? 0)
            + (counts["merged"] ?? 0) + unaccounted
        #expect(accounted == counts["rows"])
        #expect(counts["rows"] == 4)
        #expect(new == 3)
        let stored = try DatabaseQueue(path: db).read { db in
            try Row.fetchOne(db, sql: "SELECT rows_read, rows_merged FROM imports")
        }
        #expect(stored?["rows_read"] as Int? == 4)
        #expect(stored?["rows_merged"] as Int? == counts["merged"])
    }
}
