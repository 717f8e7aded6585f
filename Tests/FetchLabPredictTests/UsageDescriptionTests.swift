import FetchLabCore
import FetchLabPredict
import FetchLabResults
import Foundation
import Testing

/// `UsageDescription` on hand-made histories whose every statistic is worked out by hand.
@Suite struct UsageDescriptionTests {
    /// 1970-01-05, a Monday (local day 4).
    static let monday = 4

    /// A launch of `app` at `hour:minute` local time on local `day`, on a clock `offset` seconds
    /// ahead of UTC.
    static func launch(_ day: Int, _ hour: Int, _ minute: Int, app: Int32, offset: Int32 = 0) -> UsageEvent {
        let local = Int64(day) * 86_400 + Int64(hour) * 3_600 + Int64(minute) * 60
        return UsageEvent(time: Instant(secondsSince1970: local - Int64(offset)), offset: offset, app: app)
    }

    static func history(_ launches: [UsageEvent], apps: Int = 5) -> UserHistory {
        UserHistory(user: "u", apps: (0..<apps).map { AppID("app\($0)") }, launches: launches)
    }

    static func close(_ a: Double?, _ b: Double, tolerance: Double = 1e-9) -> Bool {
        guard let a else { return false }
        return abs(a - b) <= tolerance
    }

    /// A (app 0), B (1), C (2) on a Monday morning:
    /// 08:00 A cold · 08:05 B other · 08:10 A same (10 min) · 08:25 A same (exactly 15 min) ·
    /// 08:41 B cold (16 min after any) · 08:50 C other · 09:00 B other (B's last was 19 min before).
    static let morning: UserHistory = {
        let times: [(Int, Int, Int32)] = [
            (8, 0, 0), (8, 5, 1), (8, 10, 0), (8, 25, 0), (8, 41, 1), (8, 50, 2), (9, 0, 1),
        ]
        return history(times.map { launch(monday, $0.0, $0.1, app: $0.2) })
    }()

    @Test func launchClassesPartitionTheLaunches() {
        let d = UsageDescription.describe([Self.morning])
        #expect(d.users == 1 && d.launches == 7 && d.apps == 3 && d.userDays == 1)
        #expect(d.classes.cold == 2 && d.classes.sameApp == 2 && d.classes.afterOtherApp == 3)
        #expect(Self.close(d.classes.coldShare, 2.0 / 7))
        #expect(Self.close(d.classes.sameAppShare, 2.0 / 7))
        #expect(Self.close(d.classes.afterOtherAppShare, 3.0 / 7))
    }

    @Test func sameAppGapPercentilesInterpolateLinearly() {
        // Gaps: A 10, 15; B 36, 19 → sorted 10, 15, 19, 36; position q·3.
        let g = UsageDescription.describe([Self.morning]).sameAppGaps
        #expect(g.count == 4)
        #expect(Self.close(g.p10, 11.5))  // 10 + 0.3·5
        #expect(Self.close(g.p25, 13.75))  // 10 + 0.75·5
        #expect(Self.close(g.median, 17))  // 15 + 0.5·4
        #expect(Self.close(g.p75, 23.25))  // 19 + 0.25·17
        #expect(Self.close(g.p90, 30.9))  // 19 + 0.7·17
        #expect(UsageDescription.percentile([], 0.5) == nil)
        #expect(UsageDescription.percentile([7], 0.9) == 7)
    }

    @Test func sessionsSplitAtGapsLongerThanTheWindow() {
        // 08:00–08:25 (A, B; 4 launches, 25 min) and 08:41–09:00 (B, C; 3 launches, 19 min).
        let s = UsageDescription.describe([Self.morning]).sessions
        #expect(s.count == 2)
        #expect(s.appsMean == 2 && s.appsP90 == 2)
        #expect(s.launchesMean == 3.5)
        #expect(Self.close(s.lengthMedianMinutes, 22))
        #expect(Self.close(s.lengthP90Minutes, 24.4))  // 19 + 0.9·6
    }

    @Test func transitionsCountUsualSuccessorsInsideSessions() {
        // Pairs: (A,B) (B,A) (A,A) | (B,C) (C,B). A's successors B, A (1 each: B came first);
        // B's A, C (A first); C's B. Top-1 hits: (A,B) (B,A) (C,B).
        let t = UsageDescription.describe([Self.morning]).transitions
        #expect(t.pairs == 5)
        #expect(Self.close(t.top1Share, 3.0 / 5))
        #expect(Self.close(t.top3Share, 1))

        // 0 followed by 1, 1, 2, 3, 4: its top 3 are 1, 2, 3 (ties by first appearance), so
        // (0,4) is outside them; 1, 2 and 3 are always followed by 0.
        let apps: [Int32] = [0, 1, 0, 1, 0, 2, 0, 3, 0, 4]
        let h = Self.history(apps.enumerated().map { Self.launch(Self.monday, 10, $0.offset, app: $0.element) })
        let u = UsageDescription.describe([h]).transitions
        #expect(u.pairs == 9)
        #expect(Self.close(u.top1Share, 6.0 / 9))
        #expect(Self.close(u.top3Share, 8.0 / 9))
    }

