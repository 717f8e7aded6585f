import FetchLabCore
import Foundation

/// The simulator's working form of a usage event (whole UTC seconds, the offset of the user's
/// clock, the app index); the generator hands out Core's ``UsageEvent``.
struct SimulatedEvent: Sendable, Equatable {
    var utc: Int
    var offset: Int
    var app: Int
    var kind: UsageEventKind

    var usageEvent: UsageEvent {
        UsageEvent(
            time: Instant(secondsSince1970: Int64(utc)), user: 0, app: Int32(app), kind: kind, utcOffset: Int32(offset))
    }
}

/// The simulator's working form of a device-context sample.
struct SimulatedContext: Sendable, Equatable {
    var utc: Int
    var offset: Int
    var battery: Int
    var charging: Bool
    var network: NetworkType
    var lowPower: Bool

    var contextSample: ContextSample {
        ContextSample(
            time: Instant(secondsSince1970: Int64(utc)), battery: Double(battery), charging: charging, network: network,
            lowPower: lowPower, utcOffset: Int32(offset))
    }
}

/// Lives one user's days: launches from their habits, sessions, and the device's battery,
/// charging, network and Low Power Mode in 5-minute steps. Deterministic for a seed.
public struct UserSimulator: Sendable {
    public let truth: UserTruth
    let config: PopulationConfig
    /// Days since 1970 of the first local day.
    let startDay: Int
    private var rng: SeededRandom
    private let offDays: Set<Int>
    private let appIndex: [String: Int]
    /// For each app, the apps that habitually follow it.
    private let followers: [[Int]]
    /// Per app, its habitual next apps as (index, probability), -1 for an app the user does not
    /// have; and each app's weight for opening an idle-time session. Drawn from on every move.
    private let nextApps: [[(Int, Double)]]
    private let entryWeights: [(Int, Double)]

    // The log starts at midnight, with the phone on its overnight charge.
    private var battery = 70.0
    private var charging = true
    private var lowPower = false
    private var lastState: (Bool, NetworkType, Bool)? = nil
    private var lastEventUTC = Int.min
    private var lastContextUTC = Int.min
    /// Signals draw from their own stream, so turning them on changes no launch.
    var signalRng: SeededRandom
    var lastSignalUTC = Int.min
    /// What the signals did so far (the truth file's `signals`).
    var signalTruth = SignalTruth()

    public init(truth: UserTruth, config: PopulationConfig, seed: UInt64, index: Int, startDay: Int) {
        self.truth = truth
        self.config = config
        self.startDay = startDay
        rng = SeededRandom(seed: seed, stream: "days", index: index)
        signalRng = SeededRandom(seed: seed, stream: "signals", index: index)
        offDays = Set(truth.offDays)
        var index: [String: Int] = [:]
        for (i, habit) in truth.apps.enumerated() { index[habit.app] = i }
        appIndex = index
        followers = truth.apps.indices.map { a in
            truth.apps.indices.filter { truth.apps[$0].follows?.after == truth.apps[a].app }
        }
        nextApps = truth.apps.map { habit in (habit.next ?? []).map { (index[$0.app] ?? -1, $0.probability) } }
        entryWeights = truth.apps.indices.map { ($0, truth.apps[$0].entryWeight ?? 1) }
    }

    /// The zone the user's clock follows on day `d`.
    public func timeZone(onDay d: Int) -> String {
        if let trip = truth.trip, trip.days.contains(d) { return trip.timeZone }
        return truth.timeZone
    }

