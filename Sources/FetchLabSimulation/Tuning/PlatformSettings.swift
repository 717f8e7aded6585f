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
