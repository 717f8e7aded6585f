import FetchLabCore
import FetchLabResults

/// Android WorkManager periodic work, enqueued at the user's first event t0: period n is
/// [t0 + n·P, t0 + (n+1)·P) and its run is due in the flex window at its end,
/// [t0 + (n+1)·P − F, t0 + (n+1)·P). The run happens at the start of the window when the
/// constraints hold; otherwise the work waits, re-checking every 5 minutes (WorkManager's minimum
/// flex), past the end of the window if need be, until they hold (a postponed run is not
/// dropped, as JobScheduler keeps a job pending until its constraints are met). After a run in
/// period m the next one is due in the window of period m + 1 at the earliest, so there is at
/// most one run per period. A run the platform refuses counts as the period's run (no retry).
///
/// `aligned` (a fourth argument): the app re-enqueues its work with an initial delay that puts the
/// end of a flex window at its user's habitual time of use (`setInitialDelay` with
/// `ExistingPeriodicWorkPolicy.UPDATE`), learnt from the app's own launches: the 15-minute slot of
/// the local day with the most launches over the last 14 days, counted at each launch. The run
/// then comes `flex` before the habit. The work is realigned whenever that slot moves.
///
/// Constraints: `unmetered` (Wi-Fi), `charging`, `battery-not-low` (not below 20 % unless
/// charging, the replay's low-battery level), or `none`. No constraint on "connected": without a
/// network the platform refuses the run with `no_network`.
public struct WorkManagerPolicy: FetchPolicy {
    /// The constraints a run waits for.
    public struct Constraints: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        public static let unmetered = Constraints(rawValue: 1)
        public static let charging = Constraints(rawValue: 2)
        public static let batteryNotLow = Constraints(rawValue: 4)

        /// The spellings, in canonical order.
        static let names: [(String, Constraints)] = [
            ("unmetered", .unmetered), ("charging", .charging), ("battery-not-low", .batteryNotLow),
        ]

        /// `none`, or the names joined with `+` in canonical order.
        public var name: String {
            let parts = Self.names.filter { contains($0.1) }.map(\.0)
            return parts.isEmpty ? "none" : parts.joined(separator: "+")
        }

        /// Whether a device state meets them.
        public func hold(in state: DeviceState) -> Bool {
            (!contains(.unmetered) || state.network == .wifi) && (!contains(.charging) || state.charging)
                && (!contains(.batteryNotLow) || !state.isLow(below: WorkManagerPolicy.lowBatteryPercent))
        }
    }

    public var period: Microseconds
    public var flex: Microseconds
    public var constraints: Constraints
    /// Windows aligned to end at the app's habitual time of use (see above).
    public var aligned = false

    /// WorkManager's minimum period and minimum flex.
    public static let minimumPeriod: Microseconds = .minutes(15)
    public static let minimumFlex: Microseconds = .minutes(5)
    /// How often a due run whose constraints do not hold checks again.
    public static let recheck: Microseconds = .minutes(5)
    /// `battery-not-low`: not below this percent unless charging.
    public static let lowBatteryPercent = 20.0

    public init(
        period: Microseconds = .hours(1), flex: Microseconds = .minutes(15), constraints: Constraints = [],
        aligned: Bool = false
    ) {
        precondition(period >= Self.minimumPeriod && flex >= Self.minimumFlex && flex <= period)
        self.period = period
        self.flex = flex
        self.constraints = constraints
        self.aligned = aligned
    }

    public var name: String {
        "workmanager(\(FixedIntervalPolicy.durationName(period)),\(FixedIntervalPolicy.durationName(flex)),\(constraints.name)"
            + (aligned ? ",aligned)" : ")")
    }
    public var family: String { "workmanager" }
    /// Its constraints read the device's state; aligned work follows the app's own habit.
    public var signals: Set<PolicySignal> {
        var s: Set<PolicySignal> = constraints.isEmpty ? [] : [.context]
        if aligned { s.insert(.ownLaunches) }
        return s
    }
    public var parameters: [String: Double] {
        [
            "period_minutes": period.inMinutes, "flex_minutes": flex.inMinutes,
            "unmetered": constraints.contains(.unmetered) ? 1 : 0, "charging": constraints.contains(.charging) ? 1 : 0,
            "battery_not_low": constraints.contains(.batteryNotLow) ? 1 : 0, "aligned": aligned ? 1 : 0,
        ]
    }
    public var summary: String {
        "Android WorkManager periodic work: one run per \(FixedIntervalPolicy.durationName(period)), at the start of "
            + "the last \(FixedIntervalPolicy.durationName(flex)) of the period"
            + (constraints.isEmpty ? "" : " once \(constraints.name) holds")
            + (aligned ? ", windows aligned to end at the app's habitual time of use" : "")
    }

    public func makeScheduler(_ pair: PairInfo) -> (any FetchScheduler)? {
        WorkManagerScheduler(policy: self, firstEvent: pair.firstEvent, app: pair.app, offset: pair.offset)
    }
}