    /// Simulates day `d` (0-based), appending its events and context samples in time order.
    mutating func simulateDay(_ d: Int, events: inout [SimulatedEvent], context: inout [SimulatedContext]) {
        guard let zone = TimeZoneCache.zone(timeZone(onDay: d)) else { return }
        let localDay = startDay + d
        let clock = DayClock(day: localDay, zone: zone)
        let weekend = LocalCalendar.isWeekend(localDay)
        let vacation = truth.vacation?.contains(d) ?? false
        let onTrip = truth.trip?.days.contains(d) ?? false
        let travelDay = truth.trip.map { $0.days.start == d || $0.days.end == d } ?? false
        let working = truth.works && !weekend && !vacation && !onTrip && !travelDay
        let relaxed = weekend || vacation || onTrip
        let wake = relaxed ? truth.weekendWakeMinute : truth.wakeMinute
        let sleep = truth.sleepMinute
        let flight = travelDay ? (600.0, 780.0) : nil  // 10:00–13:00 local, phone in flight mode

        // Launches, in local seconds after midnight, each with the end of its use.
        var launches: [PlannedLaunch] = []
        if !offDays.contains(d) {
            var starts = sessionStarts(
                day: d, weekend: weekend, vacation: vacation, onTrip: onTrip, wake: wake, sleep: sleep)
            launches = runSessions(&starts, wake: wake, sleep: sleep)
            if let (from, to) = flight {
                launches.removeAll { Double($0.second) >= from * 60 && Double($0.second) < to * 60 }
            }
        }

        // Sessions: each launch until a close (or force-quit) or the next launch.
        var screen = [Double](repeating: 0, count: 288)
        var dayEvents: [(second: Int, app: Int, kind: UsageEventKind)] = []
        for (i, launch) in launches.enumerated() {
            var end = launch.end
            if i + 1 < launches.count { end = min(end, launches[i + 1].second - 1) }
            end = min(end, Int(Seconds.perDay) - 1)
            if end <= launch.second { continue }  // two launches in one second: the later one stands
            dayEvents.append((launch.second, launch.app, .launch))
            dayEvents.append((end, launch.app, rng.chance(config.forceQuitProbability) ? .forceQuit : .close))
            var s = launch.second
            while s < end {
                let bin = s / 300
                let next = min(end, (bin + 1) * 300)
                screen[bin] += Double(next - s) / 60
                s = next
            }
        }
        if let off = truth.refreshOff, let a = appIndex[off.app] {
            let second = Int(rng.uniform(Double(wake), Double(sleep)) * 60)
            if off.days.start == d { dayEvents.append((second, a, .refreshOff)) }
            if off.days.end == d { dayEvents.append((second, a, .refreshOn)) }
            dayEvents.sort { $0.second < $1.second }
        }
        for e in dayEvents {
            let (utc, offset) = clock.utc(secondsAfterMidnight: e.second)
            // Keep time moving forward across DST changes and zone changes on trips.
            guard utc > lastEventUTC else { continue }
            lastEventUTC = utc
            events.append(SimulatedEvent(utc: utc, offset: offset, app: e.app, kind: e.kind))
        }

        if config.hasSignals && !offDays.contains(d) {
            simulateSignals(launches, clock: clock, wake: wake, sleep: sleep, events: &events)
        }

        simulateContext(
            day: d, clock: clock, screen: screen, working: working, relaxed: relaxed, wake: wake, sleep: sleep,
            flight: flight, onTrip: onTrip, context: &context)
    }

    private enum Place { case home, transit, work, out, flight }

    private mutating func simulateContext(
        day d: Int, clock: DayClock, screen: [Double], working: Bool, relaxed: Bool, wake: Int, sleep: Int,
        flight: (Double, Double)?, onTrip: Bool, context: inout [SimulatedContext]
    ) {
        let t = truth
        // Today's plan: outings when not working, a daytime charge at work, a stretch without network.
        var outings: [(Int, Int)] = []
        if !working {
            for _ in 0..<rng.int(0, 2) where sleep - wake > 300 {
                let start = rng.int(wake + 60, sleep - 200)
                outings.append((start, start + rng.int(60, 180)))
            }
        }
        var deskCharge: (Int, Int)? = nil
        if working, rng.chance(t.daytimeChargeProbability), t.leaveWorkMinute - t.arriveWorkMinute > 200 {
            let start = rng.int(t.arriveWorkMinute + 60, t.leaveWorkMinute - 120)
            deskCharge = (start, start + rng.int(30, 90))
        }
        var dead: (Int, Int)? = nil
        if rng.chance(config.noNetworkProbability) {
            let start = rng.int(wake, max(wake, sleep - 60))
            dead = (start, start + rng.int(10, 40))
        }
        let plugsInOvernight = rng.chance(0.95)
        let unplug = wake + rng.int(0, 25)

        for step in 0..<288 {
            let m = step * 5
            let asleep = m < wake || m >= sleep
            var place = Place.home
            if let (from, to) = flight, Double(m) >= from && Double(m) < to {
                place = .flight
            } else if asleep {
                place = .home
            } else if working {
                if m >= t.leaveHomeMinute && m < t.arriveWorkMinute || m >= t.leaveWorkMinute && m < t.arriveHomeMinute
                {
                    place = .transit
                } else if m >= t.arriveWorkMinute && m < t.leaveWorkMinute {
                    place = .work
                }
            } else if outings.contains(where: { m >= $0.0 && m < $0.1 }) {
                place = .out
            }
            var network: NetworkType
            switch place {
            case .home: network = .wifi
            case .work: network = t.cellularAtWork ? .cellular : .wifi
            case .transit, .out: network = onTrip ? .wifi : .cellular
            case .flight: network = .none
            }
            if let (from, to) = dead, m >= from && m < to, place != .home { network = .none }

            // Charging: overnight from bedtime to just after waking, at the desk sometimes,
            // and whenever the battery runs low at home.
            if m >= sleep - 10 && plugsInOvernight && place == .home { charging = true }
            if m == unplug - unplug % 5 { charging = false }
            if let (from, to) = deskCharge {
                if m == from - from % 5 { charging = true }
                if m == to - to % 5 { charging = false }
            }
            if !charging && battery < 15 && place == .home { charging = true }
            if place == .flight { charging = false }

            if charging {
                battery = min(100, battery + (battery < 80 ? 7.5 : 2))
            } else {
                var drain = 0.05 + screen[step] * t.screenDrainPerMinute * (network == .cellular ? 1.25 : 1)
                if lowPower { drain *= 0.75 }
                battery = max(1, battery - drain)
            }
            if let threshold = t.lowPowerThreshold {
                if !lowPower && !charging && battery < threshold { lowPower = true }
                if lowPower && charging && battery >= 80 { lowPower = false }
            }

            let state = (charging, network, lowPower)
            let changed = lastState.map { $0.0 != state.0 || $0.1 != state.1 || $0.2 != state.2 } ?? true
            if changed || m % config.contextIntervalMinutes == 0 {
                let (utc, offset) = clock.utc(secondsAfterMidnight: m * 60)
                guard utc > lastContextUTC else { continue }
                lastContextUTC = utc
                lastState = state
                context.append(
                    SimulatedContext(
                        utc: utc, offset: offset, battery: Int(battery.rounded()), charging: charging,
                        network: network, lowPower: lowPower))
            }
        }
    }
}

