import FetchLabCore

/// A planned fetch: when to fetch, for which expected use.
/// What a fetch at a planned moment is expected to run on and cost, from the same moments of the
/// user's past days (filled by the caller that knows the device context and the cost model).
public struct FetchOutlook: Sendable, Codable, Equatable {
    /// Shares of the past days on Wi-Fi, on cellular, without a network, and charging.
    public var wifi: Double
    public var cellular: Double
    public var offline: Double
    public var charging: Double
    /// Expected battery energy of the fetch, joules (nothing while charging).
    public var joules: Double
    /// How many past days the shares come from.
    public var days: Int
    /// No context sample of the user before the origin: every share is the stated default (Wi-Fi,
    /// 80 %, not charging), assumed, not observed.
    public var assumed = false

    public init(wifi: Double, cellular: Double, offline: Double, charging: Double, joules: Double, days: Int) {
        self.wifi = wifi
        self.cellular = cellular
        self.offline = offline
        self.charging = charging
        self.joules = joules
        self.days = days
    }
}

public struct PlannedFetch: Sendable, Codable, Equatable {
    /// When to fetch (UTC microseconds).
    public var fetchAt: Instant
    /// The expected use it serves (median of the predicted bump), and an 80 % interval around it.
    public var expectedUse: Instant
    public var intervalLow: Instant
    public var intervalHigh: Instant
    /// The probability that the app is launched within the freshness window after `fetchAt`
    /// (in [fetchAt, fetchAt + freshness]): the ``score`` mapped by the planner's calibration;
    /// the score itself when the planner is not calibrated.
    public var probability: Double
    /// The planner's raw score of the bump: the predictor's expected number of uses within the
    /// freshness window around the expected use, capped at 1. The threshold applies to it.
    public var score: Double
    /// The expected network and energy at that moment (nil until a caller fills it).
    public var outlook: FetchOutlook? = nil

    public init(
        fetchAt: Instant, expectedUse: Instant, intervalLow: Instant, intervalHigh: Instant,
        probability: Double, score: Double, outlook: FetchOutlook? = nil
    ) {
        self.fetchAt = fetchAt
        self.expectedUse = expectedUse
        self.intervalLow = intervalLow
        self.intervalHigh = intervalHigh
        self.probability = probability
        self.score = score
        self.outlook = outlook
    }
}

/// Turns a forecast into fetch moments: a fetch ``lead`` before each predicted use that is
/// likely enough, moments closer than the freshness window merged into one. Its settings; the
/// planning (`plan(_:)`, `peakScore(_:)`) lives with the forecasts, in FetchLabPredict.
public struct FetchPlanner: Sendable, Codable {
    /// The span between the fetch and the expected use; must cover the fetch itself (JSON
    /// `leadMinutes`, like every span here in minutes).
    @InMinutes public var lead: Microseconds = .minutes(10)
    /// How long a fetch takes (a fetch must end before the use).
    @InMinutes public var fetchDuration: Microseconds = .seconds(30)
    /// Plan a fetch only for a bump whose score (expected uses in the window) is at least this;
    /// it selects the same fetches whether or not the planner is calibrated.
    public var threshold = 0.5
    /// Content fetched is fresh for this long: uses within it share a fetch, and a bump's
    /// probability is counted over this window.
    @InMinutes public var freshness: Microseconds = .minutes(30)
    /// Maps a bump's score to the stated probability of a launch within the freshness window
    /// after the fetch; fitted on past plans (`Evaluator.calibrated(_:for:on:)` in FetchLabPredict), the identity
    /// until then.
    public var calibration = ProbabilityCalibrator.identity

    public init(
        lead: Microseconds = .minutes(10), threshold: Double = 0.5, freshness: Microseconds = .minutes(30),
        calibration: ProbabilityCalibrator = .identity
    ) {
        self.lead = lead
        self.threshold = threshold
        self.freshness = freshness
        self.calibration = calibration
    }

    enum CodingKeys: String, CodingKey {
        case lead = "leadMinutes", fetchDuration = "fetchDurationMinutes", threshold
        case freshness = "freshnessMinutes", calibration
    }

    /// Problems with the settings, as sentences (empty when usable).
    public func problems() -> [String] {
        var out: [String] = []
        if lead < fetchDuration {
            out.append(
                "the lead time (\(lead.inMinutes) min) must cover the fetch duration (\(fetchDuration.inMinutes) min)")
        }
        if !(0...1).contains(threshold) { out.append("the probability threshold must be in 0…1") }
        if freshness <= 0 { out.append("the freshness window must be positive") }
        return out
    }
}
