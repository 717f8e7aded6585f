import FetchLabCore
import FetchLabResults

/// The learned model of the next use as an app can run it: `learned-app(B)` spends about B
/// fetches per app per day at the moments the model finds most likely to precede a launch that
/// needs a fetch, as `learned(B)` does, but reads only what the app itself sees — its own launches
/// (recency, launch rate, hour of the week, the hit rate of each kind of moment), its own
/// notifications, and a quarter-hourly timer. No other app's launch, no unlock or screen-on (only
/// the OS sees those), and its budget is its own: no controller shared with the user's other apps.
/// It is the same model as `learned` (`NextUseModel`), asked at fewer moments and knowing less.
public struct AppLearnedPolicy: FetchPolicy {
    /// Fetches per day.
    public var budget: Double

    public init(budget: Double = 2) {
        precondition(budget > 0 && budget.isFinite)
        self.budget = budget
    }

    public var name: String { "learned-app(\(PolicyRegistry.Arguments.numberName(budget)))" }
    public var family: String { "learned-app" }
    /// What an app sees of itself.
    public var signals: Set<PolicySignal> { [.ownLaunches, .notifications] }
    public var parameters: [String: Double] { ["budget": budget] }
    public var summary: String {
        "fetch when a learned model of the app's own use (recency, rate, hour of week, its notifications) is "
            + "confident enough; about \(PolicyRegistry.Arguments.numberName(budget)) fetches a day; app scope"
    }

    public func makeScheduler(_ pair: PairInfo) -> (any FetchScheduler)? {
        // The learned model reads every moment it is shown: filtered to what an app sees.
        SignalFilteredScheduler(
            inner: LearnedScheduler(policy: LearnedPolicy(budget: .fetches(budget)), pair: pair),
            view: SignalView(signals, app: pair.app))
    }
}

extension AppLearnedPolicy: PolicyFamily {
    public static let familyNames = ["learned-app", "learned_app", "app-learned"]
    public static let form = "learned-app(B) (e.g. learned-app(2), learned-app(0.5,1,2,5,10))"

    public static func parse(_ arguments: [String], raw: String) throws(PolicyRegistry.ParseError) -> [any FetchPolicy]
    {
        guard !arguments.isEmpty else { return [AppLearnedPolicy()] }
        return try arguments.map { (a: String) throws(PolicyRegistry.ParseError) -> any FetchPolicy in
            AppLearnedPolicy(
                budget: try PolicyRegistry.Arguments.number(
                    a, raw: raw, what: "daily budget (fetches)", in: 0.01...1_000))
        }
    }
}

extension AppLearnedPolicy: TunableFamily {
    /// `tune --family learned-app`: the daily budget, as `learned`'s.
    public static var tunableParameters: [TunableParameter] { LearnedPolicy.tunableParameters }
}

extension AppLearnedPolicy: PlatformTranslatable {
    /// iOS: a BGAppRefreshTaskRequest whose earliest begin date is the model's next likely moment
    /// (the system's scheduler decides when it runs: modelled by ios-adaptive); Android: a
    /// one-time work request delayed to the moment the model picks, which WorkManager runs then,
    /// subject to the app's standby bucket, Doze and quotas (the policy itself under Android's rules).
    public func platformSettings(ios: PlatformModel) -> [PlatformTranslation] {
        [
            PlatformTranslation(
                platform: .ios,
                setting:
                    "BGAppRefreshTaskRequest after each launch, earliestBeginDate = the model's next likely use − 15m",
                model: IOSAdaptivePolicy(lead: .minutes(15)),
                snippet: """
                    let request = BGAppRefreshTaskRequest(identifier: "com.example.refresh")
                    request.earliestBeginDate = model.nextLikelyUse().addingTimeInterval(-900)  // 15m before
                    try BGTaskScheduler.shared.submit(request)
                    """,
                note: "earliestBeginDate is a floor: iOS's own scheduler picks the moment from the app's launch "
                    + "times (modelled by ios-adaptive), so the model's timing is not what runs"),
            PlatformTranslation(
                platform: .android,
                setting:
                    "OneTimeWorkRequest with setInitialDelay to the model's next fetch moment, re-enqueued after each run (about \(PolicyRegistry.Arguments.numberName(budget)) a day)",
                model: self,
                snippet: """
                    val delay = Duration.between(Instant.now(), model.nextFetchMoment()).toMinutes()
                    val request = OneTimeWorkRequestBuilder<RefreshWorker>()
                        .setInitialDelay(delay, TimeUnit.MINUTES).build()
                    WorkManager.getInstance(context).enqueueUniqueWork("refresh", ExistingWorkPolicy.REPLACE, request)
                    """,
                note: "WorkManager runs the work at the computed time, subject to the standby bucket, Doze and quotas"),
        ]
    }
}