/// A launch the day's sessions planned: its local second, the app, and when its use ends (a
/// later launch may cut it short).
struct PlannedLaunch: Equatable {
    var second: Int
    var app: Int
    var end: Int
}

/// What opens a session: a routine (at its time, interrupting whatever the user is doing), a
/// prompt, random use, idle time or a follow-up (these wait until the user is free).
struct SessionStart: Equatable {
    var second: Int
    var app: Int
    var routine: Bool
}

extension UserSimulator {
    /// The sessions a day opens with, in time order.
    fileprivate mutating func sessionStarts(
        day d: Int, weekend: Bool, vacation: Bool, onTrip: Bool, wake: Int, sleep: Int
    ) -> [SessionStart] {
        var starts: [SessionStart] = []
        for (a, habit) in truth.apps.enumerated() {
            switch habit.kind {
            case .routine:
                for peak in habit.peaks {
                    guard let centre = peak.expectedMinute(day: d, weekend: weekend) else { continue }
                    var p = weekend ? peak.weekendProbability : peak.probability
                    if vacation || onTrip { p *= 0.4 }
                    guard rng.chance(p) else { continue }
                    let minute = centre + rng.normal(sd: peak.spreadMinutes)
                    if minute >= 0 && minute < 1440 {
                        starts.append(SessionStart(second: Int(minute * 60), app: a, routine: true))
                    }
                }
            case .burst:
                for _ in 0..<rng.poisson((habit.burstsPerDay ?? 0) * (vacation ? 1.2 : 1)) {
                    let minute =
                        truth.sessions != nil && rng.chance(0.5)
                        ? rhythmMinute(weekend: weekend, wake: wake, sleep: sleep)
                        : rng.uniform(Double(wake), Double(sleep))
                    starts.append(SessionStart(second: Int(minute * 60), app: a, routine: false))
                }
            case .irregular:
                for _ in 0..<rng.poisson(habit.ratePerDay ?? 0) {
                    starts.append(
                        SessionStart(second: Int(rng.uniform(Double(wake), Double(sleep)) * 60), app: a, routine: false)
                    )
                }
            }
        }
        if let habits = truth.sessions {
            let relaxed = weekend || vacation || onTrip
            for _ in 0..<rng.poisson(habits.idleSessionsPerDay * (relaxed ? 1.15 : 1)) {
                let minute = rhythmMinute(weekend: weekend, wake: wake, sleep: sleep)
                starts.append(SessionStart(second: Int(minute * 60), app: entryApp(), routine: false))
            }
        }
        starts.sort { $0.second != $1.second ? $0.second < $1.second : $0.app < $1.app }
        return starts
    }

