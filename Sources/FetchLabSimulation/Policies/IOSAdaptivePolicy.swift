import FetchLabCore
import FetchLabResults

/// A model of iOS's own adaptive Background App Refresh scheduling (Apple: "a user who opens an
/// app every day at noon gets a fetch at about 11:50"). It learns, from its app's launches only,
/// on which 15-minute slots of the local day the app is used: per slot, the share of recent days
/// with a launch in it (days decayed by 0.9 a day, about a week's half-life) and where in the
/// slot the day's first launch there fell. Each day it plans a fetch `lead` before the expected
/// launch of every slot used on at least a quarter of days (``launchShare``), the
/// ``maxPerDay`` most used first, never two closer than the minimum interval.
///
/// When the app's content updates are known it learns from the fetch results as iOS does: each
/// `noData` doubles the minimum interval (up to 2⁸ times it: 64 h from 15 min), a `newData`
/// restores it. Refused requests count as fetches for the spacing and the daily cap (iOS would not
/// retry them sooner).
public struct IOSAdaptivePolicy: FetchPolicy {
    /// How long before the expected launch the fetch runs.
    public var lead: Microseconds
    /// The least time between two fetches (`setMinimumBackgroundFetchInterval`; iOS's floor is
    /// about 15 minutes, `.minimum`).
    public var minimumInterval: Microseconds

    /// iOS's floor of the minimum interval (the platform model's, `PlatformModel.iosPlatformMinimum`).
    public static let platformMinimum: Microseconds = PlatformModel.iosPlatformMinimum
    /// At most this many fetches per local day.
    public static let maxPerDay = 12
    /// A slot is an expected launch when at least this share of recent days had a launch in it.
    public static let launchShare = 0.25
    /// Doublings of the minimum interval after repeated `noData`.
    public static let maxBackoff = 8

    public init(lead: Microseconds = .minutes(10), minimumInterval: Microseconds = .minutes(15)) {
        precondition(lead >= 0 && minimumInterval >= Self.platformMinimum)
        self.lead = lead
        self.minimumInterval = minimumInterval
    }

    public var name: String {
        "ios-adaptive(\(FixedIntervalPolicy.durationName(lead)),\(FixedIntervalPolicy.durationName(minimumInterval)))"
    }
    public var family: String { "ios-adaptive" }
    /// The system's model of the app's own launch times (and its own fetch outcomes).
    public var signals: Set<PolicySignal> { [.ownLaunches] }
    public var parameters: [String: Double] {
        [
            "lead_minutes": lead.inMinutes, "min_interval_minutes": minimumInterval.inMinutes,
            "max_per_day": Double(Self.maxPerDay), "launch_share": Self.launchShare,
        ]
    }
    public var summary: String {
        "iOS-like adaptive refresh: a fetch \(FixedIntervalPolicy.durationName(lead)) before the usual launch times "
            + "(at most \(Self.maxPerDay) a day, \(FixedIntervalPolicy.durationName(minimumInterval)) apart), "
            + "backing off after noData"
    }

    public func makeScheduler(_ pair: PairInfo) -> (any FetchScheduler)? { IOSAdaptiveScheduler(pair, policy: self) }
}

extension IOSAdaptivePolicy: PolicyFamily {
    public static let familyNames = ["ios-adaptive", "ios_adaptive", "iosadaptive"]
    public static let form = "ios-adaptive(lead,minimum interval) (e.g. ios-adaptive(10m), ios-adaptive(10m,1h))"
    public static func parse(_ arguments: [String], raw: String) throws(PolicyRegistry.ParseError) -> [any FetchPolicy]
    {
        typealias A = PolicyRegistry.Arguments
        try A.atMost(
            2, arguments, raw: raw,
            usage: "ios-adaptive takes at most a lead and a minimum interval, e.g. ios-adaptive(10m,15m)")
        let lead = try A.duration(arguments, at: 0, default: .minutes(10), raw: raw, what: "lead", in: 0 ... .hours(2))
        let interval = try A.duration(
            arguments, at: 1, default: platformMinimum, raw: raw, what: "minimum interval",
            in: platformMinimum ... .days(7))
        return [IOSAdaptivePolicy(lead: lead, minimumInterval: interval)]
    }
}

