import FetchLabCore
import FetchLabResults
import Testing
import _FetchLabTestSupport

@testable import FetchLabPredict

/// Hand-made histories: app 0 daily at 08:00 and app 1 daily at 12:00 local time.
enum Daily {
    static let firstDay = CivilDate(year: 2024, month: 3, day: 4).daysSince1970  // a Monday

    static func at(day: Int, hour: Int64, offset: Int32) -> Instant {
        LocalCalendar.midnight(of: firstDay + day, offset: offset) + .hours(hour)
    }

    static func history(days: Int, offset: Int32 = 7200, user: String = "u") -> UserHistory {
        var b = HistoryBuilder(user: UserID(user), apps: ["com.mail", "com.news"], firstDay: firstDay, offset: offset)
        for d in 0..<days {
            b.launch(0, day: d, hour: 8)
            b.launch(1, day: d, hour: 12)
        }
        return b.build()
    }
}

@Suite struct RequestedOriginTests {
    let march20 = Microseconds.days(Int64(CivilDate(year: 2024, month: 3, day: 20).daysSince1970))

    @Test func aOneDigitHourIsALocalTime() {
        #expect(RequestedOrigin(parsing: "2024-03-20 8:00") == .local(march20 + .hours(8)))
        #expect(RequestedOrigin(parsing: "2024-03-20T08:00") == .local(march20 + .hours(8)))
        #expect(
            RequestedOrigin(parsing: " 2024-03-20  8:05:30 ")
                == .local(march20 + .hours(8) + .minutes(5 as Int64) + .seconds(30)))
    }

    @Test func aDateAloneIsLocalMidnight() {
        #expect(RequestedOrigin(parsing: "2024-03-20") == .local(march20))
    }

    @Test func anOffsetMakesAnInstant() {
        #expect(RequestedOrigin(parsing: "2024-03-20T08:00:00+02:00") == .instant(march20 + .hours(6)))
        #expect(
            RequestedOrigin(parsing: "2024-03-20 08:00 -0530") == .instant(march20 + .hours(13) + .minutes(30 as Int64))
        )
        #expect(RequestedOrigin(parsing: "2024-03-20T08:00:00.5Z") == .instant(march20 + .hours(8) + 500_000))
        #expect(RequestedOrigin(parsing: "2024-03-20T08:00+01") == .instant(march20 + .hours(7)))
    }

    @Test(arguments: [
        "", "2024-13-20 08:00", "2024-02-30", "2024-03-20 24:00", "2024-03-20 8:0", "2024-03-20 123:00",
        "2024-03-20 08:00 +2", "2024-03-20 08:00 CET", "2024-03-20 08:00:60", "yesterday",
    ])
    func nonsenseIsRejected(_ text: String) {
        #expect(RequestedOrigin(parsing: text) == nil)
    }
}

@Suite struct PredictionOriginTests {
    /// A user in New York: -05:00 until March 10, -04:00 after.
    let ny: UserHistory = {
        var b = HistoryBuilder(user: "ny", apps: ["com.news"], firstDay: Daily.firstDay)
        for d in 0..<20 { b.launch(0, day: d, hour: 12, offset: d < 6 ? -18_000 : -14_400) }
        return b.build()
    }()

