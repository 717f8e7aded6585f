import FetchLabCore
import FetchLabResults

/// A platform setting with the policy that models it under that platform's rules, as a value:
/// what the headline's platform lines and `tune`'s platform check replay. The setting's `model`
/// is the model's canonical name (what reports show and stored runs keep); nothing parses it back.
public struct PlatformTranslation: Sendable {
    /// What the app sets, as reports show it.
    public private(set) var setting: PlatformSetting
    /// The policy that models the setting under its platform.
    public let model: any FetchPolicy

    /// - Parameters:
    ///   - platform: `ios` or `android`.
    ///   - setting: what is set, in a line.
    ///   - model: the policy that models the setting; the setting's `model` is its name, and it is
    ///   silent push when the model is a ``PushPolicy``.
    ///   - snippet: a snippet to paste (Swift for iOS, Kotlin for Android).
    ///   - note: what the model leaves out, when it is an approximation.
    ///   - replayedAs: how the platform replays the model when its own scheduler decides.
    public init(
        platform: PlatformKind, setting: String, model: any FetchPolicy, snippet: String, note: String? = nil,
        replayedAs: String? = nil
    ) {
        self.model = model
        self.setting = PlatformSetting(
            platform: platform, setting: setting, model: model.name, snippet: snippet, note: note,
            replayedAs: replayedAs, isSilentPush: model is PushPolicy)
    }

    public var platform: PlatformKind { setting.platform }

    /// The settings that carry a tuned policy (and the best fixed interval, the knob every app
    /// has) to iOS and Android: what the policy's family declares (``PlatformTranslatable``, in
    /// the family's own file); a family that declares none gives none.
    /// - Parameters:
    ///   - policy: the tuned setting, or the best fixed interval.
    ///   - ios: the iOS rules the settings are replayed under (the system's scheduler and
    ///   wake budget a requested interval goes through).
    public static func translate(_ policy: any FetchPolicy, ios: PlatformModel = PlatformModel(kind: .ios))
        -> [PlatformTranslation]
    {
        (policy as? any PlatformTranslatable)?.platformSettings(ios: ios) ?? []
    }

    /// Silent pushes from the server when the app's content changes, at most `rate` an hour (Apple's
    /// guidance: two or three), modelled by `model` (default `push(rate)`) under iOS; it needs
    /// content-update times.
    public static func silentPush(rate: Int = 3, model: PushPolicy? = nil) -> PlatformTranslation {
        PlatformTranslation(
            platform: .ios,
            setting: "silent push (content-available: 1) on each content update, at most \(rate) an hour",
            model: model ?? PushPolicy(rate: Double(rate)),
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

extension IOSAdaptivePolicy: PlatformTranslatable {
    /// iOS's own scheduler, which an app reaches by resubmitting a refresh request after each launch.
    public func platformSettings(ios: PlatformModel) -> [PlatformTranslation] {
        let interval = minimumInterval / .perSecond
        return [
            PlatformTranslation(
                platform: .ios,
                setting:
                    "BGAppRefreshTaskRequest resubmitted after each launch and each refresh, earliestBeginDate = now + \(FixedIntervalPolicy.durationName(minimumInterval))",
                model: self,
                snippet: """
                    let request = BGAppRefreshTaskRequest(identifier: "com.example.refresh")
                    request.earliestBeginDate = Date(timeIntervalSinceNow: \(interval))
                    try BGTaskScheduler.shared.submit(request)
                    """,
                note: "iOS picks the moment from the app's launch times")
        ]
    }
}

extension WorkManagerPolicy: PlatformTranslatable {
    /// Android's periodic work, as the policy models it.
    public func platformSettings(ios: PlatformModel) -> [PlatformTranslation] {
        let minutes = period / .perMinute
        let flexMinutes = flex / .perMinute
        return [
            PlatformTranslation(
                platform: .android,
                setting:
                    "PeriodicWorkRequest every \(minutes) min, flex \(flexMinutes) min, constraints \(constraints.name)"
                    + (aligned ? ", realigned to the habit" : ""),
                model: self,
                snippet: """
                    val request = PeriodicWorkRequestBuilder<RefreshWorker>(\(minutes), TimeUnit.MINUTES, \(flexMinutes), TimeUnit.MINUTES).build()
                    WorkManager.getInstance(context).enqueueUniquePeriodicWork("refresh", ExistingPeriodicWorkPolicy.UPDATE, request)
                    """)
        ]
    }
}

extension AndroidPrefetchPolicy: PlatformTranslatable {
    /// A prefetch job, which Android's PrefetchController runs near the estimated next launch.
    public func platformSettings(ios: PlatformModel) -> [PlatformTranslation] {
        [
            PlatformTranslation(
                platform: .android,
                setting:
                    "JobInfo.Builder.setPrefetch(true), periodic every \(FixedIntervalPolicy.durationName(period))",
                model: self,
                snippet: """
                    val job = JobInfo.Builder(REFRESH_JOB, ComponentName(context, RefreshJobService::class.java))
                        .setPrefetch(true).setPeriodic(\(period.value / 1_000)L).build()
                    context.getSystemService(JobScheduler::class.java).schedule(job)
                    """,
                note: "the system runs it when the app's estimated next launch is near")
        ]
    }
}

extension PushPolicy: PlatformTranslatable {
    /// A silent push on iOS, a data message on Android, from the app's server on each content update.
    public func platformSettings(ios: PlatformModel) -> [PlatformTranslation] {
        [
            PlatformTranslation.silentPush(rate: Int(rate.rounded(.up)), model: self),
            PlatformTranslation(
                platform: .android,
                setting:
                    "FCM data message on each content update, at most \(PolicyRegistry.Arguments.numberName(rate)) an hour",
                model: self,
                snippet: """
                    override fun onMessageReceived(message: RemoteMessage) {
                        WorkManager.getInstance(applicationContext).enqueue(OneTimeWorkRequestBuilder<RefreshWorker>().build())
                    }
                    """,
                note: "the server sends it when content changes"),
        ]
    }
}
