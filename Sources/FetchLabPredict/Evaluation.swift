import FetchLabCore
import FetchLabResults
import Foundation

/// Rolling-origin evaluation: each predictor learns a user's launches in time order and, at every
/// origin (every few local hours), forecasts the next 24 hours from what it has seen, never more;
/// the forecasts are scored against what happened next. Midnight origins also plan the day's
/// fetches. After every launch, predictors rank the apps for the next launch.
public struct Evaluator: Sendable {
    public var options: EvaluationOptions

    public init(options: EvaluationOptions = EvaluationOptions()) { self.options = options }

    /// The predictors compared (the blend is added with fitted weights).
    public static func components() -> [any UsePredictor] {
        [ProfilePredictor(), GapPredictor(), SequencePredictor(), AndroidHeuristicPredictor()]
    }

    public static func baselines() -> [any UsePredictor] {
        [DailyRepeatBaseline(), LastGapBaseline(), MostFrequentBaseline(), MostRecentBaseline()]
    }

    /// Evaluates every predictor on every history; `truth` gives a user's true routine times on
    /// a local day (nil when unknown). `progress` gets histories done.
    public func evaluate(
        _ histories: [UserHistory], truth: (@Sendable (String, Int) -> [TruePeak])? = nil,
        progress: (@Sendable (Int) -> Void)? = nil
    ) -> EvaluationReport {
        // Pass 1: components and baselines; fit-period samples for the blend.
        var totals = (Self.components() + Self.baselines()).map { ScoreAccumulator($0) }
        var fitSamples: [[[Float]]] = []  // sample → component → CDF at 5-minute steps
        var fitTargets: [Double] = []
        var nextAppSamples: [NextAppSample] = []
        let results = ParallelMap.map(histories) { history -> UserRun in
            var predictors = Self.components() + Self.baselines()
            return run(history, predictors: &predictors, truth: truth, collectFit: Self.components().count)
        }
        var heldOutDays = 0
        var launches = 0
        for (h, r) in zip(histories, results) {
            for i in totals.indices { totals[i].merge(r.scores[i]) }
            fitSamples += r.fitSamples
            fitTargets += r.fitTargets
            nextAppSamples += r.nextAppSamples
            launches += h.launches.count
            heldOutDays += split(h).heldOut.count
        }
        progress?(histories.count)
        // Fit the blend's weights on the fit period, then evaluate it on held-out time.
        let weights = BlendFitter.fit(samples: fitSamples, targets: fitTargets, components: Self.components().count)
        let nextAppWeights = BlendFitter.fitNextApp(nextAppSamples, components: Self.components().count)
        let blendPredictor = BlendPredictor(
            parts: Self.components(), weights: weights, nextAppWeights: nextAppWeights)
        let blendResults = ParallelMap.map(histories) { history -> [ScoreAccumulator] in
            var predictors: [any UsePredictor] = [blendPredictor]
            return run(history, predictors: &predictors, truth: truth, collectFit: 0).scores
        }
        var blend = ScoreAccumulator(blendPredictor)
        for r in blendResults { blend.merge(r[0]) }
        let scores = [blend.score()] + totals.map { $0.score() }
        return EvaluationReport(
            users: histories.count, launches: launches, heldOutDays: heldOutDays, options: options,
            blendWeights: Dictionary(uniqueKeysWithValues: zip(Self.components().map(\.name), weights)),
            nextAppWeights: Dictionary(uniqueKeysWithValues: zip(Self.components().map(\.name), nextAppWeights)),
            scores: scores)
    }

    /// Fits the blend's weights on the fit periods of `histories` (components only).
    public func fitBlend(_ histories: [UserHistory]) -> (weights: [Double], nextApp: [Double]) {
        let results = ParallelMap.map(histories) { history -> UserRun in
            var predictors = Self.components()
            return run(history, predictors: &predictors, truth: nil, collectFit: predictors.count, scoreHeldOut: false)
        }
        let n = Self.components().count
        return (
            BlendFitter.fit(
                samples: results.flatMap(\.fitSamples), targets: results.flatMap(\.fitTargets), components: n),
            BlendFitter.fitNextApp(results.flatMap(\.nextAppSamples), components: n)
        )
    }

