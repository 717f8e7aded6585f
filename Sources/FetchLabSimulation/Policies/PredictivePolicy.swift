import FetchLabCore
import FetchLabResults
import Foundation

/// Fetches when the chance that the app is about to be opened *and needs a fetch* is high
/// enough: `predictive(lead, threshold)` fetches at t when P(a "cold" launch of the app within
/// `lead` after t) ≥ threshold, where a launch is cold when no launch of the same app came within
/// τ before it (with launch refreshes off, every launch). Three causal estimates, each an
/// observed frequency in the user's own past (`UseSignals`):
/// - **sequence**: a launch of another app B triggers a fetch when cold launches of this app
///   followed B's launches within `lead` often enough (DOMAIN.md: most launches that need a
///   fetch come within minutes after another app's launch);
/// - **time since last use**: at τ + k·lead after the app's last launch, the hazard that the
///   next launch falls in the following `lead`;
/// - **time of day**: at the start of each `lead`-long slot of the local day, the share of past
///   days with a cold launch in that slot.
/// Each estimate is calibrated online (`OnlineCalibration`); the fetch's stated probability is
/// the largest calibrated one. A fetch is not asked for while the
/// last refresh (a fetch, or a launch when launches refresh) still covers the window.
public struct PredictivePolicy: FetchPolicy {
    public var lead: Microseconds
    public var threshold: Double
    /// Cost-aware: on cellular (not charging) a fetch needs `cellularThreshold`; none on a low
    /// battery (below 20 %, not charging).
    public var costAware: Bool
    public var cellularThreshold: Double
    /// Which estimates may trigger a fetch (all three by default).
    public var estimates: Set<PredictionSignal> = Set(PredictionSignal.allCases)

    public init(lead: Microseconds = .minutes(15), threshold: Double = 0.55) {
        self.lead = lead
        self.threshold = threshold
        costAware = false
        cellularThreshold = threshold
    }

    public static func costAware(
        lead: Microseconds = .minutes(15), threshold: Double = 0.55, cellularThreshold: Double = 0.8
    ) -> PredictivePolicy {
        var p = PredictivePolicy(lead: lead, threshold: threshold)
        p.costAware = true
        p.cellularThreshold = cellularThreshold
        return p
    }

    public var name: String {
        let l = FixedIntervalPolicy.durationName(lead)
        let only = estimates.count == PredictionSignal.allCases.count ? "" : "," + PredictionSignal.name(estimates)
        return costAware
            ? "predictive-cost-aware(\(l),\(Self.number(threshold)),\(Self.number(cellularThreshold))\(only))"
            : "predictive(\(l),\(Self.number(threshold))\(only))"
    }
    public var family: String { costAware ? "predictive-cost-aware" : "predictive" }
    /// The sequence estimate reads other apps' launches (an OS-scope signal); the gap and
    /// time-of-day estimates the app's own launches; the cost-aware one also the device's state.
    public var signals: Set<PolicySignal> {
        var s: Set<PolicySignal> = [.ownLaunches]
        if estimates.contains(.sequence) { s.insert(.otherLaunches) }
        if costAware { s.insert(.context) }
        return s
    }
    public var parameters: [String: Double] {
        var p = ["lead_minutes": lead.inMinutes, "threshold": threshold]
        if costAware { p["cellular_threshold"] = cellularThreshold }
        for signal in PredictionSignal.allCases { p["uses_\(signal.rawValue)"] = estimates.contains(signal) ? 1 : 0 }
        return p
    }
    public var summary: String {
        let base =
            "fetch when a launch needing a fetch is ≥ \(Self.number(threshold)) likely within "
            + "\(FixedIntervalPolicy.durationName(lead)) (sequences, time since last use, time of day)"
        return costAware
            ? base + "; on cellular only ≥ \(Self.number(cellularThreshold)), never on a low battery" : base
    }