struct IOSAdaptiveScheduler: FetchScheduler {
    var observedEvents: ObservedEvents { .ownApp }
    let app: Int32
    let offset: Int32
    let lead: Microseconds
    let minimumInterval: Microseconds
    /// Per slot: days with a launch in it, and where in the slot (minutes) the day's first one fell.
    var usage: SlotHistogram
    /// Per slot: the last local day a launch in it was counted.
    var counted: [Int]
    var backoff = 0
    var lastFetch: Instant? = nil
    var fetchDay = Int.min
    var fetchesToday = 0
    private(set) var nextWake: Instant? = nil

    init(_ pair: PairInfo, policy: IOSAdaptivePolicy) {
        app = pair.app
        offset = pair.offset
        lead = policy.lead
        minimumInterval = policy.minimumInterval
        usage = SlotHistogram(offset: pair.offset)
        counted = [Int](repeating: .min, count: SlotHistogram.slotCount)
    }

    mutating func observe(_ event: UsageEvent, state: DeviceState) -> FetchRequest? {
        guard event.app == app, event.kind == .launch else { return nil }
        let t = event.time
        usage.advance(to: t)
        let slot = usage.slot(of: t)
        let day = LocalCalendar.day(t, offset: offset)
        if counted[slot] != day {
            counted[slot] = day
            usage.add(1, to: slot, value: (t - usage.slotStart(t)).inMinutes)
        }
        plan(after: t)
        return nil
    }

    mutating func wake(at time: Instant, state: DeviceState) -> FetchRequest? {
        usage.advance(to: time)
        let day = LocalCalendar.day(time, offset: offset)
        if day != fetchDay {
            fetchDay = day
            fetchesToday = 0
        }
        guard fetchesToday < IOSAdaptivePolicy.maxPerDay else {
            plan(after: time)
            return nil
        }
        fetchesToday += 1
        lastFetch = time
        plan(after: time)
        return .fetch
    }

    mutating func completed(_ result: FetchResult) {
        guard let newData = result.newData else { return }
        backoff = newData ? 0 : min(backoff + 1, IOSAdaptivePolicy.maxBackoff)
        plan(after: result.time)
    }

    /// The next planned fetch after `now`: over today and the next three days, the expected
    /// launches of each day's most used slots, `lead` earlier, not before the spacing allows.
    mutating func plan(after now: Instant) {
        let spacing = Microseconds(minimumInterval.value << Int64(backoff))
        let earliest = max(now + 1, lastFetch.map { $0 + spacing } ?? now + 1)
        let today = LocalCalendar.day(now, offset: offset)
        let slots = (0..<SlotHistogram.slotCount)
            .filter { usage.perDay($0) >= IOSAdaptivePolicy.launchShare }
            .sorted { usage.perDay($0) != usage.perDay($1) ? usage.perDay($0) > usage.perDay($1) : $0 < $1 }
            .prefix(IOSAdaptivePolicy.maxPerDay)
        var best: Instant? = nil
        for day in today...(today + 3) {
            for slot in slots {
                let t = usage.start(of: slot, day: day) + .minutes(fractional: usage.mean(slot)) - lead
                guard t >= earliest, best.map({ t < $0 }) ?? true else { continue }
                if LocalCalendar.day(t, offset: offset) == fetchDay, fetchesToday >= IOSAdaptivePolicy.maxPerDay {
                    continue
                }
                best = t
            }
            if best != nil, day > today { break }
        }
        nextWake = best
    }
}

extension IOSAdaptivePolicy: TunableFamily {
    /// `tune --family ios-adaptive`: the lead and the minimum interval (longer toward fewer
    /// fetches, not below the platform's minimum).
    public static let tunableParameters = [
        TunableParameter("lead", defaults: ["1m", "5m", "10m", "15m"]),
        TunableParameter("min", defaults: ["15m", "1h", "4h"]) { values, cheaper in
            Widening.duration(values, cheaper: cheaper, in: IOSAdaptivePolicy.platformMinimum ... .days(7))
        },
    ]
}
