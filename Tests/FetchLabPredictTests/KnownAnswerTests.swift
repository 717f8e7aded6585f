import FetchLabCore
import FetchLabResults
import Foundation
import Testing

@testable import FetchLabPredict
@testable import FetchLabSynth

/// Histories drawn from hand-made personas by the real generator.
enum Histories {
    static let start = CivilDate(year: 2024, month: 5, day: 6).daysSince1970  // a Monday, no DST change nearby

    static func peak(_ minute: Double, spread: Double = 1, p: Double = 1, weekdayOnly: Bool = false) -> Peak {
        Peak(
            minute: minute, time: PersonaFactory.hhmm(minute), spreadMinutes: spread, probability: p,
            weekdayOnly: weekdayOnly, weekendMinute: weekdayOnly ? nil : minute,
            weekendProbability: weekdayOnly ? 0 : p,
            driftMinutesPerWeek: 0)
    }

    static func persona(_ apps: [AppHabit], zone: String = "Europe/Berlin") -> UserTruth {
        UserTruth(
            name: "u", timeZone: zone, wakeMinute: 400, weekendWakeMinute: 480, sleepMinute: 1380, works: true,
            leaveHomeMinute: 460, arriveWorkMinute: 500, leaveWorkMinute: 1020, arriveHomeMinute: 1060,
            cellularAtWork: false, lowPowerThreshold: nil, daytimeChargeProbability: 0, screenDrainPerMinute: 0.2,
            vacation: nil, trip: nil, offDays: [], refreshOff: nil, apps: apps)
    }

    static func routine(_ app: String, _ peaks: [Peak]) -> AppHabit {
        AppHabit(app: app, kind: .routine, peaks: peaks, sessionMinutes: 3)
    }

    static func history(_ truth: UserTruth, days: Int, seed: UInt64 = 1) -> UserHistory {
        let gen = try! Generator(options: GenerateOptions(users: 1, days: days, seed: seed, startDay: start))
        return gen.simulate(truth: truth).history
    }

    /// UTC microseconds of local midnight of day `d` (from `start`) at `offset`.
    static func midnight(_ d: Int, offset: Int32 = 7200) -> Instant {
        LocalCalendar.midnight(of: start + d, offset: offset)
    }

    static func trained<P: UsePredictor>(_ p: P, on h: UserHistory, before t: Instant) -> P {
        var p = p
        for l in h.launches where l.time < t { p.observe(l) }
        return p
    }

    /// Local "HH:MM" of a UTC instant at +02:00.
    static func clock(_ t: Instant, offset: Int64 = 7200) -> Double {
        Double((t.wholeSeconds + offset) % Seconds.perDay) / Double(Seconds.perMinute)
    }
}

