import FetchLabCore
import FetchLabPredict
import FetchLabResults
import Testing

@testable import FetchLabReport

@Suite struct PredictionRendererTests {
    /// 2024-03-20 00:00 at +02:00.
    let origin = LocalCalendar.midnight(of: CivilDate(year: 2024, month: 3, day: 20).daysSince1970, offset: 7200)

    func report(weights: [String: Double], apps: [PredictionRow] = []) -> PredictionReport {
        PredictionReport(
            user: "u1", origin: origin, utcOffset: 7200, horizon: .minutes(1440), lead: .minutes(10), threshold: 0.5,
            blendWeights: weights, apps: apps)
    }

    @Test func theHeaderPrintsWeightsWithTwoDecimals() {
        let text = PredictionRenderer.text(
            report(weights: ["profile": 0.25, "gap": 0.25, "sequence": 0.25, "android": 0.25]))
        #expect(
            text
                == "u1 from 2024-03-20 00:00 (+02:00), next 24 h; lead 10 min; "
                + "p: chance of a launch within 30 min after the fetch; "
                + "blend of android 0.25, gap 0.25, profile 0.25, sequence 0.25")
    }

    @Test func zeroWeightsAreLeftOutAndTheLargestComesFirst() {
        let text = PredictionRenderer.text(report(weights: ["profile": 0.7, "gap": 0.3, "android": 0]))
        #expect(text.hasSuffix("blend of profile 0.70, gap 0.30"))
    }

    @Test func fetchesAndExpectedUsesOnTheUsersClock() {
        // Mail: a sure use at 08:00 (minute 480); news: a faint one at 23:30 tomorrow; chat: none.
        var mail = Forecast.none(origin: origin, minutes: 1440)
        mail.density[480] = 1
        mail.beyond = 0
        var news = Forecast.none(origin: origin, minutes: 2880)
        news.density[2850] = 0.1
        news.beyond = 0.9
        let planner = FetchPlanner()
        let text = PredictionRenderer.text(
            report(
                weights: ["profile": 1],
                apps: [
                    PredictionRow(app: "com.mail", forecast: mail, planner: planner),
                    PredictionRow(app: "com.news", forecast: news, planner: planner),
                    PredictionRow(
                        app: "com.chat", forecast: .none(origin: origin, minutes: 1440), planner: planner),
                ]))
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        #expect(lines[1] == "com.mail            fetch 07:50  → use expected 08:00 (±0 min, p=1.00)")
        #expect(
            lines[2]
                == "com.news            no fetch    next use expected 23:30 +1d, 10% likely within 24 h; "
                + "unlikely to be used: the busiest 30-min window holds 0.10 expected uses, below the 0.50 a fetch needs"
        )
        #expect(lines[3] == "com.chat            no fetch    no use expected")
    }

    /// A use certain within the day but spread evenly over it: no fetch, and the reason.
    @Test func aLikelyAppWithoutAFetchSaysWhy() {
        var spread = Forecast.none(origin: origin, minutes: 1440)
        for m in 0..<1440 { spread.density[m] = 1.0 / 1440 }
        spread.beyond = 0
        let row = PredictionRow(app: "com.spread", forecast: spread, planner: FetchPlanner())
        #expect(row.fetches.isEmpty && row.probability > 0.99)
        let text = PredictionRenderer.text(report(weights: ["profile": 1], apps: [row]))
        #expect(
            text.contains("uses spread out: the busiest 30-min window holds 0.02 expected uses, below the 0.50"),
            "\(text)")
    }

    /// An outlook from no context samples is shown as assumed, never as "usually".
    @Test func anAssumedOutlookSaysSo() {
        var mail = Forecast.none(origin: origin, minutes: 1440)
        mail.density[480] = 1
        mail.beyond = 0
        var row = PredictionRow(app: "com.mail", forecast: mail, planner: FetchPlanner())
        row.fetches[0].outlook = FetchOutlook(wifi: 1, cellular: 0, offline: 0, charging: 0, joules: 1.7, days: 14)
        row.fetches[0].outlook?.assumed = true
        let text = PredictionRenderer.text(report(weights: ["profile": 1], apps: [row]))
        #expect(text.hasSuffix("; no context samples: assumed Wi-Fi, 80 %, not charging, ≈ 1.7 J"), "\(text)")
        #expect(!text.contains("usually"))
    }

    @Test func stampsAndClocksWithNegativeOffsets() {
        let t = LocalCalendar.midnight(of: CivilDate(year: 2024, month: 1, day: 2).daysSince1970, offset: -19_800)
        #expect(
            PredictionRenderer.stamp(t + .hours(8) + .minutes(5 as Int64), offset: -19_800)
                == "2024-01-02 08:05 (-05:30)")
        #expect(PredictionRenderer.clock(t + .hours(26), offset: -19_800, origin: t) == "02:00 +1d")
    }

    @Test func theSummaryOfEveryUser() {
        #expect(
            PredictionRenderer.summary(
                users: 1200, launches: 1_234_567, apps: 30, fetches: 45, fittedOn: 40, fitSeconds: 1.5,
                totalSeconds: 130)
                == "1,200 users, 1,234,567 launches, 30 apps: 45 fetches planned for the day after each log "
                + "(blend fitted on 40 users in 1.50 s; 2 min 10 s in all)")
    }
}