    /// The blend with weights fitted on `histories`.
    public func fittedBlend(_ histories: [UserHistory]) -> BlendPredictor {
        let (w, a) = fitBlend(histories)
        return BlendPredictor(parts: Self.components(), weights: w, nextAppWeights: a)
    }

    /// `planner` with its calibration fitted on the midnight plans `predictor` (fitted, untrained)
    /// makes for `histories`, each learnt from its own past only: every day after the warm-up,
    /// each planned fetch's score against whether the app was launched within the freshness window
    /// after it. Causal when `histories` hold only what happened before the moment the planner
    /// will plan for (`predict` passes the histories before its origin).
    public func calibrated(
        _ planner: FetchPlanner, for predictor: any UsePredictor, on histories: [UserHistory]
    ) -> FetchPlanner {
        var options = options
        options.planner = planner
        options.fitShare = 1  // every day after the warm-up is a fit day
        options.originEveryHours = 24  // only the midnight origins plan
        let evaluator = Evaluator(options: options)
        let samples = ParallelMap.map(histories) { history -> [CalibrationSample] in
            var predictors: [any UsePredictor] = [predictor]
            return evaluator.run(history, predictors: &predictors, truth: nil, collectFit: 0, scoreHeldOut: false)
                .scores[0].fitFetches
        }
        var out = planner
        out.calibration = ProbabilityCalibrator(fitting: samples.flatMap { $0 })
        return out
    }

    /// Why nothing of `histories` would be scored (no held-out day with an origin: every log is
    /// shorter than the warm-up plus a day), or nil when something will be.
    public func shortfall(_ histories: [UserHistory]) -> EvaluationShortfall? {
        var longest = 0
        for h in histories {
            guard let first = h.launches.first?.localDay, let last = h.launches.last?.localDay else { continue }
            // Origins start at the first midnight after the first launch.
            if split(h).heldOut.contains(where: { $0 > first }) { return nil }
            longest = max(longest, last - first + 1)
        }
        return EvaluationShortfall(warmUpDays: options.warmUpDays, longestSpanDays: longest)
    }

    /// A user's local days: warm-up, fit period and held-out period.
    /// The first launch of a user's held-out time (the days after the fit period).
    /// - Parameter h: the user's history.
    /// - Returns: the time of that launch (nil: the user has no held-out launch).
    public func heldOutStart(_ h: UserHistory) -> Instant? {
        let days = split(h).heldOut
        return h.launches.first { days.contains($0.localDay) }?.time
    }

    func split(_ h: UserHistory) -> (fit: Range<Int>, heldOut: Range<Int>) {
        guard let first = h.launches.first?.localDay, let last = h.launches.last?.localDay else {
            return (0..<0, 0..<0)
        }
        let start = first + options.warmUpDays
        guard last >= start else { return (start..<start, start..<start) }
        let fitEnd = start + Int((Double(last - start + 1) * options.fitShare).rounded(.down))
        return (start..<fitEnd, fitEnd..<(last + 1))
    }

    /// Runs `predictors` over one history; returns their accumulators and, for the first
    /// `collectFit` predictors, fit-period CDF samples with their targets (minutes to next use).
    func run(
        _ h: UserHistory, predictors: inout [any UsePredictor], truth: (@Sendable (String, Int) -> [TruePeak])?,
        collectFit: Int, scoreHeldOut: Bool = true
    ) -> UserRun {
        var nextAppFit: [NextAppSample] = []
        var acc = predictors.map { ScoreAccumulator($0) }
        var fitSamples: [[[Float]]] = []
        var fitTargets: [Double] = []
        let (fit, heldOut) = split(h)
        guard !(fit.isEmpty && heldOut.isEmpty), let first = h.launches.first, let last = h.launches.last else {
            return UserRun(scores: acc)
        }
        let appCount = h.apps.count
        // Each app's launch times, for "what happened next".
        var byApp = [[Instant]](repeating: [], count: appCount)
        for l in h.launches { byApp[Int(l.app)].append(l.time) }
        func nextLaunch(_ app: Int, after t: Instant) -> Instant? {
            let xs = byApp[app]
            var lo = 0
            var hi = xs.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if xs[mid] <= t { lo = mid + 1 } else { hi = mid }
            }
            return lo < xs.count ? xs[lo] : nil
        }
        let horizon = options.horizon
        var offset = first.offset
        var seen = Set<Int32>()
        var nextOrigin = LocalCalendar.midnight(after: first.time, offset: offset)
        let step = Microseconds.hours(Int64(options.originEveryHours))
        var index = 0
        let lastTime = last.time
        // Next-app questions are asked just after the previous launch.
        let justAfter = Microseconds.perSecond