    /// App 0 on ten days at 08:00 and 20:00, and at 13:00 on two of them: 22 launches, a median
    /// of 2 a day, so two windows (08:00, 20:00) holding 20.
    static let twiceADay: UserHistory = {
        var launches: [UsageEvent] = []
        for d in 0..<10 {
            launches.append(launch(monday + d, 8, 0, app: 0))
            launches.append(launch(monday + d, 20, 0, app: 0))
            if d < 2 { launches.append(launch(monday + d, 13, 0, app: 0)) }
        }
        return history(launches)
    }()

    /// App 0 on twenty days, once a day, at 23:50 on even days and 00:10 on odd ones, and at 12:00
    /// on three days: 23 launches, one a day (median), so one window, centred on midnight.
    static let aroundMidnight: UserHistory = {
        var launches: [UsageEvent] = []
        for d in 0..<20 {
            launches.append(d % 2 == 0 ? launch(monday + d, 23, 50, app: 0) : launch(monday + d, 0, 10, app: 0))
        }
        for d in [0, 2, 4] { launches.append(launch(monday + d, 12, 0, app: 0)) }
        return history(launches)
    }()

    @Test func regularityCoversTheUsualWindowsAndWrapsOverMidnight() {
        let a = UsageDescription.describe([Self.twiceADay])
        #expect(a.regularity.regularApps == 1)
        #expect(Self.close(a.regularity.pooledShare, 20.0 / 22))
        let b = UsageDescription.describe([Self.aroundMidnight])
        #expect(Self.close(b.regularity.pooledShare, 20.0 / 23))
        let both = UsageDescription.describe([Self.twiceADay, Self.aroundMidnight])
        #expect(Self.close(both.regularity.pooledShare, 40.0 / 45))
        #expect(Self.close(both.regularity.medianShare, (20.0 / 22 + 20.0 / 23) / 2))

        #expect(UsageDescription.coveredByUsualWindows([1430, 10, 720], windows: 1) == 2)
        #expect(UsageDescription.coveredByUsualWindows([1410, 30], windows: 1) == 2)  // 60 min apart: one window
        #expect(UsageDescription.coveredByUsualWindows([1409, 30], windows: 1) == 1)  // 61 min: not
        #expect(UsageDescription.coveredByUsualWindows([100, 500, 900], windows: 2) == 2)
        #expect(UsageDescription.usualWindowCount(launchesPerActiveDay: [2, 3]) == 3)  // 2.5 rounds up
        #expect(UsageDescription.usualWindowCount(launchesPerActiveDay: [1, 1, 9]) == 1)
        #expect(UsageDescription.usualWindowCount(launchesPerActiveDay: [9, 9]) == 6)
        #expect(UsageDescription.usualWindowCount(launchesPerActiveDay: []) == 1)
    }

    @Test func launchesPerAppDayAndPerUserDay() {
        // 22 launches over 10 days; 23 over 20 days (days 0…19 of the span).
        let d = UsageDescription.describe([Self.twiceADay, Self.aroundMidnight])
        #expect(d.userDays == 30)
        #expect(d.rates.regularApps == 2)
        #expect(Self.close(d.rates.perAppDayMedian, (2.2 + 1.15) / 2))
        #expect(Self.close(d.rates.perUserDay, 45.0 / 30))
        // An app with 19 launches is not a regular app.
        let few = Self.history((0..<19).map { Self.launch(Self.monday + $0, 9, 0, app: 0) })
        let f = UsageDescription.describe([few])
        #expect(f.rates.regularApps == 0 && f.rates.perAppDayMedian == nil && f.regularity.pooledShare == nil)
        #expect(Self.close(f.rates.perUserDay, 1))
    }

    @Test func weekdayAgainstWeekendOnTheLocalClock() {
        // Monday to Sunday: two launches each weekday in the 08 hour; Saturday 08:00 and Sunday
        // 10:00 local (08:00 UTC on a clock two hours ahead).
        var launches: [UsageEvent] = []
        for d in 0..<5 {
            launches.append(Self.launch(Self.monday + d, 8, 0, app: 0))
            launches.append(Self.launch(Self.monday + d, 8, 30, app: 0))
        }
        launches.append(Self.launch(Self.monday + 5, 8, 0, app: 0))
        launches.append(Self.launch(Self.monday + 6, 10, 0, app: 0, offset: 7200))
        let h = Self.history(launches)
        let w = UsageDescription.describe([h]).weekdayWeekend
        #expect(w.weekdays == 5 && w.weekendDays == 2)
        #expect(w.weekdayLaunches == 10 && w.weekendLaunches == 2)
        #expect(w.perWeekday == 2 && w.perWeekendDay == 1 && w.weekendToWeekdayRatio == 0.5)
        // Weekday all at 08; weekend half at 08, half at 10: ½(|1 − ½| + |0 − ½|).
        #expect(Self.close(w.hourProfileDistance, 0.5))
        #expect(UsageDescription.totalVariation([1, 0], [0, 1]) == 1)
        #expect(UsageDescription.totalVariation([1, 0], [0, 0]) == nil)
    }

