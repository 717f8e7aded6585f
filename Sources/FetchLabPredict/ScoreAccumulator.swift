import FetchLabCore
import FetchLabResults

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
    /// P(use within the calibration window) against what happened.
    var reliability = ReliabilityTable()
    /// Planned fetches' scores and outcomes, in the fit period and on held-out time.
    var fitFetches: [CalibrationSample] = []
    var heldOutFetches: [CalibrationSample] = []
    var ranks: [Int] = []
    var truthErrors: [Double] = []
    var truthPeaks = 0
    var hasForecasts = true
    var hasNextApp = true

    /// An empty accumulator for what `predictor` can do.
    init(_ predictor: any UsePredictor) {
        name = predictor.name
        hasForecasts = predictor.forecastsTiming
        hasNextApp = predictor.ranksApps
    }

    mutating func merge(_ o: ScoreAccumulator) {
        errors += o.errors
        planned += o.planned
        hits += o.hits
        covered += o.covered
        launches += o.launches
        appDays += o.appDays
        brierSum += o.brierSum
        brierCount += o.brierCount
        reliability.merge(o.reliability)
        fitFetches += o.fitFetches
        heldOutFetches += o.heldOutFetches
        ranks += o.ranks
        truthErrors += o.truthErrors
        truthPeaks += o.truthPeaks
    }

    func score() -> PredictorScore {
        var s = PredictorScore(name: name, forecastsTiming: hasForecasts, ranksApps: hasNextApp)
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
            s.reliability = reliability.bins.compactMap { b in
                guard let predicted = b.meanStated, let observed = b.observed else { return nil }
                return ReliabilityBin(
                    from: b.lower, to: b.upper, count: b.count, meanPredicted: predicted, observed: observed)
            }
            if !fitFetches.isEmpty || !heldOutFetches.isEmpty {
                s.plannedFetches = PlannedFetchCalibration(fit: fitFetches, heldOut: heldOutFetches)
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
