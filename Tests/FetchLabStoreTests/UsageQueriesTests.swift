import _FetchLabTestSupport
import FetchLabIngest
import FetchLabResults
@testable import FetchLabStore
import Foundation
import Testing

@Suite struct UsageQueriesTests {
    @Test func profileCountsLaunchesPerLocalHourAndDay() throws {
        let f = try Fixture()
        var text = "timestamp,user,app,event\n"
        // A noon reader in UTC+02:00 for 10 days, plus closes that must not count.
        for day in 1...10 {
            let d = String(format: "%02d", day)
            text += "2024-06-\(d)T12:00:00+02:00,u1,com.news,launch\n"
            text += "2024-06-\(d)T12:10:00+02:00,u1,com.news,close\n"
        }
        text += "2024-06-03T20:00:00+02:00,u1,com.news,launch\n"
        text += "2024-06-05T08:00:00Z,u2,com.mail,launch\n"
        // Late evening in California is the next day in UTC: first/last days are local.
        text += "2024-06-01T23:30:00-07:00,u3,com.mail,launch\n"
        _ = try f.importer.importFile(try f.dir.write("u.csv", text))
        let usage = try UsageQueries(database: f.db).appUsage()
        #expect(usage.map(\.user) == ["u1", "u2", "u3"])
        #expect(usage[2].firstDay == "2024-06-01" && usage[2].lastDay == "2024-06-01")
        #expect(usage[0].firstDay == "2024-06-01" && usage[0].lastDay == "2024-06-10")
        let news = usage[0]
        #expect(news.launches == 11)
        #expect(news.daysCovered == 10)
        #expect(news.activeDays == 10)
        #expect(abs(news.launchesPerDay - 1.1) < 1e-9)
        #expect(news.hourly[12] == 10)
        #expect(news.hourly[20] == 1)
        #expect(news.hourly.reduce(0, +) == 11)
        #expect(news.localTime)
        let mail = usage[1]
        #expect(mail.hourly[8] == 1)
        #expect(mail.localTime)  // "Z" is an offset too
        #expect(try UsageQueries(database: f.db).appUsage(user: "u2").map(\.app) == ["com.mail"])
        #expect(try UsageQueries(database: f.db).appUsage(app: "nope").isEmpty)
    }
}

@Suite struct RealDatasetTests {
    /// The real logs in ../shared/datasets/dev import cleanly: no failure, every row accounted for.
    @Test(.enabled(if: sharedDatasets() != nil, "../shared/datasets is not here"))
    func sharedDatasetsImport() throws {
        let dir = try #require(sharedDatasets())
        let f = try Fixture()
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".gz") }
            .sorted()
        #expect(files.count >= 5)
        var options = ReadOptions()
        options.excludedApps = ["*launcher*", "com.example.nextapp"]
        var totalRejected = 0
        for file in files {
            let s = try f.importer.importFile(dir.appendingPathComponent(file).path, options: options)
            #expect(s.status == .imported)
            #expect(s.format == (file.hasPrefix("battery") ? LogFormat.battery : .foreground))
            // Every row is accepted (then stored, dropped as duplicate or excluded) or rejected.
            #expect(s.counts.accepted + s.counts.rejected == s.counts.rows, "\(file)")
            // The 1970 placeholders are up to 4% of a foreground log.
            #expect(s.counts.rejected * 20 < s.counts.rows, "\(file): too many rejects")
            totalRejected += s.counts.rejected
        }
        #expect(try f.count("usage_event") > 500)
        #expect(try f.count("context_sample") > 50_000)
        // The 1970 placeholders, the NUL-padded line and two battery lines run together are the rejects.
        let reasons = try f.rows("SELECT reason FROM rejected_row").map { $0["reason"] as String }
        #expect(reasons.count == totalRejected)
        #expect(
            reasons.allSatisfy {
                $0.contains("placeholder") || $0.contains("outside") || $0.contains("NUL") || $0.contains("fields, found") || $0.contains("conflicts")
                    || $0.contains("out of order")
            })
    }
}
