import FetchLabIngest
@testable import FetchLabReport
import FetchLabResults
import FetchLabStore
import Foundation
import Testing

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

/// Issue 25: the summary's notes on system apps and placeholders, and the unmatched-context warning.
@Suite struct ImportNotesRendererTests {
    func summary(_ configure: (inout ImportSummary) -> Void) -> ImportSummary {
        var s = ImportSummary(path: "battery-0826c5.csv.gz", status: .imported, importID: 1, format: .battery, bytes: 1)
        configure(&s)
        return s
    }

    @Test func systemAppsAndPlaceholdersAreSaid() {
        let s = summary {
            $0.format = .foreground
            $0.counts.rows = 2_000
            $0.counts.excluded = 1_234
            $0.counts.systemApps = 1_234
            $0.counts.rejected = 1
            $0.counts.placeholders = 1
        }
        let text = ImportRenderer.text(s)
        // Foreground logs read launchers and system UI as signals: what they drop is the rest.
        #expect(text.contains("\n  dropped 1,234 rows of system apps (android and the logger)"))
        #expect(text.contains("--keep-system-apps keeps them"))
        let dump = ImportRenderer.text(
            summary {
                $0.format = .usagestats
                $0.counts.systemApps = 2
            })
        #expect(dump.contains("\n  dropped 2 rows of system apps (launchers, system UI, android, the logger)"))
        #expect(text.contains("\n  1 row at 1970-01-01 looks like a placeholder timestamp (epoch 0): it is rejected"))
        let plain = ImportRenderer.text(summary { $0.format = .foreground })
        #expect(!plain.contains("dropped") && !plain.contains("placeholder"))
    }

    /// Issue 26: the rows that became signals, and the signal events of other formats.
    @Test func signalsAreSaid() {
        let foreground = ImportRenderer.signals(
            summary {
                $0.format = .foreground
                $0.counts.signals = 1
                $0.counts.signalRows = 3
            })
        #expect(
            foreground
                == "3 rows of launchers and system UI became 1 system-UI signal (2 rows continued the one before): "
                + "moments before use a scheduler may act on, not launches; --keep-system-apps reads them as launches")
        #expect(ImportRenderer.signals(summary { $0.format = .foreground }) == nil)
        let battery = ImportRenderer.signals(summary { $0.counts.signals = 1_200 })
        #expect(battery?.hasPrefix("1,200 screen-on signals (isInteractive turning true): ") == true)
        let usage = ImportRenderer.signals(
            summary {
                $0.format = .usage
                $0.counts.signals = 2
            })
        #expect(usage?.hasPrefix("2 signal events (unlock, screen on, notification, system UI): ") == true)
        #expect(ImportRenderer.text(summary { $0.counts.signals = 2 }).contains("\n  2 screen-on signals"))
    }

    /// A file that gave records of two tables says how many of each (a battery log's screen-on
    /// events beside its samples), not all of them as its main noun.
    @Test func recordsOfTwoTablesAreSplit() {
        let both = summary { $0.inserted = ImportSummary.Inserted(usageEvents: 163, contextSamples: 9_893) }
        #expect(ImportRenderer.newRecords(both) == "10,056 new records (163 events, 9,893 context samples)")
        let one = summary { $0.inserted = ImportSummary.Inserted(contextSamples: 12) }
        #expect(ImportRenderer.newRecords(one) == "12 new context samples")
        // One of a kind is singular: "1 event", "1 new record", "1 new event".
        let single = summary { $0.inserted = ImportSummary.Inserted(usageEvents: 1, contextSamples: 128) }
        #expect(ImportRenderer.newRecords(single) == "129 new records (1 event, 128 context samples)")
        let lone = summary { $0.inserted = ImportSummary.Inserted(contextSamples: 1) }
        #expect(ImportRenderer.newRecords(lone) == "1 new context sample")
    }

    @Test func unmatchedDevicesAreNamedShort() {
        #expect(ImportRenderer.unmatchedContext(summary { _ in }) == nil)
        let one = ImportRenderer.unmatchedContext(
            summary { $0.unmatchedContextUsers = ["0826c571f98a4a818945860bc9091705"] })
        #expect(
            one
                == "battery-0826c5.csv.gz: device 0826c5… matches no user with launches: its samples are stored but no "
                + "user's replay will use them; map it with --user NAME (the user of the launches)")
        let many = ImportRenderer.unmatchedContext(
            summary {
                $0.format = .context
                $0.unmatchedContextUsers = ["a", "b", "c", "d"]
            })
        #expect(many?.contains("users a, b, c and 1 more match no user with launches: their samples") == true)
    }
}