extension WorkManagerPolicy: PolicyFamily {
    public static let familyNames = ["workmanager", "work-manager", "work_manager"]
    public static let form =
        "workmanager(period,flex,constraints[,aligned]) (e.g. workmanager(1h,15m,unmetered+charging), workmanager(24h,15m,none,aligned))"
    public static func parse(_ arguments: [String], raw: String) throws(PolicyRegistry.ParseError) -> [any FetchPolicy]
    {
        typealias A = PolicyRegistry.Arguments
        try A.atMost(
            4, arguments, raw: raw,
            usage:
                "workmanager takes at most period, flex, constraints and aligned, e.g. workmanager(24h,15m,none,aligned)"
        )
        let period = try A.duration(
            arguments, at: 0, default: .hours(1), raw: raw, what: "period", in: minimumPeriod ... .days(365))
        let flex = try A.duration(
            arguments, at: 1, default: min(.minutes(15), period), raw: raw, what: "flex", in: minimumFlex...period)
        var constraints: Constraints = []
        if arguments.count > 2, arguments[2] != "none" {
            for part in arguments[2].split(separator: "+", omittingEmptySubsequences: false) {
                guard let c = Constraints.names.first(where: { $0.0 == part || $0.0.replacingDash() == part }) else {
                    throw PolicyRegistry.ParseError(
                        message:
                            "policy '\(raw)': constraint '\(part)' is not none, unmetered, charging or battery-not-low")
                }
                constraints.insert(c.1)
            }
        }
        var aligned = false
        if arguments.count > 3 {
            guard arguments[3] == "aligned" else {
                throw PolicyRegistry.ParseError(
                    message: "policy '\(raw)': the fourth argument '\(arguments[3])' can only be aligned")
            }
            aligned = true
        }
        return [WorkManagerPolicy(period: period, flex: flex, constraints: constraints, aligned: aligned)]
    }
}

extension String {
    /// `battery-not-low` → `battery_not_low` (the other accepted spelling).
    fileprivate func replacingDash() -> String { String(map { $0 == "-" ? "_" : $0 }) }
}

struct WorkManagerScheduler: FetchScheduler {
    var observedEvents: ObservedEvents { .ownApp }
    let policy: WorkManagerPolicy
    /// The start of period 0 (the enqueue time, moved by a realignment).
    var anchor: Instant
    let app: Int32
    let offset: Int32
    private(set) var nextWake: Instant?
    /// Aligned: launches per 15-minute slot of the local day over the last 14 days (by local day
    /// of the launch), and the slot the windows are aligned to.
    var recent: [(day: Int, slot: Int)] = []
    var counts = [Int](repeating: 0, count: 96)
    var habit: Int? = nil

    init(policy: WorkManagerPolicy, firstEvent: Instant, app: Int32 = 0, offset: Int32 = 0) {
        self.policy = policy
        anchor = firstEvent
        self.app = app
        self.offset = offset
        nextWake = firstEvent + policy.period - policy.flex
    }

    mutating func observe(_ event: UsageEvent, state: DeviceState) -> FetchRequest? {
        guard policy.aligned, event.kind == .launch, event.app == app else { return nil }
        let local = LocalCalendar.localSeconds(event.time, offset: offset)
        let day = LocalCalendar.day(localSeconds: local)
        let slot = Int((local - Int64(day) * Seconds.perDay) / (15 * 60))
        recent.append((day, slot))
        counts[slot] += 1
        while let first = recent.first, first.day <= day - 14 {
            counts[first.slot] -= 1
            recent.removeFirst()
        }
        // The busiest slot (the earliest of equals); realign when it moves.
        var best = 0
        for s in counts.indices where counts[s] > counts[best] { best = s }
        guard best != habit else { return nil }
        habit = best
        // The next end of a window at the habit's slot start: windows end at anchor + k·period.
        let habitLocal = Int64(day) * Seconds.perDay + Int64(best) * 15 * 60
        var end = Instant(secondsSince1970: habitLocal - Int64(offset))
        while end - policy.flex <= event.time { end += .days(1) }
        anchor = end - policy.period
        nextWake = end - policy.flex
        return nil
    }

    mutating func wake(at time: Instant, state: DeviceState) -> FetchRequest? {
        guard policy.constraints.hold(in: state) else {
            nextWake = time + WorkManagerPolicy.recheck
            return nil
        }
        // The window of the period after the one holding this run.
        let m = (time - anchor) / policy.period
        nextWake = anchor + (m + 2) * policy.period - policy.flex
        return .fetch
    }
}

extension WorkManagerPolicy: TunableFamily {
    /// `tune --family workmanager`: the period (longer toward fewer fetches, not below Android's
    /// minimum), the flex window and the constraints.
    public static let tunableParameters = [
        TunableParameter("period", defaults: ["15m", "30m", "1h", "2h"]) { values, cheaper in
            Widening.duration(values, cheaper: cheaper, in: WorkManagerPolicy.minimumPeriod ... .days(365))
        },
        TunableParameter("flex", defaults: ["5m", "15m"]),
        TunableParameter("constraints", defaults: ["none"]),
    ]
}
