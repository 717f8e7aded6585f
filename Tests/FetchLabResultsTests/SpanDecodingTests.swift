import FetchLabCore
import FetchLabResults
import Foundation
import Testing
import _FetchLabTestSupport

/// Spans read back from a stored run's JSON: minutes no span can hold (a damaged database, a
/// hand-edited file) are refused as a decoding error or an unknown key, never trapped on.
@Suite struct SpanDecodingTests {
    static func settingsJSON(tau: String, taus: String) -> Data {
        Data(
            """
            {"tau_minutes": \(tau), "taus_minutes": [\(taus)], "launch_refreshes": true, "warm_up_days": 7,
             "min_launches": 20, "platform": "none", "users": 1, "pairs": 1, "scored_launches": 1}
            """.utf8)
    }

    @Test func theTauReadsBackAsTheSpanWritten() throws {
        let settings = try JSONDecoder().decode(
            ComparisonSettings.self, from: Self.settingsJSON(tau: "15", taus: "5, 15, 1.5"))
        #expect(settings.tau == .minutes(15))
        #expect(settings.taus == [.minutes(5), .minutes(15), .seconds(90)])
    }

    @Test func minutesNoSpanHoldsAreADecodingError() {
        for (tau, taus) in [("1e300", "15"), ("15", "-1e300"), ("1e20", "15")] {
            #expect(throws: DecodingError.self, "tau \(tau), taus \(taus)") {
                try JSONDecoder().decode(ComparisonSettings.self, from: Self.settingsJSON(tau: tau, taus: taus))
            }
        }
    }

    @Test func aFreshKeyBeyondEverySpanIsNotAFreshKey() {
        #expect(FreshKey.tau("fresh_15m") == .minutes(15))
        #expect(FreshKey.tau("fresh_1.5m") == .seconds(90))
        #expect(FreshKey.tau("fresh_1e300m") == nil)
        #expect(FreshKey.tau("fresh_nanm") == nil)
        #expect(FreshKey.tau("fresh_infm") == nil)
    }

    /// A report's τ is a span that JSON writes in minutes under the model's own key: the tuning
    /// JSON's snake-cased `tau_minutes`, a stored run's `tau_minutes`.
    @Test func aReportsTauIsWrittenInMinutesAndReadBackAsTheSpan() throws {
        let interval = HeldOutInterval(
            tau: .seconds(90), fresh: 0.5, low: nil, high: nil, users: 1, scoredLaunches: 2, resamples: 10, seed: 1)
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let json = try encoder.encode(interval)
        let object = try #require(JSONSerialization.jsonObject(with: json) as? [String: Any])
        #expect(object["tau_minutes"] as? Double == 1.5)
        #expect(object["tau"] == nil)
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        #expect(try decoder.decode(HeldOutInterval.self, from: json) == interval)

        let run = RunSummary(
            id: 1, createdAt: "2026-01-01T00:00:00Z", command: "compare", fetchlabVersion: nil, policies: 1, users: 1,
            pairs: 1, scoredLaunches: 1, tau: .minutes(30))
        let runJSON = try JSONEncoder().encode(run)
        #expect(String(decoding: runJSON, as: UTF8.self).contains(#""tau_minutes":30"#))
        #expect(try JSONDecoder().decode(RunSummary.self, from: runJSON) == run)
    }

    @Test func aReportsTauNoSpanHoldsIsADecodingErrorAtItsKey() {
        let json = Data(
            #"{"id":1,"created_at":"x","command":"compare","policies":1,"users":1,"pairs":1,"scored_launches":1,"tau_minutes":1e300,"launch_refreshes":true,"platform":"none"}"#
                .utf8)
        do {
            _ = try JSONDecoder().decode(RunSummary.self, from: json)
            Issue.record("decoded a τ of 1e300 minutes")
        } catch let DecodingError.dataCorrupted(context) {
            #expect(context.codingPath.map(\.stringValue) == ["tau_minutes"])
            #expect(context.debugDescription.contains("is not a span"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    /// Minutes are a lossy way to write microseconds, but not for any span a report holds: every
    /// span within a year either way, in whole microseconds, reads back as the span written.
    @Test func everySpanWithinAYearReadsBackExactlyThroughMinutes() throws {
        let year = UInt64(Microseconds.days(366).value)
        try withEvery(seed: 1...20) { draws in
            // All 64 bits of each draw (`below` keeps 31: spans of half an hour at most).
            let drawn = (0..<500).map { _ in Microseconds(draws.next() % (2 * year)) - Microseconds(year) }
            for span in drawn + [0, 1, -1, Microseconds(year), -Microseconds(year)] {
                let json = try JSONEncoder().encode(InMinutes(wrappedValue: span))
                #expect(try JSONDecoder().decode(InMinutes.self, from: json).wrappedValue == span, "\(span) µs")
            }
        }
    }

    /// The platform, cost and context models write their spans in the unit their key names
    /// (`_s`, `_min`, `_h`, `_d`) and read them back as written; a value no span holds, under any
    /// of those keys, is a decoding error at that key.
    @Test func theModelsSpansReadBackInTheirUnitsAndRefuseWhatNoSpanHolds() throws {
        var platform = PlatformModel(kind: .ios)
        platform.fetchBudget = .seconds(45)
        platform.iosWakeBudgetWindow = .days(3)
        platform.rareDeferral = .hours(36)
        var cost = CostModel()
        cost.cellularTail = 11_576_001
        var context = ContextDefaults()
        context.hold = .minutes(90)
        #expect(try Self.roundTrip(platform) == platform)
        #expect(try Self.roundTrip(cost) == cost)
        #expect(try Self.roundTrip(context) == context)

        try Self.refusesEverySpanKey(
            platform,
            keys: [
                "fetch_budget_s", "ios_minimum_interval_min", "ios_wake_budget_window_d", "ios_system_lead_min",
                "android_minimum_period_min", "working_set_deferral_h", "frequent_deferral_h", "rare_deferral_h",
            ])
        try Self.refusesEverySpanKey(
            cost,
            keys: [
                "fetch_seconds", "cellular_promotion_s", "cellular_tail_s", "wifi_promotion_s", "wifi_tail_s",
            ])
        try Self.refusesEverySpanKey(context, keys: ["hold_minutes"])
    }

    static func roundTrip<T: Codable>(_ value: T) throws -> T {
        try JSONDecoder().decode(T.self, from: JSONEncoder().encode(value))
    }

    /// `value` encoded, then each of `keys` set to 1e300 in turn: a decoding error at that key.
    static func refusesEverySpanKey<T: Codable>(_ value: T, keys: [String]) throws {
        let object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(value)) as? [String: Any])
        for key in keys {
            #expect(object[key] != nil, "\(T.self) writes no \(key)")
            var damaged = object
            damaged[key] = 1e300
            let json = try JSONSerialization.data(withJSONObject: damaged)
            do {
                _ = try JSONDecoder().decode(T.self, from: json)
                Issue.record("\(T.self) read \(key) = 1e300")
            } catch let DecodingError.dataCorrupted(context) {
                #expect(context.codingPath.map(\.stringValue) == [key])
                #expect(context.debugDescription == "1e+300 is not a span")
            }
        }
    }

    /// The prediction settings hold spans and keep their JSON keys in minutes
    /// (`evaluate-predictors --format json`'s `options`): `horizonMinutes`, `leadMinutes`, …
    @Test func thePredictionSettingsAreSpansWrittenInMinutes() throws {
        var options = EvaluationOptions()
        options.planner.lead = .seconds(450)
        options.planner.freshness = .minutes(45)
        let json = try JSONEncoder().encode(options)
        let object = try #require(JSONSerialization.jsonObject(with: json) as? [String: Any])
        #expect(object["horizonMinutes"] as? Double == 1440)
        #expect(object["calibrationMinutes"] as? Double == 60)
        #expect(object["hitToleranceMinutes"] as? Double == 15)
        let planner = try #require(object["planner"] as? [String: Any])
        #expect(planner["leadMinutes"] as? Double == 7.5)
        #expect(planner["fetchDurationMinutes"] as? Double == 0.5)
        #expect(planner["freshnessMinutes"] as? Double == 45)
        let back = try JSONDecoder().decode(EvaluationOptions.self, from: json)
        #expect(back.horizon == .days(1) && back.calibrationWindow == .hours(1) && back.hitTolerance == .minutes(15))
        #expect(back.planner.lead == .seconds(450) && back.planner.freshness == .minutes(45))
        #expect(back.planner.fetchDuration == .seconds(30))
    }
}
