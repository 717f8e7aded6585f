import FetchLabCore

/// One app's prediction: the chance of a use within the horizon, when it is expected and the
/// fetches planned for it.
public struct PredictionRow: Sendable, Equatable {
    public var app: String
    /// Probability of a use within the horizon.
    public var probability: Double
    public var expectedNext: Instant?
    public var intervalLow: Instant?
    public var intervalHigh: Instant?
    public var fetches: [PlannedFetch]
    /// The planner's score of the busiest freshness window: the expected uses in it, capped at 1.
    /// A fetch needs at least the threshold.
    public var peakScore: Double
    /// Why no fetch is planned, in a sentence (nil when one is).
    public var noFetchReason: String?

    public init(
        app: String, probability: Double, expectedNext: Instant?, intervalLow: Instant?,
        intervalHigh: Instant?, fetches: [PlannedFetch], peakScore: Double, noFetchReason: String?
    ) {
        self.app = app
        self.probability = probability
        self.expectedNext = expectedNext
        self.intervalLow = intervalLow
        self.intervalHigh = intervalHigh
        self.fetches = fetches
        self.peakScore = peakScore
        self.noFetchReason = noFetchReason
    }
}

/// What `predict` says about one user from one origin.
public struct PredictionReport: Encodable, Sendable {
    public var user: String
    public var origin: Instant
    /// The user's UTC offset at the origin (that of the last launch before it), seconds.
    public var utcOffset: Int
    /// How far ahead, and how long before each expected use its fetch is planned (JSON
    /// `horizonMinutes`, `leadMinutes`).
    public var horizon: Microseconds
    public var lead: Microseconds
    public var threshold: Double
    /// The freshness window of a fetch: its p is the chance of a launch within it after the fetch
    /// (JSON `freshnessMinutes`).
    public var freshness: Microseconds = .minutes(30)
    public var blendWeights: [String: Double]
    /// Apps with a planned fetch first, by the first fetch's time; then by probability.
    public var apps: [PredictionRow]

    public init(
        user: String, origin: Instant, utcOffset: Int, horizon: Microseconds, lead: Microseconds,
        threshold: Double, blendWeights: [String: Double], apps: [PredictionRow], freshness: Microseconds = .minutes(30)
    ) {
        self.freshness = freshness
        self.user = user
        self.origin = origin
        self.utcOffset = utcOffset
        self.horizon = horizon
        self.lead = lead
        self.threshold = threshold
        self.blendWeights = blendWeights
        self.apps = apps
    }
}