@Suite struct FetchMomentTests {
    @Test func aNoonDailyUserIsFetchedFor1150() {
        let h = Histories.history(Histories.persona([Histories.routine("news", [Histories.peak(720)])]), days: 29)
        let origin = Histories.midnight(28)
        for predictor in [ProfilePredictor() as any UsePredictor, defaultBlend()] {
            var p = predictor
            for l in h.launches where l.time < origin { p.observe(l) }
            let f = p.forecast(app: 0, origin: origin, offset: 7200, minutes: 1440)
            let plan = FetchPlanner().plan(f)
            #expect(plan.count == 1, "\(p.name)")
            if let first = plan.first {
                #expect(
                    abs(Histories.clock(first.fetchAt) - 710) <= 1,
                    "\(p.name): fetch at \(Histories.clock(first.fetchAt))")
                #expect(abs(Histories.clock(first.expectedUse) - 720) <= 1)
                #expect(first.probability > (p is BlendPredictor ? 0.6 : 0.8), "\(p.name)")
            }
        }
    }

    /// The same noon reader inside a busy phone life: multi-app sessions all day (prompts, idle
    /// time, follow-ups), news also reached from other apps now and then. Its noon habit still
    /// gets its fetch just before noon.
    @Test func aNoonReaderAmongMultiAppSessionsIsStillFetchedJustBeforeNoon() {
        var news = Histories.routine("news", [Histories.peak(720)])
        news.next = [NextApp(app: "social", probability: 0.6), NextApp(app: "messages", probability: 0.4)]
        news.entryWeight = 0.3
        let messages = AppHabit(
            app: "messages", kind: .burst, burstsPerDay: 4, sessionMinutes: 1.5, entryWeight: 2,
            next: [NextApp(app: "social", probability: 0.7), NextApp(app: "news", probability: 0.3)])
        let social = AppHabit(
            app: "social", kind: .irregular, ratePerDay: 2, sessionMinutes: 3, entryWeight: 2,
            next: [NextApp(app: "messages", probability: 0.8), NextApp(app: "news", probability: 0.2)])
        var truth = Histories.persona([news, messages, social])
        truth.sessions = SessionHabits(
            idleSessionsPerDay: 2, continueProbability: 0.7, returnProbability: 0.4, switchSeconds: 20,
            followUpProbability: 0.5, followUpMinutes: 20, followUpSpread: 0.9,
            rhythm: [
                RhythmPeak(minute: 480, spreadMinutes: 40, weight: 1),
                RhythmPeak(minute: 1200, spreadMinutes: 70, weight: 2),
            ])
        let h = Histories.history(truth, days: 29)
        let newsLaunches = h.launches.filter { $0.app == 0 }
        let atNoon = newsLaunches.filter { abs(Histories.clock($0.time) - 720) <= 3 }
        #expect(newsLaunches.count > atNoon.count + 28)  // news is used at other times too
        #expect(Set(h.launches.map(\.app)).count == 3)
        let origin = Histories.midnight(28)
        let p = Histories.trained(defaultBlend(), on: h, before: origin)
        let plan = FetchPlanner().plan(p.forecast(app: 0, origin: origin, offset: 7200, minutes: 1440))
        // The fetch comes before noon, within the lead: the session's returns to news just after
        // noon pull the planned window's median a few minutes later than the lone reader's 12:00.
        #expect(
            plan.contains { (705..<720).contains(Histories.clock($0.fetchAt)) },
            "\(plan.map { Histories.clock($0.fetchAt) })")
    }

    @Test func aWeekdayOnlyHabitGetsNoWeekendFetch() {
        let h = Histories.history(
            Histories.persona([Histories.routine("podcast", [Histories.peak(495, weekdayOnly: true)])]), days: 33)
        let p = Histories.trained(ProfilePredictor(), on: h, before: Histories.midnight(33))
        // Day 33 is a Saturday, day 35 a Monday.
        let saturday = FetchPlanner().plan(
            p.forecast(app: 0, origin: Histories.midnight(33), offset: 7200, minutes: 1440))
        #expect(saturday.isEmpty)
        let q = Histories.trained(ProfilePredictor(), on: h, before: Histories.midnight(35))
        let monday = FetchPlanner().plan(
            q.forecast(app: 0, origin: Histories.midnight(35), offset: 7200, minutes: 1440))
        #expect(monday.count == 1)
        #expect(monday.first.map { abs(Histories.clock($0.fetchAt) - 485) <= 2 } == true)
    }

    @Test func aHabitThatMovesFromNoonTo1800IsFollowedWithinAWeek() {
        let noon = Histories.history(Histories.persona([Histories.routine("news", [Histories.peak(720)])]), days: 21)
        let evening = Histories.history(
            Histories.persona([Histories.routine("news", [Histories.peak(1080)])]), days: 35, seed: 2)
        let moved = UserHistory(
            user: "u", apps: ["news"],
            launches: noon.launches + evening.launches.filter { $0.time >= Histories.midnight(21) })
        let p = Histories.trained(ProfilePredictor(), on: moved, before: Histories.midnight(28))
        let plan = FetchPlanner().plan(p.forecast(app: 0, origin: Histories.midnight(28), offset: 7200, minutes: 1440))
        #expect(plan.map { (Histories.clock($0.fetchAt) / 60).rounded(.down) } == [17])
    }

    @Test func aSequenceAThenBPredictsBAfterA() {
        var b = Histories.routine("social", [])
        b.kind = .irregular
        b.ratePerDay = 0.5
        b.follows = Follow(after: "mail", probability: 0.9, delayMinutes: 1)
        var c = Histories.routine("bank", [])
        c.kind = .irregular
        c.ratePerDay = 3
        let h = Histories.history(
            Histories.persona([Histories.routine("mail", [Histories.peak(540, spread: 30)]), b, c]), days: 30)
        // Just after the last launch of mail.
        let lastMail = h.launches.last { $0.app == 0 }!
        let before = Histories.trained(SequencePredictor(), on: h, before: lastMail.time + 1)
        let scores = before.nextAppScores(apps: 3, origin: lastMail.time + .perSecond, offset: lastMail.offset)
        #expect(scores.indices.max { scores[$0] < scores[$1] } == 1)
        #expect(scores[1] > 0.6)
        let f = before.forecast(app: 1, origin: lastMail.time + .perSecond, offset: lastMail.offset, minutes: 60)
        #expect(f.probability(within: 5) > 0.5)
        #expect(f.probability(within: 60) < 1.0001)
    }

    @Test func plannerSettingsAreChecked() {
        var planner = FetchPlanner(lead: .seconds(12))
        #expect(planner.problems().count == 1)
        planner.lead = .minutes(10)
        #expect(planner.problems().isEmpty)
    }
}

func defaultBlend() -> BlendPredictor {
    BlendPredictor(
        parts: [ProfilePredictor(), GapPredictor(), SequencePredictor(), AndroidHeuristicPredictor()],
        weights: [0.6, 0.2, 0.1, 0.1])
}