@Suite struct EvaluationRendererTests {
    func report() -> EvaluationReport {
        var blend = PredictorScore(name: "blend")
        blend.meanAbsErrorMinutes = 42.25
        blend.medianAbsErrorMinutes = 10
        blend.hitRate = 0.5
        blend.coverage = 0.25
        blend.fetchesPerAppDay = 1.5
        blend.brier = 0.1234
        blend.hr1 = 0.5
        blend.hr5 = 0.9
        blend.mrr = 0.65
        blend.reliability = [ReliabilityBin(from: 0, to: 0.1, count: 1234, meanPredicted: 0.05, observed: 0.04)]
        let ranker = PredictorScore(name: "most-recent", forecastsTiming: false)
        return EvaluationReport(
            users: 3, launches: 12_345, heldOutDays: 21, options: EvaluationOptions(),
            blendWeights: ["profile": 0.25, "gap": 0.25, "sequence": 0.25, "android": 0.25],
            nextAppWeights: ["profile": 0.35, "gap": 0.65], scores: [blend, ranker])
    }

    @Test func weightsPrintWithTwoDecimals() {
        let lines = EvaluationRenderer.text(report()).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(
            lines[0]
                == "3 users, 12,345 launches; scores on 21 held-out user-days (origins every 3 h, warm-up 7 d)")
        #expect(
            lines[1] == "blend weights (fitted on the first half): android 0.25, gap 0.25, profile 0.25, sequence 0.25")
        #expect(lines[2] == "blend next-app weights: gap 0.65, profile 0.35")
    }

    @Test func oneUserIsSingularAndTheHitColumnNamesItsTolerance() {
        var r = report()
        r.users = 1
        r.heldOutDays = 1
        r.options.hitTolerance = .minutes(10)
        let lines = EvaluationRenderer.text(r).split(separator: "\n").map(String.init)
        #expect(lines[0].hasPrefix("1 user, 12,345 launches; scores on 1 held-out user-day "))
        #expect(lines.contains { $0.hasPrefix("predictor") && $0.contains(" hit±10 ") })
        #expect(!lines.contains { $0.contains("hit±15") })
    }

    @Test func theTableHasARowPerPredictorWithDashesForWhatItDoesNotDo() {
        let text = EvaluationRenderer.text(report())
        let lines = text.split(separator: "\n").map(String.init)
        let header = lines.first { $0.hasPrefix("predictor") }
        #expect(header?.contains("truth") == false)
        let blend = lines.first { $0.hasPrefix("blend   ") }
        #expect(blend == "blend                    42.2    10.0     50%    25%     1.50   0.123  0.500  0.900  0.650")
        let ranker = lines.first { $0.hasPrefix("most-recent ") }
        #expect(ranker == "most-recent                 –       –       –      –        –       –      –      –      –")
        #expect(text.contains("reliability of the blend's P(use within 60 min):"))
        #expect(text.contains("  0.0 – 0.1     1,234 forecasts  predicted 0.050  observed 0.040"))
    }

    @Test func plannedFetchesCalibrationPerPredictorAndTheBlendsBins() {
        var r = report()
        let fit = (0..<100).map { CalibrationSample(stated: 0.8, outcome: $0 < 30) }
        let heldOut = (0..<50).map { CalibrationSample(stated: 0.8, outcome: $0 < 14) }
        r.scores[0].plannedFetches = PlannedFetchCalibration(fit: fit, heldOut: heldOut)
        let lines = EvaluationRenderer.text(r).split(separator: "\n").map(String.init)
        #expect(
            lines.contains(
                "planned fetches' p = P(launch within 30 min after the fetch), calibrated on the first half, "
                    + "held-out (max |gap| over bins of ≥ 30):"))
        #expect(lines.contains("predictor             fetches   score       p  observed  gap raw   gap p"))
        #expect(lines.contains("blend                      50   0.800   0.300     0.280    0.520   0.020"))
        #expect(lines.contains("calibrated p of the blend's fetches:"))
        #expect(lines.contains("  0.3 – 0.4        50 fetches  stated 0.300  observed 0.280  gap 0.020"))
        // The ranker planned nothing: no row.
        #expect(!lines.contains { $0.hasPrefix("most-recent") && $0.contains("0.") })
    }

    @Test func truthColumnsWhenThereIsATruth() {
        var r = report()
        r.scores[0].truthPeaks = 10
        r.scores[0].truthFound = 8
        r.scores[0].truthMedianErrorMinutes = 4.5
        let lines = EvaluationRenderer.text(r).split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("predictor") && $0.hasSuffix("truth: found  median") })
        #expect(lines.contains { $0.hasPrefix("blend   ") && $0.hasSuffix("         80%     4.5") })
    }
}

@Suite struct TextFormatTests {
    @Test func counts() {
        #expect(TextFormat.count(0) == "0")
        #expect(TextFormat.count(999) == "999")
        #expect(TextFormat.count(-1_234_567) == "-1,234,567")
    }

    @Test func offsets() {
        #expect(TextFormat.offset(0) == "+00:00")
        #expect(TextFormat.offset(19_800) == "+05:30")
        #expect(TextFormat.offset(-14_400) == "-04:00")
    }
}
