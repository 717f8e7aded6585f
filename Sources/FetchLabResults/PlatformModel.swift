import FetchLabCore

/// Which operating system's rules grant or refuse the fetches a policy asks for.
public enum PlatformKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// Every fetch asked for happens: the pure policy, as DOMAIN.md's protocol measures it.
    case none
    /// iOS-like Background App Refresh.
    case ios
    /// Android-like JobScheduler / WorkManager.
    case android
}

/// The platform's rules. Every number is an option of `fetchlab compare`.
///
/// - iOS: no fetch after a force-quit until the next launch, none while Background App Refresh
///   is off or in Low Power Mode or on a low battery (below 20 %, not charging), none without a
///   network; a fetch that would run past the 30-second budget is `expired` (it fails, its
///   energy is spent); background fetches closer than the minimum interval to the last one are
///   refused; silent pushes are limited to a rate per app (Apple's guidance: two or three an hour).
///   The system decides when an app runs: a requested interval (`fixed(T)`,
///   `setMinimumBackgroundFetchInterval(T)`) is a floor, replayed as the system's scheduler runs it
///   (`PlatformModel.systemScheduler(minimumInterval:)`, in FetchLabSimulation), and every background fetch counts against a daily
///   wake budget per app that follows how much the user used the app (``wakeBudget(launches:)``).
/// - Android: force-stop and restriction as above, Battery Saver, no network, the 15-minute
///   minimum period, and App Standby bucket quotas: an app's bucket follows how recently it was
///   used (active: within the last hour; working set: within a day; frequent: within a week;
///   rare: older), and jobs of the working-set, frequent and rare buckets are deferred up to 2,
///   8 and 24 hours (Android 9's published limits): a job sooner than that after the app's last
///   job is refused with `quota`.
public struct PlatformModel: Sendable, Hashable, Codable {
    public var kind: PlatformKind = .none
    /// iOS: the budget of one background fetch or push.
    public var fetchBudget: Microseconds = .seconds(30)
    /// iOS: background fetches no closer than this (refusal `minimum_interval`).
    public var iosMinimumInterval: Microseconds = .minutes(15)
    /// iOS: silent pushes per hour per app (refusal `rate_limit`).
    public var pushesPerHour = 3
    /// iOS: background fetches per app per local day, 0 for no limit (refusal `budget`).
    public var dailyFetchBudget = 0
    /// iOS: the daily wake budget of an app (refusal `system_budget`): this many background
    /// fetches per launch a day over the last ``iosWakeBudgetWindow`` before the local day, rounded,
    /// kept within ``iosWakeBudgetMin`` … ``iosWakeBudgetMax``; none at all for an app not launched
    /// in that window. Apple publishes no numbers, only that the system weighs how the user uses
    /// the app and allots limited background time through the day (see Docs/platform-and-cost.md).
    public var iosWakeBudgetPerLaunch = 1.0
    public var iosWakeBudgetMin = 1
    /// 0: no wake budget.
    public var iosWakeBudgetMax = 12
    public var iosWakeBudgetWindow: Microseconds = .days(7)
    /// iOS: how long before an expected launch the system's scheduler runs a fetch it schedules
    /// for a requested interval (Apple's example: an app used at noon is refreshed at about 11:50).
    public var iosSystemLead: Microseconds = .minutes(10)
    /// Android: the minimum period of periodic work (refusal `minimum_interval`).
    public var androidMinimumPeriod: Microseconds = .minutes(15)
    /// Android: the deferral of each standby bucket after the app's last job (refusal `quota`).
    public var workingSetDeferral: Microseconds = .hours(2)
    public var frequentDeferral: Microseconds = .hours(8)
    public var rareDeferral: Microseconds = .hours(24)
    /// Low battery threshold (percent, not charging).
    public var lowBatteryPercent = 20.0

    public init(kind: PlatformKind = .none) { self.kind = kind }

    /// iOS's floor of the minimum interval between an app's background fetches (about 15 minutes):
    /// the system's scheduler runs none closer, whatever the app requests.
    public static let iosPlatformMinimum: Microseconds = .minutes(15)

