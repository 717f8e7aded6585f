import FetchLabCore
import Foundation

/// Settings of the rolling-origin evaluation.
public struct EvaluationOptions: Sendable, Codable {
    /// Days at the start of each user's log used only for learning.
    public var warmUpDays = 7
    /// Forecast origins every this many hours of local time (00:00 included).
    public var originEveryHours = 3
    public var horizonMinutes = 1440
    /// Calibration is of the probability of a use within this many minutes.
    public var calibrationMinutes = 60.0
    /// A planned use is a hit when a launch comes within this many minutes of it.
    public var hitToleranceMinutes = 15.0
    /// Share of each user's evaluated days on which the blend's weights are fitted; every score
    /// is measured on the days after (held-out time).
    public var fitShare = 0.5
    public var planner = FetchPlanner()

    public init() {}
}

/// One row of a reliability table: forecasts with a probability in [from, to).
public struct ReliabilityBin: Sendable, Codable {
    public var from: Double
    public var to: Double
    public var count: Int
    public var meanPredicted: Double
    public var observed: Double
}

/// A predictor's scores on held-out time.
public struct PredictorScore: Sendable, Codable {
    public var name: String
    /// Next-use time: forecasts whose app was used within the horizon.
    public var nextUseSamples = 0
    public var meanAbsErrorMinutes: Double?
    public var medianAbsErrorMinutes: Double?
    /// Planned uses (from midnight plans) and those a launch came within the tolerance of.
    public var planned = 0
    public var hits = 0
    public var hitRate: Double?
    /// Launches within the tolerance of a planned use, of all launches.
    public var coverage: Double?
    public var fetchesPerAppDay: Double?
    /// Calibration of P(use within `calibrationMinutes`).
    public var brier: Double?
    public var reliability: [ReliabilityBin] = []
    /// Next app: hit rate at 1 and 5, mean reciprocal rank.
    public var nextAppSamples = 0
    public var hr1: Double?
    public var hr5: Double?
    public var mrr: Double?
    /// Routine habits of a truth file recovered by the midnight plans: median error, share found.
    public var truthPeaks = 0
    public var truthFound = 0
    public var truthMedianErrorMinutes: Double?
}

/// The result of `evaluate-predictors`.
public struct EvaluationReport: Sendable, Codable {
    public var users: Int
    public var launches: Int
    public var heldOutDays: Int
    public var options: EvaluationOptions
    public var blendWeights: [String: Double]
    public var nextAppWeights: [String: Double]
    public var scores: [PredictorScore]
}

/// A routine habit's true time on a local day, for checking recovered habit times.
public struct TruePeak: Sendable {
    public var app: Int32
    public var minute: Double
    public init(app: Int32, minute: Double) {
        self.app = app
        self.minute = minute
    }
}

/// Accumulates one predictor's measurements.
struct ScoreAccumulator {
    var name: String
    var errors: [Double] = []
    var planned = 0
    var hits = 0
    var covered = 0
    var launches = 0
    var appDays = 0
    var brierSum = 0.0
    var brierCount = 0
    var bins = [(count: Int, predicted: Double, observed: Double)](repeating: (0, 0, 0), count: 10)
    var ranks: [Int] = []
    var truthErrors: [Double] = []
    var truthPeaks = 0
    var hasForecasts = true
    var hasNextApp = true

    mutating func merge(_ o: ScoreAccumulator) {
        errors += o.errors
        planned += o.planned
        hits += o.hits
        covered += o.covered
        launches += o.launches
        appDays += o.appDays
        brierSum += o.brierSum
        brierCount += o.brierCount
        for i in 0..<10 {
            bins[i].count += o.bins[i].count
            bins[i].predicted += o.bins[i].predicted
            bins[i].observed += o.bins[i].observed
        }
        ranks += o.ranks
        truthErrors += o.truthErrors
        truthPeaks += o.truthPeaks
    }

