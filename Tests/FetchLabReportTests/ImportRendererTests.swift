import FetchLabIngest
import FetchLabStore
import Foundation
import Testing

@testable import FetchLabReport

/// The import summaries account for every row read, with counts constructed here (the
/// foreground reader of this branch does not count merged rows yet).
@Suite struct ImportRendererTests {
    func summary(merged: Int, format: LogFormat = .foreground) -> ImportSummary {
        var counts = ReadCounts()
        counts.rows = 3_000
        counts.accepted = 2_990
        counts.rejected = 10
        counts.duplicate = 1_500
        counts.excluded = 537
        counts.merged = merged
        return ImportSummary(
            path: "f.csv.gz", status: .imported, importID: 7, format: format, compression: "gzip", bytes: 9_000,
            counts: counts, inserted: .init(usageEvents: 3_000 - 10 - 1_500 - 537 - 39), seconds: 1)
    }

    @Test func textShowsMergedRows() {
        let text = ImportRenderer.text(summary(merged: 39))
        #expect(
            text.contains(
                "3,000 rows → 914 new events, 1,500 duplicate, 10 rejected, 537 excluded, 39 merged into sessions in"),
            "\(text)")
        #expect(!text.contains("unaccounted"))
        // Other formats only mention merged rows when there are some.
        #expect(!ImportRenderer.text(summary(merged: 0, format: .usage)).contains("merged"))
    }

    @Test func rowsAReaderMissedAreShownNotLost() {
        let text = ImportRenderer.text(summary(merged: 0))
        #expect(text.contains("0 merged into sessions, 39 unaccounted"), "\(text)")
    }

    @Test func jsonCarriesMergedNewRecordsAndUnaccounted() throws {
        for (merged, unaccounted) in [(39, nil), (0, 39)] as [(Int, Int?)] {
            let json = TextFormat.json(ImportReport(database: "x", files: [summary(merged: merged)], errors: []))
            let report = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
            let file = try #require((report["files"] as? [[String: Any]])?.first)
            let counts = try #require(file["counts"] as? [String: Int])
            #expect(counts["merged"] == merged)
            #expect(file["newRecords"] as? Int == 914)
            #expect(file["unaccounted"] as? Int == unaccounted)
            let sum = 914 + counts["duplicate"]! + counts["rejected"]! + counts["excluded"]! + counts["merged"]!
            #expect(sum + (unaccounted ?? 0) == counts["rows"])
        }
    }

    @Test func nothingAcceptedSaysWhatToTry() {
        var s = summary(merged: 0, format: .usage)
        s.status = .nothingAccepted
        s.counts = ReadCounts()
        s.counts.rows = 2
        s.counts.rejected = 2
        s.firstRejects = [RejectedRow(line: 2, reason: "timestamp out of range", raw: "x")]
        let message = ImportRenderer.nothingAccepted(s)
        #expect(message.hasPrefix("f.csv.gz: none of its 2 rows was accepted (first: line 2: timestamp out of range)"))
        #expect(message.contains("--epoch-unit") && !message.contains("\n"))
        #expect(
            ImportRenderer.total([s, summary(merged: 39)], failed: 1).hasPrefix("total: 1 file imported, 1 failed"))
    }
}
