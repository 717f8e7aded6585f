import FetchLabCore

/// A recommendation carried to what an app developer can set, with the policy that models that
/// setting under the platform's rules (replayed with that platform so its cost and freshness are
/// the platform's, not FetchLab's own policy's).
public struct PlatformSetting: Sendable, Codable, Hashable {
    /// `ios` or `android`.
    public var platform: PlatformKind
    /// What is set, in a line.
    public var setting: String
    /// The policy that models it, replayed under `platform`.
    public var model: String
    /// A snippet to paste (Swift for iOS, Kotlin for Android).
    public var snippet: String
    /// What the model leaves out, when it is an approximation.
    public var note: String?
    /// How the platform replays the model when its own scheduler decides rather than the policy
    /// (iOS: a requested interval through the system's scheduler and wake budget); nil otherwise.
    public var replayedAs: String?

    public init(
        platform: PlatformKind, setting: String, model: String, snippet: String, note: String? = nil,
        replayedAs: String? = nil
    ) {
        self.platform = platform
        self.setting = setting
        self.model = model
        self.snippet = snippet
        self.note = note
        self.replayedAs = replayedAs
    }
}

extension PlatformSetting {
    /// The settings that carry a tuned policy (and the best fixed interval, the knob every app
    /// has) to iOS and Android. Unknown families give none.
    /// - Parameters:
    ///   - policy: the tuned setting, or the best fixed interval.
    ///   - ios: the iOS rules the settings are replayed under (the system's scheduler and
    ///   wake budget a requested interval goes through).
    public static func translate(_ policy: any FetchPolicy, ios: PlatformModel = PlatformModel(kind: .ios))
        -> [PlatformSetting]
    {
        if let fixed = policy as? FixedIntervalPolicy {
            let seconds = fixed.interval / .perSecond
            let minutes = max(15, fixed.interval / .perMinute)
            let name = FixedIntervalPolicy.durationName(fixed.interval)
            let system = ios.systemScheduler(minimumInterval: fixed.interval)
            let budget = ios.iosWakeBudgetMax > 0 ? " within the daily wake budget" : ""
            return [
                PlatformSetting(
                    platform: .ios,
                    setting:
                        "setMinimumBackgroundFetchInterval(\(seconds)) — no fetch sooner than \(name) after the last; iOS decides when",
                    model: fixed.name,
                    snippet: "UIApplication.shared.setMinimumBackgroundFetchInterval(\(seconds))  // \(name)",
                    note: "the interval is a floor: iOS wakes the app when its scheduler expects a launch, "
                        + "within a daily budget that follows how much the app is used",
                    replayedAs: system.name + budget),
                PlatformSetting(
                    platform: .android,
                    setting: "PeriodicWorkRequest every \(minutes) min, flex 15 min",
                    model: "workmanager(\(FixedIntervalPolicy.durationName(.minutes(minutes))),15m,none)",
                    snippet: """
                        val request = PeriodicWorkRequestBuilder<RefreshWorker>(\(minutes), TimeUnit.MINUTES, 15, TimeUnit.MINUTES).build()
                        WorkManager.getInstance(context).enqueueUniquePeriodicWork("refresh", ExistingPeriodicWorkPolicy.UPDATE, request)
                        """,
                    note: fixed.interval < .minutes(15) ? "Android's minimum period is 15 min" : nil),
            ]
        }
        if let p = policy as? PredictivePolicy {
            let lead = FixedIntervalPolicy.durationName(p.lead)
            let leadSeconds = p.lead / .perSecond
            let flexMinutes = max(Int64(5), p.lead / .perMinute)
            return [
                PlatformSetting(
                    platform: .ios,
                    setting: "BGAppRefreshTaskRequest after each launch, earliestBeginDate = predicted use − \(lead)",
                    model: IOSAdaptivePolicy(lead: p.lead).name,
                    snippet: """
                        let request = BGAppRefreshTaskRequest(identifier: "com.example.refresh")
                        request.earliestBeginDate = predictedNextUse.addingTimeInterval(-\(leadSeconds))  // \(lead) before
                        try BGTaskScheduler.shared.submit(request)
                        """,
                    note: "modelled by ios-adaptive (the system's own timing from launch times); FetchLab's "
                        + "sequence and gap triggers are not available to an app"),
                PlatformSetting(
                    platform: .android,
                    setting:
                        "PeriodicWorkRequest every 24 h, flex \(flexMinutes) min, initial delay to \(flexMinutes) min before the user's habitual time of use, re-enqueued (UPDATE) when that time moves",
                    model: WorkManagerPolicy(period: .hours(24), flex: .minutes(flexMinutes), aligned: true).name,
                    snippet: """
                        // habit: the 15-minute slot of the day with the most launches of this app over the last 14 days
                        val delay = Duration.between(LocalDateTime.now(), nextOccurrence(habit)).toMinutes() - \(flexMinutes)
                        val request = PeriodicWorkRequestBuilder<RefreshWorker>(24, TimeUnit.HOURS, \(flexMinutes), TimeUnit.MINUTES)
                            .setInitialDelay(delay, TimeUnit.MINUTES).build()
                        WorkManager.getInstance(context).enqueueUniquePeriodicWork("refresh", ExistingPeriodicWorkPolicy.UPDATE, request)
                        """,
                    note: "one run a day, its flex window ending at the habit; the app sees only its own launches"),
                PlatformSetting(
                    platform: .android, setting: "PeriodicWorkRequest every 1 h, flex 15 min, unmetered network",
                    model: "workmanager(1h,15m,unmetered)",
                    snippet: """
                        val constraints = Constraints.Builder().setRequiredNetworkType(NetworkType.UNMETERED).build()
                        val request = PeriodicWorkRequestBuilder<RefreshWorker>(1, TimeUnit.HOURS, 15, TimeUnit.MINUTES)
                            .setConstraints(constraints).build()
                        """,
                    note: "WorkManager cannot follow predicted uses: the closest periodic setting, on Wi-Fi only"),
            ]
        }
        return []
    }
}