    @Test func aLocalTimeReadsTheClockAsItWasThen() {
        // Day 3 (before the change): midnight at -05:00, not at the last launch's -04:00.
        let local = Microseconds.days(Int64(Daily.firstDay + 3))
        #expect(
            PredictionOrigin.resolve(.local(local), in: ny)
                == LocalCalendar.midnight(of: Daily.firstDay + 3, offset: -18_000))
        let later = Microseconds.days(Int64(Daily.firstDay + 12))
        #expect(
            PredictionOrigin.resolve(.local(later), in: ny)
                == LocalCalendar.midnight(of: Daily.firstDay + 12, offset: -14_400))
    }

    @Test func anInstantIsTakenAsItIs() {
        #expect(PredictionOrigin.resolve(.instant(123), in: ny) == 123)
    }

    @Test func byDefaultTheMidnightAfterTheLastLaunch() {
        #expect(
            PredictionOrigin.resolve(nil, in: ny) == LocalCalendar.midnight(of: Daily.firstDay + 20, offset: -14_400))
        #expect(PredictionOrigin.resolve(nil, in: UserHistory(user: "x", apps: [], launches: [])) == nil)
    }

    @Test func historyMoreThanAWeekOldIsStale() {
        let h = Daily.history(days: 3)
        let last = Daily.at(day: 2, hour: 12, offset: 7200)
        #expect(PredictionOrigin.staleDays(h, origin: last + .days(2)) == nil)
        #expect(PredictionOrigin.staleDays(h, origin: last + .days(7)) == nil)
        #expect(PredictionOrigin.staleDays(h, origin: last + .days(30) + .hours(3)) == 30)
        // Launches after the origin do not make it fresh.
        #expect(PredictionOrigin.staleDays(Daily.history(days: 40), origin: last + .days(10)) == nil)
        #expect(PredictionOrigin.staleDays(h, origin: Daily.at(day: 0, hour: 1, offset: 7200)) == nil)
    }
}

@Suite struct EvenSampleTests {
    @Test func picksEvenlyAndDeterministically() {
        #expect(EvenSample.pick(Array(0..<10), limit: 3) == [0, 3, 6])
        #expect(EvenSample.pick(Array(0..<10), limit: 0) == Array(0..<10))
        #expect(EvenSample.pick(Array(0..<4), limit: 40) == Array(0..<4))
        #expect(EvenSample.pick(Array(0..<100), limit: 4) == [0, 25, 50, 75])
    }
}

@Suite struct NameSuggestionTests {
    @Test func theClosestNamesFirst() {
        let names = (1...30).map { String(format: "u%05d", $0) } + ["alice", "alicia", "bob"]
        #expect(NameSuggestions.closest(to: "Alice", among: names, limit: 2) == ["alice", "alicia"])
        #expect(NameSuggestions.closest(to: "u0012", among: names).prefix(3) == ["u00012", "u00002", "u00010"])
    }

    @Test func aSmallDatabaseListsEveryone() {
        #expect(NameSuggestions.closest(to: "zed", among: ["b", "a"]) == ["a", "b"])
        let error = PredictionError.unknown("zed", among: ["b", "a"])
        #expect(error.description == "no launches for user \"zed\"; users with launches: a, b")
        let many = PredictionError.unknown("u7", among: (1...9).map { "u\($0)" } + ["x1234567"])
        #expect(many.description == "no launches for user \"u7\"; closest users: u7, u1, u2, u3, u4")
        #expect(PredictionError.unknown("zed", among: []).description == "no launches for user \"zed\"")
    }

    /// A typo's likely meaning: only names within a third of its length (at least 2 edits), none when nothing is that close.
    @Test func likelyNamesAreOnlyTheCloseOnes() {
        let commands = ["demo", "import", "inspect", "compare", "tune", "runs", "report", "help"]
        #expect(NameSuggestions.likely("comapre", among: commands) == ["compare"])
        #expect(NameSuggestions.likely("Compare", among: commands) == ["compare"])
        #expect(NameSuggestions.likely("xyzzy", among: commands).isEmpty)
        #expect(NameSuggestions.likely("fixd", among: ["fixed", "never", "oracle"]) == ["fixed"])
    }

    @Test func editDistance() {
        #expect(NameSuggestions.distance(Array("kitten"), Array("sitting")) == 3)
        #expect(NameSuggestions.distance([], Array("abc")) == 3)
    }
}