    func score() -> PredictorScore {
        var s = PredictorScore(name: name)
        if hasForecasts {
            s.nextUseSamples = errors.count
            if !errors.isEmpty {
                s.meanAbsErrorMinutes = errors.reduce(0, +) / Double(errors.count)
                s.medianAbsErrorMinutes = Self.median(errors)
            }
            s.planned = planned
            s.hits = hits
            s.hitRate = planned > 0 ? Double(hits) / Double(planned) : nil
            s.coverage = launches > 0 ? Double(covered) / Double(launches) : nil
            s.fetchesPerAppDay = appDays > 0 ? Double(planned) / Double(appDays) : nil
            s.brier = brierCount > 0 ? brierSum / Double(brierCount) : nil
            s.reliability = bins.enumerated().compactMap { i, b in
                b.count == 0
                    ? nil
                    : ReliabilityBin(
                        from: Double(i) / 10, to: Double(i + 1) / 10, count: b.count,
                        meanPredicted: b.predicted / Double(b.count), observed: b.observed / Double(b.count))
            }
            s.truthPeaks = truthPeaks
            s.truthFound = truthErrors.count
            if !truthErrors.isEmpty { s.truthMedianErrorMinutes = Self.median(truthErrors) }
        }
        if hasNextApp {
            s.nextAppSamples = ranks.count
            if !ranks.isEmpty {
                let n = Double(ranks.count)
                s.hr1 = Double(ranks.filter { $0 == 1 }.count) / n
                s.hr5 = Double(ranks.filter { $0 <= 5 }.count) / n
                s.mrr = ranks.reduce(0.0) { $0 + 1 / Double($1) } / n
            }
        }
        return s
    }

