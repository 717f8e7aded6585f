import FetchLabCore
import FetchLabResults

/// Refreshes when the app's own notification arrives, as a Notification Service Extension (iOS)
/// or a Firebase Cloud Messaging handler (Android) does: the app's server sent the notification,
/// so the app runs then and can fetch. At most one refresh per `spacing` (default none). Reads
/// only the app's own notifications: an app team can ship it. Under a platform model each
/// refresh is a push the platform may refuse (after a force-quit, its rate limit).
public struct NotificationRefreshPolicy: FetchPolicy {
    /// The least time between two refreshes (0: every notification).
    public var spacing: Microseconds

    public init(spacing: Microseconds = 0) {
        precondition(spacing >= 0)
        self.spacing = spacing
    }

    public var name: String {
        spacing == 0 ? "notification-refresh" : "notification-refresh(\(FixedIntervalPolicy.durationName(spacing)))"
    }
    public var family: String { "notification-refresh" }
    /// The app's own notifications only.
    public var signals: Set<PolicySignal> { [.notifications] }
    public var parameters: [String: Double] { ["spacing_minutes": spacing.inMinutes] }
    public var needsNotifications: Bool { true }
    public var summary: String {
        "refresh when the app's own notification arrives (Notification Service Extension, FCM handler)"
            + (spacing > 0 ? ", at most one every \(FixedIntervalPolicy.durationName(spacing))" : "")
    }

    public func makeScheduler(_ pair: PairInfo) -> (any FetchScheduler)? {
        NotificationRefreshScheduler(app: pair.app, spacing: spacing)
    }
}

extension NotificationRefreshPolicy: PolicyFamily {
    public static let familyNames = ["notification-refresh", "notification_refresh", "on-notification"]
    public static let form = "notification-refresh[(spacing)] (e.g. notification-refresh, notification-refresh(1h))"
    public static func parse(_ arguments: [String], raw: String) throws(PolicyRegistry.ParseError) -> [any FetchPolicy]
    {
        guard !arguments.isEmpty else { return [NotificationRefreshPolicy()] }
        return try arguments.map { (a: String) throws(PolicyRegistry.ParseError) -> any FetchPolicy in
            NotificationRefreshPolicy(
                spacing: try PolicyRegistry.Arguments.duration(a, raw: raw, what: "spacing", in: 0 ... .days(1)))
        }
    }
}

extension NotificationRefreshPolicy: PlatformTranslatable {
    /// The same on both platforms: the app's code runs when its notification arrives.
    public func platformSettings(ios: PlatformModel) -> [PlatformTranslation] {
        [
            PlatformTranslation(
                platform: .ios,
                setting:
                    "Notification Service Extension: refresh when the app's notification arrives (mutable-content: 1)",
                model: self,
                snippet: """
                    // server: {"aps": {"alert": {...}, "mutable-content": 1}}
                    class NotificationService: UNNotificationServiceExtension {
                        override func didReceive(_ request: UNNotificationRequest,
                                                 withContentHandler done: @escaping (UNNotificationContent) -> Void) {
                            refreshSharedCache { done(request.content) }  // an app group the app reads on launch
                        }
                    }
                    """,
                note:
                    "runs for alert notifications only, about 30 s; replayed as a push on each of the app's notifications"
            ),
            PlatformTranslation(
                platform: .android,
                setting: "FirebaseMessagingService.onMessageReceived: enqueue an expedited refresh",
                model: self,
                snippet: """
                    override fun onMessageReceived(message: RemoteMessage) {
                        val work = OneTimeWorkRequestBuilder<RefreshWorker>()
                            .setExpedited(OutOfQuotaPolicy.RUN_AS_NON_EXPEDITED_WORK_REQUEST).build()
                        WorkManager.getInstance(applicationContext).enqueue(work)
                    }
                    """,
                note: "high-priority messages run at once; replayed as a push on each of the app's notifications"),
        ]
    }
}

struct NotificationRefreshScheduler: FetchScheduler {
    var observedEvents: ObservedEvents { .ownApp }
    let app: Int32
    let spacing: Microseconds
    var last: Instant? = nil
    var nextWake: Instant? { nil }

    mutating func observe(_ event: UsageEvent, state: DeviceState) -> FetchRequest? {
        guard event.kind == .notification, event.app == app else { return nil }
        if let last, event.time - last < spacing { return nil }
        last = event.time
        return .push
    }

    mutating func wake(at time: Instant, state: DeviceState) -> FetchRequest? { nil }
}
