import FetchLabCore
import FetchLabResults

extension PlatformSetting {
    /// The settings that carry a tuned policy (and the best fixed interval, the knob every app
    /// has) to iOS and Android: what the policy's family declares (``PlatformTranslatable``, in
    /// the family's own file); a family that declares none gives none.
    /// - Parameters:
    ///   - policy: the tuned setting, or the best fixed interval.
    ///   - ios: the iOS rules the settings are replayed under (the system's scheduler and
    ///   wake budget a requested interval goes through).
    public static func translate(_ policy: any FetchPolicy, ios: PlatformModel = PlatformModel(kind: .ios))
        -> [PlatformSetting]
    {
        (policy as? any PlatformTranslatable)?.platformSettings(ios: ios) ?? []
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

extension IOSAdaptivePolicy: PlatformTranslatable {
    /// iOS's own scheduler, which an app reaches by resubmitting a refresh request after each launch.
    public func platformSettings(ios: PlatformModel) -> [PlatformSetting] {
        let interval = minimumInterval / .perSecond
        return [
            PlatformSetting(
                platform: .ios,
                setting: "BGAppRefreshTaskRequest resubmitted after each launch and each refresh, earliestBeginDate = now + \(FixedIntervalPolicy.durationName(minimumInterval))",
                model: name,
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
    public func platformSettings(ios: PlatformModel) -> [PlatformSetting] {
        let minutes = period / .perMinute
        let flexMinutes = flex / .perMinute
        return [
            PlatformSetting(
                platform: .android,
                setting: "PeriodicWorkRequest every \(minutes) min, flex \(flexMinutes) min, constraints \(constraints.name)"
                    + (aligned ? ", realigned to the habit" : ""),
                model: name,
                snippet: """
                    val request = PeriodicWorkRequestBuilder<RefreshWorker>(\(minutes), TimeUnit.MINUTES, \(flexMinutes), TimeUnit.MINUTES).build()
                    WorkManager.getInstance(context).enqueueUniquePeriodicWork("refresh", ExistingPeriodicWorkPolicy.UPDATE, request)
                    """)
        ]
    }
}

extension AndroidPrefetchPolicy: PlatformTranslatable {
    /// A prefetch job, which Android's PrefetchController runs near the estimated next launch.
    public func platformSettings(ios: PlatformModel) -> [PlatformSetting] {
        [
            PlatformSetting(
                platform: .android,
                setting: "JobInfo.Builder.setPrefetch(true), periodic every \(FixedIntervalPolicy.durationName(period))",
                model: name,
                snippet: """
                    val job = JobInfo.Builder(REFRESH_JOB, ComponentName(context, RefreshJobService::class.java))
                        .setPrefetch(true).setPeriodic(\(period / 1_000)L).build()
                    context.getSystemService(JobScheduler::class.java).schedule(job)
                    """,
                note: "the system runs it when the app's estimated next launch is near")
        ]
    }
}

extension PushPolicy: PlatformTranslatable {
    /// A silent push on iOS, a data message on Android, from the app's server on each content update.
    public func platformSettings(ios: PlatformModel) -> [PlatformSetting] {
        var push = PlatformSetting.silentPush(rate: Int(rate.rounded(.up)))
        push.model = name
        return [
            push,
            PlatformSetting(
                platform: .android,
                setting: "FCM data message on each content update, at most \(PolicyRegistry.Arguments.numberName(rate)) an hour",
                model: name,
                snippet: """
                    override fun onMessageReceived(message: RemoteMessage) {
                        WorkManager.getInstance(applicationContext).enqueue(OneTimeWorkRequestBuilder<RefreshWorker>().build())
                    }
                    """,
                note: "the server sends it when content changes"),
        ]
    }
}
