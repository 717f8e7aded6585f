import FetchLabCore
import FetchLabResults
import Foundation
import Testing

@testable import FetchLabSimulation

/// Fetches on cellular per day (`cellular_fetches_per_day`): one entry of the metric table, summed
/// per user per day like energy and cellular data, merged by partials, written to JSON and CSV by
/// the table.
@Suite struct CellularFetchesMetricTests {
    func outcome(cellularFetches: Int, days: Double) -> PairOutcome {
        var o = PairOutcome(scored: 10, fresh: [5, 6, 7], fetches: 20, days: days)
        o.cellularFetches = cellularFetches
        return o
    }

    @Test func itIsPerUserPerDayAndInTheJSON() throws {
        var sums = MetricSums(taus: 3)
        sums.add(outcome(cellularFetches: 6, days: 2))
        sums.add(outcome(cellularFetches: 3, days: 3))
        sums.costUnits = 2
        let m = sums.metrics(taus: [5, 15, 60].map { Microseconds.minutes($0) }, primary: 1, batteryJoules: 43_200)
        // (6/2 + 3/3) fetches per day over 2 users.
        #expect(m[.cellularFetches] == 2)
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(m)) as? [String: Any]
        #expect(json?["cellular_fetches_per_day"] as? Double == 2)
        let back = try JSONDecoder().decode(PolicyMetrics.self, from: JSONEncoder().encode(m))
        #expect(back[.cellularFetches] == 2)
    }

    @Test func partialsCarryAndMergeIt() throws {
        var a = MetricSums(taus: 3)
        a.add(outcome(cellularFetches: 4, days: 1))
        let data = try JSONEncoder().encode(a)
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        #expect(object?["cellularFetchesPerDaySum"] != nil)
        let decoded = try JSONDecoder().decode(MetricSums.self, from: data)
        var b = MetricSums(taus: 3)
        b.add(decoded)
        b.add(a)
        b.costUnits = 1
        #expect(b.metrics(taus: [5, 15, 60].map { Microseconds.minutes($0) }, primary: 1, batteryJoules: 1)[.cellularFetches] == 8)
    }

    /// Sums written before the metric existed are refused, and say why.
    @Test func sumsWithoutItAreRefusedByName() throws {
        let data = try JSONEncoder().encode(MetricSums(taus: 3))
        var object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        object["cellularFetchesPerDaySum"] = nil
        let old = try JSONSerialization.data(withJSONObject: object)
        #expect {
            try JSONDecoder().decode(MetricSums.self, from: old)
        } throws: { error in
            "\(error)".contains("no cellularFetchesPerDaySum: written by a FetchLab without that metric")
        }
    }

    /// On a phone on cellular all day but 20:00–21:59, an hourly fetch runs on cellular 22 times a
    /// day (the step-by-step replay and the fixed interval's closed form agree); never fetching
    /// gives 0; no policy makes more cellular fetches than fetches.
    @Test func theReplayCountsTheFetchesOnCellular() throws {
        let h = WorkManagerTests().user(
            context: WorkManagerTests().context(days: 11) { t in
                ContextSample(time: t, network: (20..<22).contains(minuteOfDay(t) / 60) ? .wifi : .cellular)
            })
        let policies: [any FetchPolicy] = [
            NeverPolicy(), FixedIntervalPolicy(interval: .hours(1)), WorkManagerPolicy(period: .hours(1), flex: .minutes(15)),
        ]
        let report = Simulator(evaluation: evaluation(warmUp: 2)).compare([h], policies: policies)
        let figures = report.policies.map { $0.metrics[.cellularFetches] ?? -1 }
        #expect(figures[0] == 0)
        #expect(abs(figures[1] - 22) < 0.5, "\(figures)")
        #expect(abs(figures[2] - 22) < 0.5, "\(figures)")
        for p in report.policies {
            let perDay = p.metrics.fetchesPerAppDay  // one app, one user
            #expect((p.metrics[.cellularFetches] ?? 0) <= perDay + 1e-9, "\(p.name)")
        }
    }
}
