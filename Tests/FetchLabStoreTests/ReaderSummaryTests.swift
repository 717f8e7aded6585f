import FetchLabCore
import FetchLabIngest
import Foundation
import Testing
import _FetchLabTestSupport

@testable import FetchLabStore

/// Import summaries that add up, and files the reader used to misread, through the importer.
@Suite struct ReaderSummaryTests {
    /// For foreground logs: rows = stored + duplicate + excluded + merged + rejected, also when
    /// some launches are already in the database.
    @Test func foregroundSummariesAddUp() throws {
        let f = try Fixture()
        var rng = SplitMix64(seed: 42)
        var lines: [String] = []
        var seconds: Int64 = 0
        for i in 0..<3_000 {
            seconds += Int64(rng.next() % 60) + 1 + (i % 40 == 0 ? Seconds.perHour : 0)
            let app = rng.next() % 5 == 0 ? "com.android.launcher" : "com.app\(rng.next() % 3)"
            let line = "\(Self.timestamp(seconds)),\(app)"
            lines.append(line)
            if rng.next() % 50 == 0 { lines.append(line) }
            if rng.next() % 100 == 0 { lines.append("garbage") }
        }
        var options = ReadOptions()
        options.excludedApps = ["*launcher*"]
        options.user = "u"
        options.format = .foreground
        let first = try f.importer.importFile(
            try f.dir.write("foreground-a.csv", lines.prefix(2_000).joined(separator: "\n") + "\n"), options: options)
        // The second file overlaps the first: its first launches are duplicates in the store.
        let second = try f.importer.importFile(
            try f.dir.write("foreground-b.csv", lines.dropFirst(1_000).joined(separator: "\n") + "\n"),
            options: options)
        for s in [first, second] {
            let c = s.counts
            #expect(c.merged > 0 && c.excluded > 0 && c.duplicate > 0 && c.rejected > 0)
            #expect(c.rows == s.inserted.usageEvents + c.duplicate + c.excluded + c.merged + c.rejected, "\(c)")
        }
        #expect(try f.count("usage_event") == first.inserted.usageEvents + second.inserted.usageEvents)
    }

    /// `--user pat` on `timestamp,app`: usage events of pat (before, content updates: 0 launches stored).
    @Test func aStatedUserOnALaunchLikeHeaderStoresLaunches() throws {
        let f = try Fixture()
        var options = ReadOptions()
        options.user = "pat"
        let s = try f.importer.importFile(
            try f.dir.write("pat.csv", "time,package,event\n2024-03-01T12:00:00Z,com.a,launch\n"), options: options)
        #expect(s.format == .usage)
        #expect(try f.launches("pat").map(\.0) == ["com.a"])
        #expect(try f.count("content_update") == 0)
    }

    /// 2024-03-01 plus `seconds`.
    static func timestamp(_ seconds: Int64) -> String {
        let day = LocalCalendar.day(localSeconds: seconds)
        let s = seconds - Int64(day) * Seconds.perDay
        let date = CivilDate(daysSince1970: CivilDate(year: 2024, month: 3, day: 1).daysSince1970 + day)
        func pad(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return
            "\(date) \(pad(s / Seconds.perHour)):\(pad(s % Seconds.perHour / Seconds.perMinute)):\(pad(s % Seconds.perMinute))"
    }
}