    enum CodingKeys: String, CodingKey {
        case kind, fetchBudget = "fetch_budget_s", iosMinimumInterval = "ios_minimum_interval_min"
        case pushesPerHour = "pushes_per_hour", dailyFetchBudget = "daily_fetch_budget"
        case iosWakeBudgetPerLaunch = "ios_wake_budget_per_launch", iosWakeBudgetMin = "ios_wake_budget_min"
        case iosWakeBudgetMax = "ios_wake_budget_max", iosWakeBudgetWindow = "ios_wake_budget_window_d"
        case iosSystemLead = "ios_system_lead_min", iosIntervalIsFloor = "ios_interval_is_floor"
        case androidMinimumPeriod = "android_minimum_period_min", workingSetDeferral = "working_set_deferral_h"
        case frequentDeferral = "frequent_deferral_h", rareDeferral = "rare_deferral_h"
        case lowBatteryPercent = "low_battery_pct"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(kind, forKey: .kind)
        try c.encode(fetchBudget.inSeconds, forKey: .fetchBudget)
        try c.encode(iosMinimumInterval.inMinutes, forKey: .iosMinimumInterval)
        try c.encode(pushesPerHour, forKey: .pushesPerHour)
        try c.encode(dailyFetchBudget, forKey: .dailyFetchBudget)
        try c.encode(iosWakeBudgetPerLaunch, forKey: .iosWakeBudgetPerLaunch)
        try c.encode(iosWakeBudgetMin, forKey: .iosWakeBudgetMin)
        try c.encode(iosWakeBudgetMax, forKey: .iosWakeBudgetMax)
        try c.encode(iosWakeBudgetWindow.inDays, forKey: .iosWakeBudgetWindow)
        try c.encode(iosSystemLead.inMinutes, forKey: .iosSystemLead)
        // Under iOS a requested interval is replayed through the system's scheduler (a floor).
        try c.encode(true, forKey: .iosIntervalIsFloor)
        try c.encode(androidMinimumPeriod.inMinutes, forKey: .androidMinimumPeriod)
        try c.encode(workingSetDeferral.inMinutes / 60, forKey: .workingSetDeferral)
        try c.encode(frequentDeferral.inMinutes / 60, forKey: .frequentDeferral)
        try c.encode(rareDeferral.inMinutes / 60, forKey: .rareDeferral)
        try c.encode(lowBatteryPercent, forKey: .lowBatteryPercent)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        // Spans read from a file: out of range is an error, never a trap.
        kind = try c.decode(PlatformKind.self, forKey: .kind)
        fetchBudget = try c.decodeSpan(.perSecond, forKey: .fetchBudget)
        iosMinimumInterval = try c.decodeSpan(.perMinute, forKey: .iosMinimumInterval)
        pushesPerHour = try c.decode(Int.self, forKey: .pushesPerHour)
        dailyFetchBudget = try c.decode(Int.self, forKey: .dailyFetchBudget)
        // Runs stored before the wake budget was modelled had none.
        iosWakeBudgetPerLaunch = try c.decodeIfPresent(Double.self, forKey: .iosWakeBudgetPerLaunch) ?? 1
        iosWakeBudgetMin = try c.decodeIfPresent(Int.self, forKey: .iosWakeBudgetMin) ?? 0
        iosWakeBudgetMax = try c.decodeIfPresent(Int.self, forKey: .iosWakeBudgetMax) ?? 0
        iosWakeBudgetWindow = try c.decodeSpan(.perDay, forKey: .iosWakeBudgetWindow, absent: 7)
        iosSystemLead = try c.decodeSpan(.perMinute, forKey: .iosSystemLead, absent: 10)
        androidMinimumPeriod = try c.decodeSpan(.perMinute, forKey: .androidMinimumPeriod)
        workingSetDeferral = try c.decodeSpan(.perHour, forKey: .workingSetDeferral)
        frequentDeferral = try c.decodeSpan(.perHour, forKey: .frequentDeferral)
        rareDeferral = try c.decodeSpan(.perHour, forKey: .rareDeferral)
        lowBatteryPercent = try c.decode(Double.self, forKey: .lowBatteryPercent)
    }
}

extension PlatformModel {
    /// The daily wake budget of an app launched `launches` times in the ``iosWakeBudgetWindow``
    /// before the day: nil when there is none (``iosWakeBudgetMax`` 0), 0 for an app not launched.
    public func wakeBudget(launches: Int) -> Int? {
        guard iosWakeBudgetMax > 0 else { return nil }
        guard launches > 0 else { return 0 }
        let perDay = Double(launches) / max(iosWakeBudgetWindow.inDays, 1e-9)
        let budget = Int((perDay * iosWakeBudgetPerLaunch).rounded())
        return min(iosWakeBudgetMax, max(iosWakeBudgetMin, budget))
    }
}