    static func median(_ xs: [Double]) -> Double {
        let s = xs.sorted()
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }
}

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
        let names = (Self.components() + Self.baselines()).map(\.name)
        var totals = names.map { ScoreAccumulator(name: $0) }
        for i in totals.indices {
            totals[i].hasForecasts = !["most-frequent", "most-recent"].contains(totals[i].name)
        }
        var fitSamples: [[[Float]]] = []  // sample → component → CDF at 5-minute steps
        var fitTargets: [Double] = []
        var nextAppSamples: [NextAppSample] = []
        let results = ParallelMap.map(histories) {
            history -> ([ScoreAccumulator], [[[Float]]], [Double], [NextAppSample]) in
            var predictors = Self.components() + Self.baselines()
            return run(history, predictors: &predictors, truth: truth, collectFit: Self.components().count)
        }
        var heldOutDays = 0
        var launches = 0
        for (h, r) in zip(histories, results) {
            for i in totals.indices { totals[i].merge(r.0[i]) }
            fitSamples += r.1
            fitTargets += r.2
            nextAppSamples += r.3
            launches += h.launches.count
            heldOutDays += split(h).heldOut.count
        }
        progress?(histories.count)
        // Fit the blend's weights on the fit period, then evaluate it on held-out time.
        let weights = BlendFitter.fit(samples: fitSamples, targets: fitTargets, components: Self.components().count)
        let nextAppWeights = BlendFitter.fitNextApp(nextAppSamples, components: Self.components().count)
        let blendResults = ParallelMap.map(histories) { history -> [ScoreAccumulator] in
            var predictors: [any UsePredictor] = [
                BlendPredictor(parts: Self.components(), weights: weights, nextAppWeights: nextAppWeights)
            ]
            return run(history, predictors: &predictors, truth: truth, collectFit: 0).0
        }
        var blend = ScoreAccumulator(name: "blend")
        for r in blendResults { blend.merge(r[0]) }
        var scores = [blend.score()] + totals.map { $0.score() }
        scores[0].name = "blend"
        return EvaluationReport(
            users: histories.count, launches: launches, heldOutDays: heldOutDays, options: options,
            blendWeights: Dictionary(uniqueKeysWithValues: zip(Self.components().map(\.name), weights)),
            nextAppWeights: Dictionary(uniqueKeysWithValues: zip(Self.components().map(\.name), nextAppWeights)),
            scores: scores)
    }

    /// Fits the blend's weights on the fit periods of `histories` (components only).
    public func fitBlend(_ histories: [UserHistory]) -> (weights: [Double], nextApp: [Double]) {
        let results = ParallelMap.map(histories) { history -> ([[[Float]]], [Double], [NextAppSample]) in
            var predictors = Self.components()
            let r = run(history, predictors: &predictors, truth: nil, collectFit: predictors.count, scoreHeldOut: false)
            return (r.1, r.2, r.3)
        }
        let n = Self.components().count
        return (
            BlendFitter.fit(samples: results.flatMap(\.0), targets: results.flatMap(\.1), components: n),
            BlendFitter.fitNextApp(results.flatMap(\.2), components: n)
        )
    }

    /// The blend with weights fitted on `histories`.
    public func fittedBlend(_ histories: [UserHistory]) -> BlendPredictor {
        let (w, a) = fitBlend(histories)
        return BlendPredictor(parts: Self.components(), weights: w, nextAppWeights: a)
    }

    /// A user's local days: warm-up, fit period and held-out period.
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
    ) -> ([ScoreAccumulator], [[[Float]]], [Double], [NextAppSample]) {
        var nextAppFit: [NextAppSample] = []
        var acc = predictors.map { ScoreAccumulator(name: $0.name) }
        for i in acc.indices { acc[i].hasForecasts = !["most-frequent", "most-recent"].contains(acc[i].name) }
        var fitSamples: [[[Float]]] = []
        var fitTargets: [Double] = []
        let (fit, heldOut) = split(h)
        guard !heldOut.isEmpty, let first = h.launches.first else { return (acc, [], [], []) }
        let appCount = h.apps.count
        // Each app's launch times, for "what happened next".
        var byApp = [[Microseconds]](repeating: [], count: appCount)
        for l in h.launches { byApp[Int(l.app)].append(l.time) }
        func nextLaunch(_ app: Int, after t: Microseconds) -> Microseconds? {
            let xs = byApp[app]
            var lo = 0
            var hi = xs.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if xs[mid] <= t { lo = mid + 1 } else { hi = mid }
            }
            return lo < xs.count ? xs[lo] : nil
        }
        let horizon = Int64(options.horizonMinutes) * 60_000_000
        var offset = first.offset
        var seen = Set<Int32>()
        var nextOrigin = (Int64(first.localDay + 1) * 86_400 - Int64(offset)) * 1_000_000
        let step = Int64(options.originEveryHours) * 3_600_000_000
        var index = 0
        let lastTime = h.launches[h.launches.count - 1].time

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
                                apps: appCount, origin: prev.time + 1_000_000, offset: prev.offset)
                        ).map(Float.init)
                    }
                    nextAppFit.append(NextAppSample(scores: parts, target: Int(l.app)))
                }
                if scoreHeldOut && index > 0 && heldOut.contains(l.localDay) {
                    let prev = h.launches[index - 1]
                    for p in predictors.indices where acc[p].hasNextApp {
                        let scores = predictors[p].nextAppScores(
                            apps: appCount, origin: prev.time + 1_000_000, offset: prev.offset)
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
            let local = origin / 1_000_000 + Int64(offset)
            let day = LocalCalendar.day(localSeconds: local)
            let inFit = fit.contains(day)
            guard inFit || (scoreHeldOut && heldOut.contains(day)) else { continue }
            let midnight = (local - Int64(day) * 86_400) < 60
            // The day's true routine times (asked once per day, not per app and predictor).
            let truePeaks = midnight && scoreHeldOut && heldOut.contains(day) ? truth?(h.user.name, day) ?? [] : []
            for app in seen.sorted() {
                let actual = nextLaunch(Int(app), after: origin - 1)
                let within = actual.map { $0 - origin < horizon } ?? false
                let minutesToNext = actual.map { Double($0 - origin) / 60e6 }
                var cdfs: [[Float]] = []
                for p in predictors.indices where acc[p].hasForecasts {
                    let f = predictors[p].forecast(
                        app: app, origin: origin, offset: offset, minutes: options.horizonMinutes)
                    if inFit && p < collectFit && within {
                        var cdf = [Float](repeating: 0, count: options.horizonMinutes / 5)
                        var c = 0.0
                        for i in 0..<f.density.count {
                            c += f.density[i]
                            if i % 5 == 4 { cdf[i / 5] = Float(c) }
                        }
                        cdfs.append(cdf)
                    }
                    guard scoreHeldOut && heldOut.contains(day) else { continue }
                    if within, let m = minutesToNext {
                        let predicted = f.expectedNext ?? Double(options.horizonMinutes)
                        acc[p].errors.append(abs(predicted - m))
                    }
                    let prob = f.probability(within: options.calibrationMinutes)
                    let outcome = (minutesToNext ?? .infinity) <= options.calibrationMinutes ? 1.0 : 0.0
                    acc[p].brierSum += (prob - outcome) * (prob - outcome)
                    acc[p].brierCount += 1
                    let bin = min(9, Int(prob * 10))
                    acc[p].bins[bin].count += 1
                    acc[p].bins[bin].predicted += prob
                    acc[p].bins[bin].observed += outcome
                    if midnight {
                        let plan = options.planner.plan(f)
                        score(plan: plan, app: Int(app), day: origin, acc: &acc[p], byApp: byApp)
                        if truth != nil {
                            let planned = plan.map {
                                Double($0.expectedUse / 1_000_000 + Int64(offset) - Int64(day) * 86_400) / 60
                            }
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
        return (acc, fitSamples, fitTargets, nextAppFit)
    }

    /// Scores a day's plan for one app: hits among planned uses, launches covered.
    private func score(
        plan: [PlannedFetch], app: Int, day origin: Microseconds, acc: inout ScoreAccumulator, byApp: [[Microseconds]]
    ) {
        let tolerance = Int64(options.hitToleranceMinutes * 60e6)
        let end = origin + Int64(options.horizonMinutes) * 60_000_000
        let launches = byApp[app].filter { $0 >= origin && $0 < end }
        acc.appDays += 1
        acc.planned += plan.count
        for p in plan where launches.contains(where: { abs($0 - p.expectedUse) <= tolerance }) { acc.hits += 1 }
        acc.launches += launches.count
        acc.covered += launches.filter { l in plan.contains { abs(l - $0.expectedUse) <= tolerance } }.count
    }
}

/// A next-app ranking case of the fit period: each component's normalised scores, and the app
/// that came next.
public struct NextAppSample: Sendable {
    public var scores: [[Float]]
    public var target: Int
}

/// Fits the blend's mixture weights on fit-period samples: the weights on a simplex grid (step
/// 0.1) whose mixture median has the least mean absolute error of the next-use time.
public enum BlendFitter {
    public static func fit(samples: [[[Float]]], targets: [Double], components: Int) -> [Double] {
        guard !samples.isEmpty, components > 0 else {
            return Array(repeating: 1 / Double(max(1, components)), count: components)
        }
        // At most 4000 samples, evenly spread (deterministic).
        let stride = max(1, samples.count / 4000)
        let picked = Swift.stride(from: 0, to: samples.count, by: stride).map { $0 }
        var best = [Double](repeating: 0, count: components)
        best[0] = 1
        var bestError = Double.infinity
        for w in grid(components, steps: 10) {
            var error = 0.0
            for i in picked {
                let s = samples[i]
                let n = s[0].count
                var total = 0.0
                for c in 0..<components where w[c] > 0 { total += w[c] * Double(s[c][n - 1]) }
                var predicted = Double(n * 5)
                if total > 1e-9 {
                    let half = total / 2
                    var lo = 0
                    var hi = n - 1
                    while lo < hi {
                        let mid = (lo + hi) / 2
                        var v = 0.0
                        for c in 0..<components where w[c] > 0 { v += w[c] * Double(s[c][mid]) }
                        if v >= half { hi = mid } else { lo = mid + 1 }
                    }
                    predicted = Double(lo * 5 + 2)
                }
                error += abs(predicted - targets[i])
            }
            if error < bestError - 1e-9 {
                bestError = error
                best = w
            }
        }
        return best
    }

    /// Weights of the components' normalised next-app scores with the best mean reciprocal rank.
    public static func fitNextApp(_ samples: [NextAppSample], components: Int) -> [Double] {
        guard !samples.isEmpty else { return Array(repeating: 1 / Double(max(1, components)), count: components) }
        let stride = max(1, samples.count / 6000)
        let picked = Swift.stride(from: 0, to: samples.count, by: stride).map { samples[$0] }
        var best = [Double](repeating: 1 / Double(components), count: components)
        var bestScore = -1.0
        for w in grid(components, steps: 10) {
            var total = 0.0
            for s in picked {
                let apps = s.scores[0].count
                var target = 0.0
                for c in 0..<components where w[c] > 0 { target += w[c] * Double(s.scores[c][s.target]) }
                var rank = 1
                for a in 0..<apps where a != s.target {
                    var v = 0.0
                    for c in 0..<components where w[c] > 0 { v += w[c] * Double(s.scores[c][a]) }
                    if v > target || (v == target && a < s.target) { rank += 1 }
                }
                total += 1 / Double(rank)
            }
            if total > bestScore + 1e-9 {
                bestScore = total
                best = w
            }
        }
        return best
    }

    /// All weight vectors with `components` entries, multiples of 1/steps, summing to 1.
    static func grid(_ components: Int, steps: Int) -> [[Double]] {
        if components == 1 { return [[1]] }
        var out: [[Double]] = []
        func rec(_ prefix: [Int], _ left: Int) {
            if prefix.count == components - 1 {
                out.append((prefix + [left]).map { Double($0) / Double(steps) })
                return
            }
            for k in 0...left { rec(prefix + [k], left - k) }
        }
        rec([], steps)
        return out
    }
}