    @Test func hourEntropyOfAKnownProfile() {
        // Uniform over four hours: 2 bits, for all launches and for the one regular app.
        let h = Self.history((0..<20).map { Self.launch(Self.monday + $0, 1 + $0 % 4, 0, app: 0) })
        let e = UsageDescription.describe([h]).hourEntropy
        #expect(Self.close(e.pooledBits, 2))
        #expect(Self.close(e.regularAppMedianBits, 2))
        #expect(Self.close(UsageDescription.entropyBits([Int](repeating: 3, count: 24)), log2(24)))
        #expect(UsageDescription.entropyBits([0, 5]) == 0)
        #expect(UsageDescription.entropyBits([0, 0]) == nil)
    }

    @Test func emptyInputsGiveNilsAndZeroCounts() throws {
        for d in [UsageDescription.describe([]), UsageDescription.describe([Self.history([])])] {
            #expect(d.users == 0 && d.launches == 0 && d.apps == 0 && d.userDays == 0)
            #expect(d.classes.coldShare == nil && d.sameAppGaps.count == 0 && d.sameAppGaps.median == nil)
            #expect(d.sessions.count == 0 && d.sessions.appsMean == nil)
            #expect(d.rates.perUserDay == nil && d.hourEntropy.pooledBits == nil)
            #expect(d.weekdayWeekend.perWeekday == nil && d.transitions.pairs == 0 && d.transitions.top1Share == nil)
        }
        // Every key is written, nil as null, and the JSON reads back the same.
        let empty = UsageDescription.describe([])
        let data = try JSONEncoder().encode(empty)
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let gaps = try #require(json["sameAppGaps"] as? [String: Any])
        #expect(gaps.keys.sorted() == ["count", "median", "p10", "p25", "p75", "p90"])
        #expect(gaps["median"] is NSNull)
        #expect(try JSONDecoder().decode(UsageDescription.self, from: data) == empty)
        let full = UsageDescription.describe([Self.morning, Self.twiceADay])
        #expect(try JSONDecoder().decode(UsageDescription.self, from: JSONEncoder().encode(full)) == full)
    }

    @Test func oneLaunch() {
        let d = UsageDescription.describe([Self.history([Self.launch(Self.monday, 9, 0, app: 0)])])
        #expect(d.users == 1 && d.launches == 1 && d.userDays == 1 && d.apps == 1)
        #expect(d.classes.coldShare == 1 && d.classes.sameAppShare == 0)
        #expect(d.sameAppGaps.count == 0 && d.sameAppGaps.p90 == nil)
        #expect(d.sessions.count == 1 && d.sessions.appsMean == 1 && d.sessions.lengthMedianMinutes == 0)
        #expect(d.transitions.pairs == 0 && d.transitions.top1Share == nil)
        #expect(d.hourEntropy.pooledBits == 0 && d.rates.perUserDay == 1)
        #expect(d.weekdayWeekend.perWeekendDay == nil && d.weekdayWeekend.weekendToWeekdayRatio == nil)
    }

    @Test func tallyMergesLikePooling() {
        var tally = UsageDescription.Tally()
        for h in [Self.morning, Self.twiceADay, Self.aroundMidnight] { tally.merge(UsageDescription.Tally(h)) }
        #expect(tally.description == UsageDescription.describe([Self.morning, Self.twiceADay, Self.aroundMidnight]))
    }

    /// Straight from the generator, no database: every launch is in one class, the counts add up.
    @Test func generatedPopulation() {
        let histories = Population.histories(users: 4, days: 14, seed: 3)
        let d = UsageDescription.describe(histories)
        #expect(d.users == histories.filter { !$0.launches.isEmpty }.count)
        #expect(d.launches == histories.reduce(0) { $0 + $1.launches.count })
        #expect(d.classes.cold + d.classes.sameApp + d.classes.afterOtherApp == d.launches)
        #expect(d.classes.cold == d.sessions.count)
        #expect(d.transitions.pairs == d.launches - d.sessions.count)
        let shares = [d.classes.coldShare, d.classes.sameAppShare, d.classes.afterOtherAppShare].compactMap { $0 }
        #expect(shares.count == 3 && abs(shares.reduce(0, +) - 1) < 1e-9)
    }
}
