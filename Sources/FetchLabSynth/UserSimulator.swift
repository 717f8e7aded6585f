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
            time: .seconds(Int64(utc)), user: 0, app: Int32(app), kind: kind, utcOffset: Int32(offset))
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
            time: .seconds(Int64(utc)), battery: Double(battery), charging: charging, network: network,
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

    // The log starts at midnight, with the phone on its overnight charge.
    private var battery = 70.0
    private var charging = true
    private var lowPower = false
    private var lastState: (Bool, NetworkType, Bool)? = nil
    private var lastEventUTC = Int.min
    private var lastContextUTC = Int.min

    public init(truth: UserTruth, config: PopulationConfig, seed: UInt64, index: Int, startDay: Int) {
        self.truth = truth
        self.config = config
        self.startDay = startDay
        rng = SeededRandom(seed: seed, stream: "days", index: index)
        offDays = Set(truth.offDays)
        var index: [String: Int] = [:]
        for (i, habit) in truth.apps.enumerated() { index[habit.app] = i }
        appIndex = index
        followers = truth.apps.indices.map { a in
            truth.apps.indices.filter { truth.apps[$0].follows?.after == truth.apps[a].app }
        }
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

        // Launches, in local seconds after midnight.
        var launches: [(second: Int, app: Int)] = []
        if !offDays.contains(d) {
            for (a, habit) in truth.apps.enumerated() {
                switch habit.kind {
                case .routine:
                    for peak in habit.peaks {
                        guard let centre = peak.expectedMinute(day: d, weekend: weekend) else { continue }
                        var p = weekend ? peak.weekendProbability : peak.probability
                        if vacation || onTrip { p *= 0.4 }
                        guard rng.chance(p) else { continue }
                        let minute = centre + rng.normal(sd: peak.spreadMinutes)
                        if minute >= 0 && minute < 1440 { launches.append((Int(minute * 60), a)) }
                    }
                case .burst:
                    let bursts = rng.poisson((habit.burstsPerDay ?? 0) * (vacation ? 1.2 : 1))
                    for _ in 0..<bursts {
                        var minute =
                            rng.chance(0.5) && sleep > 1140
                            ? rng.uniform(1140, Double(sleep)) : rng.uniform(Double(wake), Double(sleep))
                        let n = 1 + rng.poisson(max(0, (habit.launchesPerBurst ?? 1) - 1))
                        for _ in 0..<n where minute < 1440 {
                            launches.append((Int(minute * 60), a))
                            minute += 1 + rng.exponential(mean: 4)
                        }
                    }
                case .irregular:
                    for _ in 0..<rng.poisson(habit.ratePerDay ?? 0) {
                        launches.append((Int(rng.uniform(Double(wake), Double(sleep)) * 60), a))
                    }
                }
            }
            // Habitual sequences: B shortly after A.
            var followUps: [(second: Int, app: Int)] = []
            for launch in launches {
                for b in followers[launch.app] {
                    let follow = truth.apps[b].follows!
                    if rng.chance(follow.probability) {
                        let delay = 20 + rng.exponential(mean: follow.delayMinutes * 60)
                        followUps.append((launch.second + Int(delay), b))
                    }
                }
            }
            launches += followUps.filter { $0.second < Int(Seconds.perDay) }
            if let (from, to) = flight {
                launches.removeAll { Double($0.second) >= from * 60 && Double($0.second) < to * 60 }
            }
            launches.sort { $0.second != $1.second ? $0.second < $1.second : $0.app < $1.app }
        }

        // Sessions: each launch until a close (or force-quit) or the next launch.
        var screen = [Double](repeating: 0, count: 288)
        var dayEvents: [(second: Int, app: Int, kind: UsageEventKind)] = []
        for (i, launch) in launches.enumerated() {
            let mean = truth.apps[launch.app].sessionMinutes * 60
            var end = launch.second + 10 + Int(rng.exponential(mean: mean))
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
