import FetchLabCore
import FetchLabPredict
import FetchLabResults

/// AOSP's `PrefetchController`: a prefetch job runs only while the app's estimated next launch
/// (`AndroidHeuristicPredictor`: the last launch plus the mean gap between launches over the past
/// week, fed this app's launches as they happen) is within `threshold` (7 h by default). The job
/// is checked every 15 minutes (from t0, the platform's minimum period) and runs at most once per
/// `period` since the content was last refreshed: since the last run asked for, or the last
/// launch when launches refresh (an app does not prefetch what it loaded a moment ago). The
/// default period of 4 h is the spacing of a refresh several times a day and, with the default
/// threshold, makes a daily-used app's content refreshed at least once in the 7 h before its
/// expected launch.
public struct AndroidPrefetchPolicy: FetchPolicy {
    public var threshold: Microseconds
    public var period: Microseconds

    /// How often the job's constraint is checked.
    public static let check: Microseconds = .minutes(15)

    public init(threshold: Microseconds = .hours(7), period: Microseconds = .hours(4)) {
        precondition(threshold > 0 && period >= Self.check)
        self.threshold = threshold
        self.period = period
    }

    public var name: String {
        "android-prefetch(\(FixedIntervalPolicy.durationName(threshold)),\(FixedIntervalPolicy.durationName(period)))"
    }
    public var family: String { "android-prefetch" }
    /// The app's estimated next launch, from its own usage statistics.
    public var signals: Set<PolicySignal> { [.ownLaunches] }
    public var parameters: [String: Double] {
        ["threshold_minutes": threshold.inMinutes, "period_minutes": period.inMinutes]
    }
    public var summary: String {
        "Android PrefetchController: a fetch when the estimated next launch is within "
            + "\(FixedIntervalPolicy.durationName(threshold)), at most one per \(FixedIntervalPolicy.durationName(period)) "
            + "since the last refresh"
    }

    public func makeScheduler(_ pair: PairInfo) -> (any FetchScheduler)? {
        AndroidPrefetchScheduler(policy: self, pair: pair)
    }
}

extension AndroidPrefetchPolicy: PolicyFamily {
    public static let familyNames = ["android-prefetch", "android_prefetch", "prefetch"]
    public static let form = "android-prefetch(threshold,period) (e.g. android-prefetch(7h,4h))"
    public static func parse(_ arguments: [String], raw: String) throws(PolicyRegistry.ParseError) -> [any FetchPolicy]
    {
        typealias A = PolicyRegistry.Arguments
        try A.atMost(
            2, arguments, raw: raw,
            usage: "android-prefetch takes at most a threshold and a period, e.g. android-prefetch(7h,4h)")
        let threshold = try A.duration(
            arguments, at: 0, default: .hours(7), raw: raw, what: "threshold", in: .minutes(1) ... .days(7))
        let period = try A.duration(
            arguments, at: 1, default: .hours(4), raw: raw, what: "period", in: check ... .days(7))
        return [AndroidPrefetchPolicy(threshold: threshold, period: period)]
    }
}

struct AndroidPrefetchScheduler: FetchScheduler {
    var observedEvents: ObservedEvents { .ownApp }
    let policy: AndroidPrefetchPolicy
    let app: Int32
    let launchRefreshes: Bool
    var predictor: AndroidHeuristicPredictor
    /// The last run asked for, or the last launch when launches refresh.
    var lastRefresh: Instant? = nil
    var lastLaunch: Instant? = nil
    private(set) var nextWake: Instant?

    init(policy: AndroidPrefetchPolicy, pair: PairInfo) {
        self.policy = policy
        app = pair.app
        launchRefreshes = pair.evaluation.launchRefreshes
        predictor = AndroidHeuristicPredictor(lookbackDays: 7, thresholdHours: policy.threshold.inHours)
        nextWake = pair.firstEvent + AndroidPrefetchPolicy.check
    }

    mutating func observe(_ event: UsageEvent, state: DeviceState) -> FetchRequest? {
        guard event.app == app, event.kind == .launch else { return nil }
        // Launches at one instant are one launch (the predictor's mean gap must not be zero).
        if lastLaunch != event.time { predictor.observe(event) }
        lastLaunch = event.time
        if launchRefreshes { lastRefresh = event.time }
        return nil
    }

    mutating func wake(at time: Instant, state: DeviceState) -> FetchRequest? {
        nextWake = time + AndroidPrefetchPolicy.check
        guard lastRefresh.map({ time - $0 >= policy.period }) ?? true,
            predictor.wouldPrefetch(app: app, origin: time)
        else { return nil }
        lastRefresh = time
        return .fetch
    }
}
