import FetchLabCore
import Foundation

/// Settings of the rolling-origin evaluation.
public struct EvaluationOptions: Sendable, Codable {
    /// Days at the start of each user's log used only for learning.
    public var warmUpDays = 7
    /// Forecast origins every this many hours of local time (00:00 included).
    public var originEveryHours = 3
    /// How far ahead each forecast looks (JSON `horizonMinutes`, like every span here in minutes).
    @InMinutes public var horizon: Microseconds = .minutes(1440)
    /// Calibration is of the probability of a use within this span.
    @InMinutes public var calibrationWindow: Microseconds = .minutes(60)
    /// A planned use is a hit when a launch comes within this span of it.
    @InMinutes public var hitTolerance: Microseconds = .minutes(15)
    /// Share of each user's evaluated days on which the blend's weights are fitted; every score
    /// is measured on the days after (held-out time).
    public var fitShare = 0.5
    public var planner = FetchPlanner()

    public init() {}

    enum CodingKeys: String, CodingKey {
        case warmUpDays, originEveryHours, horizon = "horizonMinutes", calibrationWindow = "calibrationMinutes"
        case hitTolerance = "hitToleranceMinutes", fitShare, planner
    }

    /// The horizon in whole minutes: the length of a forecast's minute grid.
    public var horizonGridMinutes: Int { Int(horizon / .perMinute) }
}

/// One row of a reliability table: forecasts with a probability in [from, to).
public struct ReliabilityBin: Sendable, Codable {
    public var from: Double
    public var to: Double
    public var count: Int
    public var meanPredicted: Double
    public var observed: Double

    public init(from: Double, to: Double, count: Int, meanPredicted: Double, observed: Double) {
        self.from = from
        self.to = to
        self.count = count
        self.meanPredicted = meanPredicted
        self.observed = observed
    }
}

/// How a predictor's planned fetches' probabilities hold up. Each fetch's outcome is whether the
/// app was launched within the freshness window after it; a calibrator fitted on the fit period's
/// fetches (scores and outcomes) maps the planner's score to the stated probability, and both are
/// judged against the held-out fetches' outcomes. JSON keys are snake_case.
public struct PlannedFetchCalibration: Sendable, Codable {
    /// Fetches the calibrator was fitted on.
    public var fitSamples: Int
    public var calibrator: ProbabilityCalibrator
    /// The planner's raw score against what happened, on held-out time.
    public var raw: ReliabilityTable
    /// The calibrated probability against what happened, on held-out time.
    public var calibrated: ReliabilityTable

    enum CodingKeys: String, CodingKey {
        case fitSamples = "fit_samples"
        case calibrator, raw, calibrated
    }

    /// A calibration from its parts (FetchLabPredict fits one: `init(fit:heldOut:)`).
    public init(
        fitSamples: Int, calibrator: ProbabilityCalibrator, raw: ReliabilityTable, calibrated: ReliabilityTable
    ) {
        self.fitSamples = fitSamples
        self.calibrator = calibrator
        self.raw = raw
        self.calibrated = calibrated
    }
}

/// A predictor's scores on held-out time.
public struct PredictorScore: Sendable, Codable {
    public var name: String
    /// What the predictor does (`UsePredictor.forecastsTiming`, `UsePredictor.ranksApps` in FetchLabPredict):
    /// the scores of what it does not do are nil.
    public var forecastsTiming = true
    public var ranksApps = true
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
    /// Calibration of P(use within ``EvaluationOptions/calibrationWindow``).
    public var brier: Double?
    public var reliability: [ReliabilityBin] = []
    /// The midnight plans' fetches: their probability calibrated on the fit period and judged on
    /// held-out time (nil when the predictor planned none).
    public var plannedFetches: PlannedFetchCalibration?
    /// Next app: hit rate at 1 and 5, mean reciprocal rank.
    public var nextAppSamples = 0
    public var hr1: Double?
    public var hr5: Double?
    public var mrr: Double?
    /// Routine habits of a truth file recovered by the midnight plans: median error, share found.
    public var truthPeaks = 0
    public var truthFound = 0
    public var truthMedianErrorMinutes: Double?

    public init(name: String, forecastsTiming: Bool = true, ranksApps: Bool = true) {
        self.name = name
        self.forecastsTiming = forecastsTiming
        self.ranksApps = ranksApps
    }
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
    /// The learned family's next-use model, when evaluated (`evaluate-predictors` adds it).
    public var learnedModel: LearnedModelScore?

    public init(
        users: Int, launches: Int, heldOutDays: Int, options: EvaluationOptions, blendWeights: [String: Double],
        nextAppWeights: [String: Double], scores: [PredictorScore]
    ) {
        self.users = users
        self.launches = launches
        self.heldOutDays = heldOutDays
        self.options = options
        self.blendWeights = blendWeights
        self.nextAppWeights = nextAppWeights
        self.scores = scores
    }

    /// Whether no origin and no launch was scored (every sample count is zero).
    public var scoredNothing: Bool {
        scores.allSatisfy { $0.nextUseSamples == 0 && $0.nextAppSamples == 0 && $0.planned == 0 }
    }
}

/// The learned family's next-use model on held-out time (``EvaluationReport/learnedModel``): its
/// own question, "a launch of the app within τ", asked at every moment a policy may act, so its
/// Brier score is not comparable with the predictors' P(use within 1 h); next-app figures over the
/// launches that need a fetch, ranked at the launch of another app before them.
public struct LearnedModelScore: Sendable, Codable {
    /// The question's τ (JSON `tau_minutes`).
    @InMinutes public var tau: Microseconds
    /// Questions scored (held-out time).
    public var questions: Int
    public var brier: Double?
    /// The Brier score of always stating the held-out base rate (a model must beat it).
    public var baseRateBrier: Double?
    public var reliability: ReliabilityTable
    /// Launches that need a fetch, each after a launch of another app, ranked.
    public var rankedLaunches: Int
    public var hr1: Double?
    public var hr5: Double?
    public var mrr: Double?

    /// A score from its figures.
    /// - Parameters:
    ///   - tau: the question's τ.
    ///   - questions: the questions scored.
    ///   - brier: their Brier score.
    ///   - baseRateBrier: the Brier score of stating the base rate.
    ///   - reliability: stated against observed, by bin.
    ///   - rankedLaunches: the launches ranked.
    ///   - hr1: the share ranked first.
    ///   - hr5: the share ranked in the first five.
    ///   - mrr: the mean reciprocal rank.
    public init(
        tau: Microseconds, questions: Int, brier: Double?, baseRateBrier: Double?, reliability: ReliabilityTable,
        rankedLaunches: Int, hr1: Double?, hr5: Double?, mrr: Double?
    ) {
        self.tau = tau
        self.questions = questions
        self.brier = brier
        self.baseRateBrier = baseRateBrier
        self.reliability = reliability
        self.rankedLaunches = rankedLaunches
        self.hr1 = hr1
        self.hr5 = hr5
        self.mrr = mrr
    }
    enum CodingKeys: String, CodingKey {
        case tau = "tauMinutes", questions, brier, baseRateBrier, reliability, rankedLaunches, hr1, hr5, mrr
    }
}
