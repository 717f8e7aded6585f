import FetchLabCore
import FetchLabResults
import Foundation
import Testing

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
}
