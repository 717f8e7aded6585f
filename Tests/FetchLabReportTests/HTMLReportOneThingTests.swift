import FetchLabCore
import FetchLabReport
import FetchLabResults
import Foundation
import Testing
import _FetchLabTestSupport

/// The report says one thing (one recommendation, its reason, the tuning's result labelled as
/// such), explains its table, and draws assumed context as assumed.
@Suite struct HTMLReportOneThingTests {
    func count(_ needle: String, in html: String) -> Int { html.components(separatedBy: needle).count - 1 }

    /// A comparison and a tuning run that chose another setting: one headline naming the
    /// recommendation and its reason, one highlighted row; the tuning's sentence is its tuned
    /// setting and says in one line why both exist.
    @Test func aComparisonWithATuningRunShowsOneRecommendation() throws {
        let html = HTMLReport.render(
            HTMLReportTests.report(), source: "x",
            tuning: (try TuningRendererTests.result(), try TuningRendererTests.platform()))
        #expect(count("class=\"headline\"", in: html) == 1)
        #expect(count("class=\"recommended\"", in: html) == 1)
        #expect(html.contains("data-recommended=\"predictive(15m,0.55)\" id=\"headline\""))
        #expect(
            html.contains(
                "Recommended to an app team: predictive(15m,0.55), the freshest app-scope setting within 5 fetches/app/day."
            ))
        let start = try #require(html.range(of: "id=\"tuning-headline\">")).upperBound
        let sentence = String(html[start...].prefix { $0 != "<" })
        #expect(sentence.hasPrefix("Tuned setting: predictive(10m,0.3)."), "\(sentence)")
        #expect(sentence.contains("It differs from the page&#39;s recommendation, predictive(15m,0.55), because"))
        // Alone (`tune --format html`) the tuned setting is the page's headline.
        let alone = HTMLReport.render(tuning: try TuningRendererTests.result(), platform: [], source: "t")
        #expect(count("class=\"headline\"", in: alone) == 1)
        #expect(!alone.contains("class=\"recommended\"") && !alone.contains("It differs"))
    }

    /// Every "–" in the ranking's share column is explained by the caption, which names its policies.
    @Test func theRankingCaptionExplainsEveryDashInTheShareColumn() throws {
        let r = HTMLReportTests.report()
        let html = HTMLReport.render(r, source: "x")
        let start = try #require(html.range(of: "<section id=\"ranking-section\">")).upperBound
        let caption = try #require(
            html[start...].components(separatedBy: "<p class=\"caption\">").dropFirst().first?
                .components(separatedBy: "</p>").first)
        #expect(caption.contains("“–”"), "\(caption)")
        let dashed = r.policies.filter { $0.metrics.shareOfPossible == nil }.map(\.name)
        #expect(dashed.contains("never"))
        for name in dashed { #expect(caption.contains(name), "\(name) not in: \(caption)") }
    }

    /// Under a platform model, users without context samples: the settings say its device rules
    /// read assumed context for them; under `none`, or with every user sampled, nothing is said.
    @Test func thePlatformsRulesAreSaidToReadAssumedContext() throws {
        var r = HTMLReportTests.report()
        r.settings.usersWithoutContext = 2
        #expect(!HTMLReport.render(r, source: "x").contains("rules read assumed context"))
        r.settings.platform = .ios
        r.settings.platformRules = PlatformModel(kind: .ios)
        let html = HTMLReport.render(r, source: "x")
        #expect(
            html.contains("its battery, power-saving and network rules read assumed context, not observed, for 2 of"))
        r.settings.usersWithoutContext = 0
        #expect(!HTMLReport.render(r, source: "x").contains("rules read assumed context"))
    }

    /// A user without context samples: the timeline's strip is hatched and labelled with the
    /// defaults the replay assumed.
    @Test func aUserWithoutContextSamplesIsDrawnAsAssumed() throws {
        var r = HTMLReportTests.report()
        let observed = HTMLReport.render(r, source: "x")
        #expect(observed.contains("data-assumed-context=\"0\"") && !observed.contains("hatch-assumed"))
        r.timeline?.assumedContext = true
        let html = HTMLReport.render(r, source: "x")
        #expect(html.contains("data-assumed-context=\"1\""))
        #expect(html.contains("fill=\"url(#hatch-assumed)\""))
        #expect(html.contains(">assumed: no context samples (Wi-Fi, 80 %, not charging)</text>"))
        #expect(html.contains("this user has no context samples"))
        r.settings.contextDefaults.battery = 55
        r.settings.contextDefaults.network = .cellular
        #expect(
            HTMLReport.render(r, source: "x").contains(
                ">assumed: no context samples (cellular, 55 %, not charging)</text>"))
    }

    /// `assumed_context` is written only when true (a trace with observed context encodes as
    /// before) and read as false when absent.
    @Test func assumedContextIsEncodedOnlyWhenTrue() throws {
        var trace = HTMLReportTests.trace(["never"])
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let plain = try encoder.encode(trace)
        #expect(!String(decoding: plain, as: UTF8.self).contains("assumed"))
        #expect(try JSONDecoder().decode(DayTrace.self, from: plain) == trace)
        trace.assumedContext = true
        let assumed = try encoder.encode(trace)
        #expect(String(decoding: assumed, as: UTF8.self).contains("\"assumed_context\":true"))
        #expect(try JSONDecoder().decode(DayTrace.self, from: assumed).assumedContext)
    }
}