    /// `0.55`, `1`: at most four decimals, no trailing zeros.
    static func number(_ x: Double) -> String {
        var s = String(format: "%.4f", x)
        while s.hasSuffix("0") { s.removeLast() }
        if s.hasSuffix(".") { s.removeLast() }
        return s
    }

    public func makeScheduler(_ pair: PairInfo) -> (any FetchScheduler)? {
        PredictiveScheduler(policy: self, pair: pair)
    }
}

extension PredictivePolicy: PolicyFamily {
    /// The cellular threshold of `predictive-cost-aware(lead,threshold)` when none is given: half
    /// again the threshold, to the hundredth, at most 1.
    public static func defaultCellularThreshold(for threshold: Double) -> Double {
        min(1, (max(threshold, threshold * 1.5) * 100).rounded() / 100)
    }

    public static let familyNames = ["predictive", "predictive-cost-aware", "predictive_cost_aware"]
    public static let form =
        "predictive(lead,threshold) (e.g. predictive(15m,0.3)), predictive-cost-aware(lead,threshold,cellular-threshold)"

    public static func parse(_ arguments: [String], raw: String) throws(PolicyRegistry.ParseError) -> [any FetchPolicy]
    {
        typealias A = PolicyRegistry.Arguments
        let aware = raw.lowercased().contains("cost")
        var numbers = arguments
        var chosen = Set(PredictionSignal.allCases)
        if let last = numbers.last, last.first?.isLetter == true {
            guard let set = PredictionSignal.parse(last) else {
                throw PolicyRegistry.ParseError(
                    message: "policy '\(raw)': signals '\(last)' must be sequence, gap and/or time-of-day joined by '+'"
                )
            }
            chosen = set
            numbers.removeLast()
        }
        let maxCount = aware ? 3 : 2
        guard numbers.count <= maxCount else {
            throw PolicyRegistry.ParseError(
                message: "policy '\(raw)': at most \(maxCount) numbers ("
                    + (aware ? "lead, threshold, cellular threshold" : "lead, threshold") + ") and the signals")
        }
        var p = PredictivePolicy()
        if numbers.count > 0 {
            p.lead = try A.duration(numbers[0], raw: raw, what: "lead", in: .minutes(1) ... .hours(24))
        }
        if numbers.count > 1 {
            p.threshold = try A.number(numbers[1], raw: raw, what: "threshold", in: 0.001...1)
        }
        p.cellularThreshold = p.threshold
        if aware {
            p.costAware = true
            p.cellularThreshold =
                numbers.count > 2
                ? try A.number(numbers[2], raw: raw, what: "cellular threshold", in: 0.001...1)
                : Self.defaultCellularThreshold(for: p.threshold)
        }
        p.estimates = chosen
        return [p]
    }
}

/// The estimates a predictive policy may fetch on.
public enum PredictionSignal: String, Sendable, Hashable, CaseIterable, Comparable {
    case sequence
    case gap
    case timeOfDay = "time_of_day"

    public static func < (a: Self, b: Self) -> Bool { allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)! }

    /// `sequence+gap`, in a fixed order.
    static func name(_ set: Set<Self>) -> String {
        set.sorted().map { $0 == .timeOfDay ? "time-of-day" : $0.rawValue }.joined(separator: "+")
    }

    /// Reads `sequence+gap`, `seq+tod`, `time-of-day` …; nil on anything else or nothing.
    static func parse(_ text: String) -> Set<Self>? {
        var out = Set<Self>()
        for part in text.split(separator: "+", omittingEmptySubsequences: false) {
            switch part {
            case "sequence", "seq", "sequences": out.insert(.sequence)
            case "gap", "since-last-use", "hazard": out.insert(.gap)
            case "time-of-day", "time_of_day", "tod", "clock": out.insert(.timeOfDay)
            default: return nil
            }
        }
        return out.isEmpty ? nil : out
    }
}