@Suite struct TruthPeaksTests {
    @Test func peaksAreNumberedAsTheHistoryAndDaysCountFromTheStart() {
        let start = Daily.firstDay
        let truth = TruthPeaks(
            startDay: start,
            users: [
                (
                    "u",
                    { day, weekend in weekend ? [] : [("com.news", 480 + Double(day)), ("com.gone", 600)] }
                )
            ])
        let h = Daily.history(days: 2)
        let f = truth.function(for: [h])
        #expect(f("u", start + 2) == [TruePeak(app: 1, minute: 482)])  // Wednesday
        #expect(f("u", start + 5).isEmpty)  // Saturday
        #expect(f("nobody", start).isEmpty)
    }
}

@Suite struct PredictionReportTests {
    let origin = Daily.at(day: 10, hour: 0, offset: 7200)
    let blend = BlendPredictor(parts: [ProfilePredictor(), GapPredictor()], weights: [0.75, 0.25])

    @Test func plansTheDayFromWhatCameBefore() throws {
        let report = try PredictionReport(
            history: Daily.history(days: 10), origin: origin, blend: blend, request: PredictionRequest())
        #expect(report.user == "u" && report.utcOffset == 7200 && report.horizon == .minutes(1440))
        #expect(report.blendWeights == ["profile": 0.75, "gap": 0.25])
        // Sorted by the first fetch: mail (08:00) before news (12:00).
        #expect(report.apps.map(\.app) == ["com.mail", "com.news"])
        let mail = try #require(report.apps[0].fetches.first)
        #expect(abs((mail.expectedUse - Daily.at(day: 10, hour: 8, offset: 7200)).inMinutes) < 5)
    }

    @Test func launchesAfterTheOriginAreNotSeen() throws {
        let short = try PredictionReport(
            history: Daily.history(days: 10), origin: origin, blend: blend, request: PredictionRequest())
        let long = try PredictionReport(
            history: Daily.history(days: 30), origin: origin, blend: blend, request: PredictionRequest())
        #expect(short.apps == long.apps)
    }

    @Test func oneAppOnlyAndWhyNot() throws {
        let request = PredictionRequest(horizon: .minutes(60), app: "com.news")
        let one = try PredictionReport(history: Daily.history(days: 10), origin: origin, blend: blend, request: request)
        #expect(one.apps.map(\.app) == ["com.news"])
        #expect(throws: PredictionError.unknownApp(user: "u", app: "com.x")) {
            try PredictionReport(
                history: Daily.history(days: 10), origin: origin, blend: blend,
                request: PredictionRequest(app: "com.x"))
        }
        #expect(throws: PredictionError.noLaunchesBeforeOrigin(user: "u")) {
            try PredictionReport(
                history: Daily.history(days: 10), origin: Daily.at(day: 0, hour: 1, offset: 7200), blend: blend,
                request: PredictionRequest())
        }
    }
}

/// A predictor that answers like a next-app baseline but says it forecasts timing.
struct TimingRanker: UsePredictor {
    var name: String { "most-frequent" }
    var forecastsTiming: Bool { true }
    var ranksApps: Bool { false }
    mutating func observe(_ launch: UsageEvent) {}
    func forecast(app: Int32, origin: Instant, offset: Int32, minutes: Int) -> Forecast {
        .point(origin: origin, minutes: minutes, at: 30)
    }
}

@Suite struct CapabilityTests {
    @Test func scoresFollowWhatAPredictorDeclaresNotItsName() {
        var predictors: [any UsePredictor] = [TimingRanker(), MostRecentBaseline()]
        var options = EvaluationOptions()
        options.warmUpDays = 2
        let run = Evaluator(options: options).run(
            Daily.history(days: 8), predictors: &predictors, truth: nil, collectFit: 0)
        let scores = run.scores.map { $0.score() }
        #expect(scores[0].forecastsTiming && !scores[0].ranksApps)
        #expect(scores[0].brier != nil && scores[0].nextAppSamples == 0 && scores[0].mrr == nil)
        #expect(!scores[1].forecastsTiming && scores[1].ranksApps)
        #expect(scores[1].brier == nil && scores[1].nextAppSamples > 0)
    }

