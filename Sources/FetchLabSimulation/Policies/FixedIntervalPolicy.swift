import FetchLabCore
import FetchLabResults

/// Fetches every `interval` from the user's first event: t0 + n·T, up to E. Under a platform
/// whose own scheduler decides (iOS) each of these times is a request that the scheduler may or
/// may not act on (``requestedMinimumInterval(for:)``).
public struct FixedIntervalPolicy: FetchPolicy {
    public var interval: Microseconds

    /// The shortest interval a name may ask for: 5 minutes, well past a fetch and the radio's tail,
    /// so that without a platform the replay is the closed form (time and memory in proportion to
    /// the launches, whatever the interval); both platforms allow no less than 15 minutes anyway.
    /// (`fixed(1s)` took 4.4 GB for one user of 90 days.) The baseline's grid starts here too.
    public static let shortest: Microseconds = .minutes(5)

    public init(interval: Microseconds) {
        precondition(interval > 0)
        self.interval = interval
    }

    public var name: String { "fixed(\(Self.durationName(interval)))" }
    public var family: String { "fixed" }
    public var role: PolicyRole { .baseline }
    /// A clock from the first event: reads nothing.
    public var signals: Set<PolicySignal> { [] }
    public var parameters: [String: Double] { ["interval_minutes": interval.inMinutes] }
    public var summary: String { "a fetch every \(Self.durationName(interval)) from the user's first event" }

    /// `setMinimumBackgroundFetchInterval(T)`: a floor, not a timer, where the platform decides.
    public func requestedMinimumInterval(for pair: PairInfo) -> Microseconds? { interval }

    public func fetchTimes(for pair: PairContext) -> [Instant] {
        let w = pair.window
        var out: [Instant] = []
        out.reserveCapacity(Int((w.end - w.firstEvent) / interval) + 1)
        var t = w.firstEvent
        while t <= w.end {
            out.append(t)
            t += interval
        }
        return out
    }

    /// `15m`, `1h`, `24h`, `90s`: the largest whole unit up to hours.
    static func durationName(_ us: Microseconds) -> String {
        if us % .perHour == 0 { return "\(us / .perHour)h" }
        if us % .perMinute == 0 { return "\(us / .perMinute)m" }
        if us % .perSecond == 0 { return "\(us / .perSecond)s" }
        return Quantity.format(duration: us)
    }
}

extension FixedIntervalPolicy: PolicyFamily {
    public static let familyNames = ["fixed"]
    public static let form = "fixed(T) (e.g. fixed(15m), fixed(1h,4h))"
    public static func parse(_ arguments: [String], raw: String) throws(PolicyRegistry.ParseError) -> [any FetchPolicy]
    {
        guard !arguments.isEmpty else {
            throw PolicyRegistry.ParseError(message: "policy '\(raw)': fixed needs an interval, e.g. fixed(15m)")
        }
        return try arguments.map { (a: String) throws(PolicyRegistry.ParseError) -> any FetchPolicy in
            FixedIntervalPolicy(
                interval: try PolicyRegistry.Arguments.duration(
                    a, raw: raw, what: "interval", in: FixedIntervalPolicy.shortest ... .days(365)))
        }
    }
}

extension FixedIntervalPolicy: TunableFamily {
    /// `tune --family fixed`: the interval; wider toward fewer fetches (×2) or more (÷2).
    public static let tunableParameters = [
        TunableParameter("interval", defaults: ["15m", "30m", "1h", "2h", "4h", "8h", "24h"]) { values, cheaper in
            Widening.duration(values, cheaper: cheaper, in: .minutes(1) ... .days(365))
        }
    ]
}

extension FixedIntervalPolicy: PlatformTranslatable {
    /// iOS's minimum background fetch interval (replayed through the system's scheduler and wake
    /// budget) and Android's periodic work.
    public func platformSettings(ios: PlatformModel) -> [PlatformTranslation] {
        let seconds = self.interval / .perSecond
        let minutes = max(15, self.interval / .perMinute)
        let name = FixedIntervalPolicy.durationName(self.interval)
        let system = ios.systemScheduler(minimumInterval: self.interval)
        let budget = ios.iosWakeBudgetMax > 0 ? " within the daily wake budget" : ""
        return [
            PlatformTranslation(
                platform: .ios,
                setting:
                    "setMinimumBackgroundFetchInterval(\(seconds)) — no fetch sooner than \(name) after the last; iOS decides when",
                model: self,
                snippet: "UIApplication.shared.setMinimumBackgroundFetchInterval(\(seconds))  // \(name)",
                note: "the interval is a floor: iOS wakes the app when its scheduler expects a launch, "
                    + "within a daily budget that follows how much the app is used",
                replayedAs: system.name + budget),
            PlatformTranslation(
                platform: .android,
                setting: "PeriodicWorkRequest every \(minutes) min, flex 15 min",
                model: WorkManagerPolicy(period: .minutes(minutes), flex: .minutes(15)),
                snippet: """
                    val request = PeriodicWorkRequestBuilder<RefreshWorker>(\(minutes), TimeUnit.MINUTES, 15, TimeUnit.MINUTES).build()
                    WorkManager.getInstance(context).enqueueUniquePeriodicWork("refresh", ExistingPeriodicWorkPolicy.UPDATE, request)
                    """,
                note: self.interval < .minutes(15) ? "Android's minimum period is 15 min" : nil),
        ]
    }
}