        while nextOrigin <= lastTime {
            // Learn everything before the origin.
            while index < h.launches.count && h.launches[index].time < nextOrigin {
                let l = h.launches[index]
                // Next app: rank just after the previous launch, before learning this one.
                if collectFit > 0 && index > 0 && fit.contains(l.localDay) {
                    let prev = h.launches[index - 1]
                    let parts = (0..<collectFit).map {
                        BlendPredictor.normalisedScores(
                            predictors[$0].nextAppScores(
                                apps: appCount, origin: prev.time + justAfter, offset: prev.offset)
                        ).map(Float.init)
                    }
                    nextAppFit.append(NextAppSample(scores: parts, target: Int(l.app)))
                }
                if scoreHeldOut && index > 0 && heldOut.contains(l.localDay) {
                    let prev = h.launches[index - 1]
                    for p in predictors.indices where acc[p].hasNextApp {
                        let scores = predictors[p].nextAppScores(
                            apps: appCount, origin: prev.time + justAfter, offset: prev.offset)
                        let target = scores[Int(l.app)]
                        var rank = 1
                        for (a, s) in scores.enumerated() where s > target || (s == target && a < Int(l.app)) {
                            rank += 1
                        }
                        acc[p].ranks.append(rank)
                    }
                }
                for p in predictors.indices { predictors[p].observe(l) }
                seen.insert(l.app)
                offset = l.offset
                index += 1
            }
            let origin = nextOrigin
            nextOrigin += step
            let local = LocalCalendar.localSeconds(origin, offset: offset)
            let day = LocalCalendar.day(localSeconds: local)
            let midnightOfDay = LocalCalendar.midnight(of: day, offset: offset)
            let inFit = fit.contains(day)
            let scoring = scoreHeldOut && heldOut.contains(day)
            guard inFit || scoring else { continue }
            let midnight = origin - midnightOfDay < Microseconds.perMinute
            // The day's true routine times (asked once per day, not per app and predictor).
            let truePeaks = midnight && scoring ? truth?(h.user.name, day) ?? [] : []
            for app in seen.sorted() {
                let actual = nextLaunch(Int(app), after: origin - 1)
                let within = actual.map { $0 - origin < horizon } ?? false
                let minutesToNext = actual.map { ($0 - origin).inMinutes }
                var cdfs: [[Float]] = []
                for p in predictors.indices where acc[p].hasForecasts {
                    let f = predictors[p].forecast(
                        app: app, origin: origin, offset: offset, minutes: options.horizonGridMinutes)
                    if inFit && p < collectFit && within {
                        var cdf = [Float](repeating: 0, count: options.horizonGridMinutes / 5)
                        var c = 0.0
                        for i in 0..<f.density.count {
                            c += f.density[i]
                            if i % 5 == 4 { cdf[i / 5] = Float(c) }
                        }
                        cdfs.append(cdf)
                    }
                    // Midnight plans: each fetch's score and whether a launch followed within the
                    // freshness window, to calibrate on (fit period) and judge by (held-out time).
                    let plan = midnight && (inFit || scoring) ? options.planner.plan(f) : []
                    let outcomes = plan.compactMap { fetch -> CalibrationSample? in
                        let end = fetch.fetchAt + options.planner.freshness
                        guard end <= lastTime else { return nil }  // the log ends before the window does
                        let launched = nextLaunch(Int(app), after: fetch.fetchAt - 1).map { $0 <= end } ?? false
                        return CalibrationSample(stated: fetch.score, outcome: launched)
                    }
                    if inFit { acc[p].fitFetches += outcomes } else { acc[p].heldOutFetches += outcomes }
                    guard scoring else { continue }
                    if within, let m = minutesToNext {
                        let predicted = f.expectedNext ?? options.horizon.inMinutes
                        acc[p].errors.append(abs(predicted - m))
                    }
                    let prob = f.probability(within: options.calibrationWindow.inMinutes)
                    let outcome = (minutesToNext ?? .infinity) <= options.calibrationWindow.inMinutes ? 1.0 : 0.0
                    acc[p].brierSum += (prob - outcome) * (prob - outcome)
                    acc[p].brierCount += 1
                    acc[p].reliability.record(stated: prob, outcome: outcome > 0)
                    if midnight {
                        score(plan: plan, app: Int(app), day: origin, acc: &acc[p], byApp: byApp)
                        if truth != nil {
                            let planned = plan.map { ($0.expectedUse - midnightOfDay).inMinutes }
                            for peak in truePeaks where peak.app == app {
                                acc[p].truthPeaks += 1
                                if let best = planned.map({ abs($0 - peak.minute) }).min(), best <= 60 {
                                    acc[p].truthErrors.append(best)
                                }
                            }
                        }
                    }
                }
                if cdfs.count == collectFit && collectFit > 0, let m = minutesToNext {
                    fitSamples.append(cdfs)
                    fitTargets.append(m)
                }
            }
        }
        return UserRun(scores: acc, fitSamples: fitSamples, fitTargets: fitTargets, nextAppSamples: nextAppFit)
    }

    /// Scores a day's plan for one app: hits among planned uses, launches covered.
    private func score(
        plan: [PlannedFetch], app: Int, day origin: Instant, acc: inout ScoreAccumulator, byApp: [[Instant]]
    ) {
        let tolerance = options.hitTolerance
        let end = origin + options.horizon
        let launches = byApp[app].filter { $0 >= origin && $0 < end }
        acc.appDays += 1
        acc.planned += plan.count
        for p in plan where launches.contains(where: { abs($0 - p.expectedUse) <= tolerance }) { acc.hits += 1 }
        acc.launches += launches.count
        acc.covered += launches.filter { l in plan.contains { abs(l - $0.expectedUse) <= tolerance } }.count
    }
}