/// The timeline's JSON gives every time as ISO-8601 on the user's clock with the microseconds
/// beside it, and runs stored before (microseconds under the plain key) read the same.
@Suite struct DayTraceTimeTests {
    @Test func timesAreISO8601OnTheUsersClockWithMicrosecondsBeside() throws {
        let trace = HTMLReportTests.trace(["never"])
        let object = try #require(
            try JSONSerialization.jsonObject(with: try JSONEncoder().encode(trace)) as? [String: Any])
        #expect(object["start"] as? String == "2024-03-08T01:00:00+01:00")
        #expect(object["start_us"] as? Int64 == trace.start.sinceEpoch.value)
        #expect(object["end"] as? String == "2024-03-09T01:00:00+01:00")
        let stretch = try #require((object["context"] as? [[String: Any]])?.last)
        #expect(stretch["start"] as? String == "2024-03-08T08:00:00+01:00")
        let day = try #require((object["policies"] as? [[String: Any]])?.first)
        let fetch = try #require((day["fetches"] as? [[String: Any]])?.first)
        #expect(fetch["time"] as? String == "2024-03-08T08:54:00+01:00")
        #expect(fetch["time_us"] as? Int64 == trace.policies[0].fetches[0].time.sinceEpoch.value)
        let skip = try #require((day["skips"] as? [[String: Any]])?.first)
        #expect(skip["time"] as? String == "2024-03-08T23:00:00+01:00")
        let launch = try #require((day["launches"] as? [[String: Any]])?.first)
        #expect((launch["time"] as? String)?.hasSuffix("+01:00") == true && launch["time_us"] is Int64)
        #expect(try JSONDecoder().decode(DayTrace.self, from: try JSONEncoder().encode(trace)) == trace)
    }

    @Test func aTraceStoredWithMicrosecondsOnlyReadsTheSame() throws {
        let trace = HTMLReportTests.trace(["never"])
        var object = try #require(
            try JSONSerialization.jsonObject(with: try JSONEncoder().encode(trace)) as? [String: Any])
        // The form of runs stored before: the microseconds under the plain key, no `_us`.
        func old(_ o: [String: Any], _ keys: [String]) -> [String: Any] {
            var o = o
            for k in keys {
                o[k] = o[k + "_us"]
                o[k + "_us"] = nil
            }
            return o
        }
        object = old(object, ["start", "end"])
        object["context"] = (object["context"] as? [[String: Any]])?.map { old($0, ["start", "end"]) }
        object["policies"] = (object["policies"] as? [[String: Any]])?.map { day in
            var day = day
            for k in ["launches", "fetches", "skips"] {
                day[k] = (day[k] as? [[String: Any]])?.map { old($0, ["time"]) }
            }
            return day
        }
        let data = try JSONSerialization.data(withJSONObject: object)
        #expect(!String(decoding: data, as: UTF8.self).contains("_us"))
        #expect(try JSONDecoder().decode(DayTrace.self, from: data) == trace)
    }
}