extension PlatformSetting {
    /// Silent pushes from the server when the app's content changes, at most `rate` an hour (Apple's
    /// guidance: two or three), modelled by `push(rate)` under iOS; it needs content-update times.
    public static func silentPush(rate: Int = 3) -> PlatformSetting {
        PlatformSetting(
            platform: .ios,
            setting: "silent push (content-available: 1) on each content update, at most \(rate) an hour",
            model: "push(\(rate))",
            snippet: """
                // server: {"aps": {"content-available": 1}}, apns-push-type: background, apns-priority: 5
                func application(_ app: UIApplication, didReceiveRemoteNotification info: [AnyHashable: Any],
                                 fetchCompletionHandler done: @escaping (UIBackgroundFetchResult) -> Void) {
                    refresh { done($0 ? .newData : .noData) }
                }
                """,
            note: "the server sends it when content changes; iOS rate-limits pushes and drops them after a force-quit")
    }
}

/// A platform setting with what it gave when replayed under its platform.
public struct PlatformOutcome: Sendable, Codable, Hashable {
    public var setting: PlatformSetting
    /// fresh@τ (the primary τ), fetches per app per day, battery energy per user per day, refusals.
    public var fresh: Double
    public var fetchesPerAppDay: Double
    public var joulesPerDay: Double
    public var skipped: Int
    /// The refusals by reason (``SkipReason`` raw values; nil in runs stored before they were kept).
    public var skips: [String: Int]?
    /// What the logs it was replayed on held for the platform's device rules (nil in runs stored
    /// before it was kept).
    public var inputs: PlatformInputs?
    /// What it was replayed on: the held-out part of the last fold and its users (nil in runs
    /// stored before this was recorded: the whole scored span).
    public var part: String?
    /// The users replayed (a sample of the held-out users on a large population).
    public var users: Int?

    public init(
        setting: PlatformSetting, fresh: Double, fetchesPerAppDay: Double, joulesPerDay: Double, skipped: Int,
        skips: [String: Int]? = nil, inputs: PlatformInputs? = nil, part: String? = nil, users: Int? = nil
    ) {
        self.skips = skips
        self.inputs = inputs
        self.part = part
        self.users = users
        self.setting = setting
        self.fresh = fresh
        self.fetchesPerAppDay = fetchesPerAppDay
        self.joulesPerDay = joulesPerDay
        self.skipped = skipped
    }
}