/// What one user's run produced: each predictor's scores and, for the components, the fit-period
/// samples the blend's weights are fitted on.
struct UserRun {
    var scores: [ScoreAccumulator]
    /// Per sample, each component's CDF of the next use at 5-minute steps.
    var fitSamples: [[[Float]]] = []
    /// Per sample, the minutes to the actual next use.
    var fitTargets: [Double] = []
    var nextAppSamples: [NextAppSample] = []
}

/// Too little data to evaluate: no user's log reaches past the warm-up by a day.
public struct EvaluationShortfall: Sendable, Equatable, CustomStringConvertible {
    public var warmUpDays: Int
    /// The longest user's log, in local days from the first launch's to the last's.
    public var longestSpanDays: Int

    /// The longest warm-up that leaves a day to fit the blend on and a day to score on the
    /// longest log; nil when the log spans a single day (nothing can be scored).
    public var suggestedWarmUpDays: Int? { longestSpanDays >= 2 ? longestSpanDays - 2 : nil }

    public var description: String {
        let days = { (n: Int) in n == 1 ? "1 day" : "\(n) days" }
        let lead = "no origins or launches were scored: "
        if longestSpanDays == 0 { return lead + "there are no launches" }
        if longestSpanDays == 1 {
            return lead + "the launches span a single day (forecasts start at the midnight after the first launch)"
        }
        return lead + "the warm-up of \(days(warmUpDays)) is "
            + (warmUpDays > longestSpanDays ? "longer than" : "as long as")
            + " the data's span of \(days(longestSpanDays))"
    }
}