    /// A waking minute drawn from the user's rhythm (a quarter of the time anywhere while awake);
    /// on relaxed days the morning peak moves with the later wake.
    private mutating func rhythmMinute(weekend: Bool, wake: Int, sleep: Int) -> Double {
        guard let rhythm = truth.sessions?.rhythm, !rhythm.isEmpty, sleep - wake > 60, !rng.chance(0.25) else {
            return rng.uniform(Double(wake), Double(sleep))
        }
        let i = rng.weighted(rhythm.indices.map { ($0, rhythm[$0].weight) })
        var centre = rhythm[i].minute
        if i == 0 { centre += Double(wake - truth.wakeMinute) }
        let minute = centre + rng.normal(sd: rhythm[i].spreadMinutes)
        return min(Double(sleep) - 1, max(Double(wake), minute))
    }

    /// Seconds in the foreground: log-normal with the app's mean and a long tail (most uses are
    /// a glance, a few are long), as in real logs. Without session habits: exponential.
    private mutating func dwell(meanMinutes: Double) -> Double {
        guard truth.sessions != nil else { return 5 + rng.exponential(mean: meanMinutes * 60) }
        let sigma = 1.5
        return meanMinutes * 60 * Foundation.exp(rng.normal(sd: sigma) - sigma * sigma / 2)
    }

    /// The app an idle-time session opens with.
    private mutating func entryApp() -> Int {
        rng.weighted(entryWeights)
    }

    /// Lives the day's sessions in time order: each moves from app to app until the user puts
    /// the phone down, and may be followed by another soon after. A routine interrupts what the
    /// user is doing; any other start waits until they are free.
    fileprivate mutating func runSessions(_ starts: inout [SessionStart], wake: Int, sleep: Int) -> [PlannedLaunch] {
        let day = Int(Seconds.perDay)
        var out: [PlannedLaunch] = []
        var busyUntil = Int.min
        var k = 0
        while k < starts.count {
            var start = starts[k]
            k += 1
            if start.second < busyUntil {
                if start.routine {
                    while let last = out.last, last.second >= start.second { out.removeLast() }
                } else {
                    start.second = busyUntil + 1 + Int(rng.exponential(mean: truth.sessions?.switchSeconds ?? 20))
                }
            }
            guard start.second >= 0 && start.second < day else { continue }
            var t = start.second
            var app = start.app
            var used: [Int] = []
            var end = t
            while true {
                end = t + 5 + Int(dwell(meanMinutes: truth.apps[app].sessionMinutes))
                out.append(PlannedLaunch(second: t, app: app, end: end))
                used.append(app)
                guard let (next, at) = nextLaunch(after: app, at: t, end: end, used: used), at < day else { break }
                t = at
                app = next
            }
            busyUntil = end
            if let habits = truth.sessions, rng.chance(habits.followUpProbability) {
                let wait = habits.followUpMinutes * Foundation.exp(rng.normal(sd: habits.followUpSpread))
                let second = end + Int(wait * 60)
                if second < min(day, (sleep + 30) * 60) {
                    let app = rng.chance(0.7) ? used[rng.int(0, used.count - 1)] : entryApp()
                    let follow = SessionStart(second: second, app: app, routine: false)
                    var i = k
                    while i < starts.count && starts[i].second <= second { i += 1 }
                    starts.insert(follow, at: i)
                }
            }
        }
        return out
    }

    /// The session's next launch after `app` (launched at `t`, used until `end`), if it goes on:
    /// a habitual follower first, else back to an app already used, else a habitual next app.
    private mutating func nextLaunch(after app: Int, at t: Int, end: Int, used: [Int]) -> (app: Int, second: Int)? {
        for b in followers[app] {
            let follow = truth.apps[b].follows!
            if rng.chance(follow.probability) {
                return (b, t + 20 + Int(rng.exponential(mean: follow.delayMinutes * 60)))
            }
        }
        guard let habits = truth.sessions, rng.chance(habits.continueProbability) else { return nil }
        let at = end + 1 + Int(rng.exponential(mean: habits.switchSeconds))
        let earlier = used.filter { $0 != app }
        if !earlier.isEmpty, rng.chance(habits.returnProbability) {
            let previous = earlier[earlier.count - 1]
            return (rng.chance(0.6) ? previous : earlier[rng.int(0, earlier.count - 1)], at)
        }
        guard !nextApps[app].isEmpty else { return nil }
        let b = rng.weighted(nextApps[app])
        return b >= 0 ? (b, at) : nil
    }
}