extension PredictivePolicy: TunableFamily {
    /// `tune --family predictive`: the lead and the threshold; the threshold widens toward fewer
    /// fetches (halfway to 1) or more (halved).
    public static let tunableParameters = [
        TunableParameter("lead", defaults: ["5m", "10m", "15m"]),
        TunableParameter("threshold", defaults: ["0.2", "0.3", "0.4", "0.55"]) { values, cheaper in
            let numbers = values.compactMap { Double($0) }
            guard numbers.count == values.count, let low = numbers.min(), let high = numbers.max() else { return nil }
            let next = cheaper ? ((high + (1 - high) / 2) * 100).rounded() / 100 : (low / 2 * 1_000).rounded() / 1_000
            guard cheaper ? next > high && next <= 0.99 : next < low && next >= 0.01 else { return nil }
            return PolicyRegistry.Arguments.numberName(next)
        },
    ]
}

extension PredictivePolicy: PlatformTranslatable {
    /// What an app can set for a predicted use: BGAppRefreshTaskRequest on iOS (modelled by
    /// ios-adaptive), a daily aligned periodic work and an hourly one on Wi-Fi on Android.
    public func platformSettings(ios: PlatformModel) -> [PlatformTranslation] {
        let lead = FixedIntervalPolicy.durationName(self.lead)
        let leadSeconds = self.lead / .perSecond
        let flexMinutes = max(Int64(5), self.lead / .perMinute)
        return [
            PlatformTranslation(
                platform: .ios,
                setting: "BGAppRefreshTaskRequest after each launch, earliestBeginDate = predicted use − \(lead)",
                model: IOSAdaptivePolicy(lead: self.lead),
                snippet: """
                    let request = BGAppRefreshTaskRequest(identifier: "com.example.refresh")
                    request.earliestBeginDate = predictedNextUse.addingTimeInterval(-\(leadSeconds))  // \(lead) before
                    try BGTaskScheduler.shared.submit(request)
                    """,
                note: "modelled by ios-adaptive (the system's own timing from launch times); FetchLab's "
                    + "sequence and gap triggers are not available to an app"),
            PlatformTranslation(
                platform: .android,
                setting:
                    "PeriodicWorkRequest every 24 h, flex \(flexMinutes) min, initial delay to \(flexMinutes) min before the user's habitual time of use, re-enqueued (UPDATE) when that time moves",
                model: WorkManagerPolicy(period: .hours(24), flex: .minutes(flexMinutes), aligned: true),
                snippet: """
                    // habit: the 15-minute slot of the day with the most launches of this app over the last 14 days
                    val delay = Duration.between(LocalDateTime.now(), nextOccurrence(habit)).toMinutes() - \(flexMinutes)
                    val request = PeriodicWorkRequestBuilder<RefreshWorker>(24, TimeUnit.HOURS, \(flexMinutes), TimeUnit.MINUTES)
                        .setInitialDelay(delay, TimeUnit.MINUTES).build()
                    WorkManager.getInstance(context).enqueueUniquePeriodicWork("refresh", ExistingPeriodicWorkPolicy.UPDATE, request)
                    """,
                note: "one run a day, its flex window ending at the habit; the app sees only its own launches"),
            PlatformTranslation(
                platform: .android, setting: "PeriodicWorkRequest every 1 h, flex 15 min, unmetered network",
                model: WorkManagerPolicy(period: .hours(1), flex: .minutes(15), constraints: .unmetered),
                snippet: """
                    val constraints = Constraints.Builder().setRequiredNetworkType(NetworkType.UNMETERED).build()
                    val request = PeriodicWorkRequestBuilder<RefreshWorker>(1, TimeUnit.HOURS, 15, TimeUnit.MINUTES)
                        .setConstraints(constraints).build()
                    """,
                note: "WorkManager cannot follow predicted uses: the closest periodic setting, on Wi-Fi only"),
        ]
    }
}