    @Test func theNextAppBaselinesDoNotForecastTiming() {
        let all = Evaluator.components() + Evaluator.baselines()
        let rankersOnly = all.filter { !$0.forecastsTiming }
        #expect(rankersOnly.count == 2)
        #expect(rankersOnly.allSatisfy { $0 is MostFrequentBaseline || $0 is MostRecentBaseline })
        #expect(all.allSatisfy { $0.ranksApps })
    }
}

@Suite struct ShortfallTests {
    @Test func aWarmUpLongerThanTheDataScoresNothingAndSaysWhy() throws {
        let h = [Daily.history(days: 3)]
        let shortfall = try #require(Evaluator().shortfall(h))
        #expect(shortfall == EvaluationShortfall(warmUpDays: 7, longestSpanDays: 3))
        #expect(shortfall.suggestedWarmUpDays == 1)
        #expect(
            shortfall.description
                == "no origins or launches were scored: the warm-up of 7 days is longer than the data's span of 3 days")
        #expect(Evaluator().evaluate(h).scoredNothing)
    }

    @Test func theSuggestedWarmUpScores() throws {
        var options = EvaluationOptions()
        options.warmUpDays = 1
        let h = [Daily.history(days: 3)]
        #expect(Evaluator(options: options).shortfall(h) == nil)
        let report = Evaluator(options: options).evaluate(h)
        #expect(!report.scoredNothing)
        #expect(report.heldOutDays == 1)
    }

    @Test func aSingleDayCannotBeScored() throws {
        var options = EvaluationOptions()
        options.warmUpDays = 0
        let shortfall = try #require(Evaluator(options: options).shortfall([Daily.history(days: 1)]))
        #expect(shortfall.suggestedWarmUpDays == nil)
        #expect(shortfall.description.contains("a single day"))
    }
}

@Suite struct AndroidHeuristicTests {
    /// Launches that share one instant (a log's duplicate rows) give no zero gap: the estimate is
    /// a minute on, not a division by zero.
    @Test func launchesAtOneInstantDoNotDivideByZero() throws {
        var p = AndroidHeuristicPredictor()
        let t = Instant.epoch + .days(19_800)
        for _ in 0..<3 { p.observe(UsageEvent(time: t, offset: 0, app: 0)) }
        let estimate = try #require(p.estimatedLaunch(app: 0, origin: t + .hours(2)))
        #expect(estimate >= t + .hours(2) && estimate <= t + .hours(2) + .minutes(1))
        #expect(p.wouldPrefetch(app: 0, origin: t + .hours(2)))
    }

    /// The estimate is the last launch of the week before the origin plus their mean gap: launches
    /// older than a week, or after the origin, do not count.
    @Test func theEstimateIsTheLastLaunchPlusTheWeeksMeanGap() throws {
        var p = AndroidHeuristicPredictor()
        let t = Instant.epoch + .days(19_800)
        for day in 0..<10 { p.observe(UsageEvent(time: t + .days(Int64(day)), offset: 0, app: 0)) }
        p.observe(UsageEvent(time: t + .days(9) + .minutes(30), offset: 0, app: 0))
        // At 9 d 1 h: the week holds days 3 to 9 and 9 d 30 min, 8 launches.
        let gap = (Microseconds.days(6) + .minutes(30)) / Int64(7)
        #expect(p.estimatedLaunch(app: 0, origin: t + .days(9) + .hours(1)) == t + .days(9) + .minutes(30) + gap)
        // At 9 d 10 min the later launch has not happened: days 3 to 9, a day apart.
        #expect(p.estimatedLaunch(app: 0, origin: t + .days(9) + .minutes(10)) == t + .days(10))
        #expect(p.estimatedLaunch(app: 1, origin: t) == nil)
    }
}
