import FetchLabCore
import Foundation

/// Fetches when the chance that the app is about to be opened *and needs a fetch* is high
/// enough: `predictive(lead, threshold)` fetches at t when P(a "cold" launch of the app within
/// `lead` after t) ≥ threshold, where a launch is cold when no launch of the same app came within
/// τ before it (with launch refreshes off, every launch). Three causal estimates, each an
/// observed frequency in the user's own past (``UseSignals``):
/// - **sequence**: a launch of another app B triggers a fetch when cold launches of this app
///   followed B's launches within `lead` often enough (DOMAIN.md: most launches that need a
///   fetch come within minutes after another app's launch);
/// - **time since last use**: at τ + k·lead after the app's last launch, the hazard that the
///   next launch falls in the following `lead`;
/// - **time of day**: at the start of each `lead`-long slot of the local day, the share of past
///   days with a cold launch in that slot.
/// The fetch's stated probability is the largest of the three. A fetch is not asked for while the
/// last refresh (a fetch, or a launch when launches refresh) still covers the window.
public struct PredictivePolicy: FetchPolicy {
    public var lead: Microseconds
    public var threshold: Double
    /// Cost-aware: on cellular (not charging) a fetch needs `cellularThreshold`; none on a low
    /// battery (below 20 %, not charging).
    public var costAware: Bool
    public var cellularThreshold: Double
    /// Which estimates may trigger a fetch (all three by default).
    public var signals: Set<PredictionSignal> = Set(PredictionSignal.allCases)

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
        let only = signals.count == PredictionSignal.allCases.count ? "" : "," + PredictionSignal.name(signals)
        return costAware
            ? "predictive-cost-aware(\(l),\(Self.number(threshold)),\(Self.number(cellularThreshold))\(only))"
            : "predictive(\(l),\(Self.number(threshold))\(only))"
    }
    public var family: String { costAware ? "predictive-cost-aware" : "predictive" }
    public var parameters: [String: Double] {
        var p = ["lead_minutes": lead.inMinutes, "threshold": threshold]
        if costAware { p["cellular_threshold"] = cellularThreshold }
        for signal in PredictionSignal.allCases { p["uses_\(signal.rawValue)"] = signals.contains(signal) ? 1 : 0 }
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

    public func makeScheduler(_ pair: PairInfo) -> (any FetchScheduler)? { PredictiveScheduler(policy: self, pair: pair) }
}

extension PredictivePolicy: PolicyFamily {
    public static let familyNames = ["predictive", "predictive-cost-aware", "predictive_cost_aware"]
    public static let form =
        "predictive(lead,threshold) (e.g. predictive(15m,0.3)), predictive-cost-aware(lead,threshold,cellular-threshold)"

    public static func parse(_ arguments: [String], raw: String) throws(PolicyRegistry.ParseError) -> [any FetchPolicy] {
        typealias A = PolicyRegistry.Arguments
        let aware = raw.lowercased().contains("cost")
        var numbers = arguments
        var chosen = Set(PredictionSignal.allCases)
        if let last = numbers.last, last.first?.isLetter == true {
            guard let set = PredictionSignal.parse(last) else {
                throw PolicyRegistry.ParseError(
                    message: "policy '\(raw)': signals '\(last)' must be sequence, gap and/or time-of-day joined by '+'")
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
                : min(1, (max(p.threshold, p.threshold * 1.5) * 100).rounded() / 100)
        }
        p.signals = chosen
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

/// The observed frequencies a predictive scheduler decides on, learned from what it was shown.
struct UseSignals {
    let app: Int32
    let tau: Microseconds
    let lead: Microseconds
    let launchRefreshes: Bool
    let offset: Int32

    // Sequence: per other app, its launches and those followed by a cold launch of this app within `lead`.
    var launchesOf: [Int32: Int] = [:]
    var followedBy: [Int32: Int] = [:]
    /// Recent launches of other apps (time, app), the last `lead`, not yet credited.
    var recent: [(time: Microseconds, app: Int32)] = []

    // Time since last use: counts of the gaps after τ in bins of `lead`; the last bin is "later".
    var gapBins: [Int]
    var lastLaunch: Microseconds? = nil

    // Time of day, weekdays and weekends apart: the (local day, 5-minute bin) of every cold launch.
    var coldBins: [(day: Int, bin: Int)] = []
    var firstDay: Int? = nil

    static let binMinutes = 5
    static let bins = 1_440 / binMinutes
    /// Days weigh half as much every this many days (habits drift).
    static let halfLifeDays = 14.0

    init(app: Int32, tau: Microseconds, lead: Microseconds, launchRefreshes: Bool, offset: Int32) {
        self.app = app
        self.tau = tau
        self.lead = lead
        self.launchRefreshes = launchRefreshes
        self.offset = offset
        gapBins = [Int](repeating: 0, count: max(2, Int(Microseconds.perDay / lead) + 1))
    }

    /// The first gap bin the replay can act on: after τ when launches refresh.
    var gapStart: Microseconds { launchRefreshes ? tau : 0 }

    mutating func learn(_ e: UsageEvent) {
        guard e.kind == .launch else { return }
        let t = e.time
        if firstDay == nil { firstDay = LocalCalendar.day(t, offset: offset) }
        recent.removeAll { t - $0.time > lead }
        if e.app == app {
            let cold = !launchRefreshes || lastLaunch.map { t - $0 > tau } ?? true
            if let last = lastLaunch, t - last > gapStart {
                gapBins[min(gapBins.count - 1, Int((t - last - gapStart) / lead))] += 1
            }
            lastLaunch = t
            if cold {
                // Credit the other apps launched just before; mark the slot's day.
                var credited = Set<Int32>()
                for r in recent where credited.insert(r.app).inserted { followedBy[r.app, default: 0] += 1 }
                recent.removeAll()
                let local = LocalCalendar.localSeconds(t, offset: offset)
                let day = LocalCalendar.day(localSeconds: local)
                let bin = Int((local - Int64(day) * Seconds.perDay) / Seconds.perMinute) / Self.binMinutes
                if coldBins.last.map({ $0.day != day || $0.bin != bin }) ?? true { coldBins.append((day, bin)) }
            }
        } else if isCold(at: t) {
            // Only launches of B while this app would need a fetch count: the others cannot be followed by a cold launch.
            launchesOf[e.app, default: 0] += 1
            recent.removeAll { $0.app == e.app }
            recent.append((t, e.app))
        }
    }

    /// Whether a launch of this app at `t` would be cold.
    func isCold(at t: Microseconds) -> Bool { !launchRefreshes || lastLaunch.map { t - $0 > tau } ?? true }

    /// P(a cold launch of this app within `lead` after a launch of `other`, this app not used within τ).
    func follow(_ other: Int32) -> Double {
        Double(followedBy[other] ?? 0) / Double((launchesOf[other] ?? 0) + 1)
    }

    /// P(the next launch falls in gap bin k | none before it).
    func hazard(_ k: Int) -> Double {
        guard k < gapBins.count - 1 else { return 0 }
        var atOrAfter = 0
        for j in k..<gapBins.count { atOrAfter += gapBins[j] }
        return Double(gapBins[k]) / Double(atOrAfter + 1)
    }

    /// Saturday or Sunday (local day 0, 1970-01-01, was a Thursday).
    static func isWeekend(_ day: Int) -> Bool { ((day % 7) + 7 + 3) % 7 >= 5 }

    /// The time-of-day fetches of local day `day`: (minute of the day, probability). The expected
    /// cold launches per 5-minute bin are the shares of past days of the same kind (weekday or
    /// weekend) with a cold launch in that bin, recent days weighing more; then, greedily, the
    /// `lead`-long window holding the most expected cold launches gets a fetch at its start while
    /// it holds at least `threshold` (its bins are then spent).
    func plan(day: Int, threshold: Double) -> [(minute: Int, p: Double)] {
        guard let first = firstDay, day > first else { return [] }
        let weekend = Self.isWeekend(day)
        func weight(_ d: Int) -> Double { pow(0.5, Double(day - d) / Self.halfLifeDays) }
        var days = 0.0
        for d in first..<day where Self.isWeekend(d) == weekend { days += weight(d) }
        guard days > 0 else { return [] }
        var q = [Double](repeating: 0, count: Self.bins)
        for c in coldBins where c.day < day && Self.isWeekend(c.day) == weekend { q[c.bin] += weight(c.day) / days }
        let w = max(1, Int((lead + Microseconds.perMinute * Int64(Self.binMinutes) - 1) / (Microseconds.perMinute * Int64(Self.binMinutes))))
        var out: [(minute: Int, p: Double)] = []
        while out.count < Self.bins {
            var best = 0.0
            var start = 0
            var sum = 0.0
            for b in 0..<Self.bins {
                sum += q[b]
                if b >= w { sum -= q[b - w] }
                if b >= w - 1, sum > best + 1e-12 {
                    best = sum
                    start = b - w + 1
                }
            }
            guard best >= threshold else { break }
            out.append((start * Self.binMinutes, min(1, best)))
            for b in start..<(start + w) { q[b] = 0 }
        }
        return out.sorted { $0.minute < $1.minute }
    }
}

/// Online calibration of each signal's stated probability, causal: every decision point (a
/// launch of another app, a gap bin, a planned time-of-day moment) is a trial of "a cold launch
/// within `lead`", resolved when that launch comes or the window passes, whether or not a fetch was
/// made. The calibrated probability of a raw p is the hit rate of its 5 %-wide bin, pulled
/// towards p × (the signal's hits per raw p over all its trials) by ``priorWeight`` pseudo-trials:
/// a bin with few trials borrows the signal's overall calibration.
struct OnlineCalibration {
    enum Signal: Int, CaseIterable { case sequence, gap, timeOfDay }
    static let binsPerSignal = 20
    static let priorWeight = 10.0
    /// Pseudo-trials of the per-signal scale (hits per stated p), which starts at 1.
    let scalePrior = 5.0
    let lead: Microseconds
    var hits: [[Double]] = Array(repeating: Array(repeating: 0, count: binsPerSignal), count: Signal.allCases.count)
    var trials: [[Double]] = Array(repeating: Array(repeating: 0, count: binsPerSignal), count: Signal.allCases.count)
    /// Per signal, over all its trials: the stated p summed, and the hits.
    var statedSum = [Double](repeating: 0, count: Signal.allCases.count)
    var hitSum = [Double](repeating: 0, count: Signal.allCases.count)
    var pending: [(time: Microseconds, signal: Signal, bin: Int, p: Double)] = []

    static func bin(_ p: Double) -> Int { min(binsPerSignal - 1, max(0, Int(p * Double(binsPerSignal)))) }

    /// The bin's hit rate, pulled towards p scaled by the signal's overall hits per stated p.
    func calibrated(_ p: Double, _ s: Signal) -> Double {
        let b = Self.bin(p)
        let scale = (hitSum[s.rawValue] + scalePrior) / (statedSum[s.rawValue] + scalePrior)
        let prior = min(1, p * scale)
        return (hits[s.rawValue][b] + Self.priorWeight * prior) / (trials[s.rawValue][b] + Self.priorWeight)
    }

    mutating func record(_ p: Double, _ s: Signal, at t: Microseconds) { pending.append((t, s, Self.bin(p), p)) }

    /// A cold launch at `t` resolves the trials whose window holds it as hits.
    mutating func coldLaunch(at t: Microseconds) {
        pending.removeAll { trial in
            guard trial.time < t, t <= trial.time + lead else { return false }
            hits[trial.signal.rawValue][trial.bin] += 1
            trials[trial.signal.rawValue][trial.bin] += 1
            hitSum[trial.signal.rawValue] += 1
            statedSum[trial.signal.rawValue] += trial.p
            return true
        }
    }

    /// Trials whose window ended before `t` are misses.
    mutating func expire(before t: Microseconds) {
        pending.removeAll { trial in
            guard trial.time + lead < t else { return false }
            trials[trial.signal.rawValue][trial.bin] += 1
            statedSum[trial.signal.rawValue] += trial.p
            return true
        }
    }
}

struct PredictiveScheduler: FetchScheduler {
    let policy: PredictivePolicy
    let tau: Microseconds
    var signals: UseSignals
    /// Last refresh of this app (a fetch, or a launch when launches refresh).
    var lastRefresh: Microseconds? = nil
    /// The next gap bin to consider after the last launch, and the next slot start.
    var nextGap: Microseconds? = nil
    var gapBin = 0
    /// Today's remaining time-of-day fetches (time, probability), and the next local midnight.
    var planned: [(time: Microseconds, p: Double)] = []
    var nextMidnight: Microseconds
    var calibration: OnlineCalibration
    /// The probability stated for the last fetch asked for (calibrated).
    var statedProbability: Double? = nil

    init(policy: PredictivePolicy, pair: PairInfo) {
        self.policy = policy
        tau = pair.evaluation.primaryTau
        signals = UseSignals(
            app: pair.app, tau: tau, lead: policy.lead, launchRefreshes: pair.evaluation.launchRefreshes,
            offset: pair.offset)
        nextMidnight = LocalCalendar.midnight(after: pair.firstEvent, offset: pair.offset)
        calibration = OnlineCalibration(lead: policy.lead)
    }

    /// A time-of-day fetch is dropped when the app was launched this shortly before: the habit
    /// came early and was served.
    static let habitServed: Microseconds = .minutes(60)

    /// Raw probabilities from this level up are decision points (calibration may lift them).
    var floor: Double { min(policy.threshold, policy.cellularThreshold) / 2 }

    /// A decision point of `signal` at `t`: recorded as a trial, answered calibrated.
    mutating func consider(_ raw: Double, _ signal: OnlineCalibration.Signal, at t: Microseconds) -> Double {
        guard raw >= floor else { return 0 }
        calibration.record(raw, signal, at: t)
        return calibration.calibrated(raw, signal)
    }

    mutating func decide(_ p: Double, at t: Microseconds, state: DeviceState) -> FetchRequest? {
        guard !covered(at: t), wants(p, state: state) else { return nil }
        statedProbability = p
        return .fetch
    }

    var nextWake: Microseconds? {
        var t = planned.first.map { min($0.time, nextMidnight) } ?? nextMidnight
        if let g = nextGap { t = min(t, g) }
        return t
    }

    /// Whether the last refresh still keeps launches up to `t + lead` fresh.
    func covered(at t: Microseconds) -> Bool {
        guard let r = lastRefresh else { return false }
        return r + tau >= t + policy.lead
    }

    func wants(_ p: Double, state: DeviceState) -> Bool {
        guard policy.costAware else { return p >= policy.threshold }
        if state.isLow(below: 20) { return false }
        let cheap = state.charging || state.network == .wifi
        return p >= (cheap ? policy.threshold : policy.cellularThreshold)
    }

    mutating func observe(_ event: UsageEvent, state: DeviceState) -> FetchRequest? {
        let t = event.time
        calibration.expire(before: t)
        guard event.kind == .launch else { return nil }
        if event.app == signals.app, signals.isCold(at: t) { calibration.coldLaunch(at: t) }
        let eligible = event.app != signals.app && signals.isCold(at: t)
        signals.learn(event)
        if event.app == signals.app {
            if signals.launchRefreshes { lastRefresh = t }
            gapBin = 0
            advanceGap(from: t)
            return nil
        }
        guard eligible, policy.signals.contains(.sequence) else { return nil }
        return decide(consider(signals.follow(event.app), .sequence, at: t), at: t, state: state)
    }

    /// The next gap bin at or after `gapBin` whose hazard passes the threshold (the bins are
    /// learned, so the lowest threshold of the policy decides whether to wake; `wants` decides).
    mutating func advanceGap(from launch: Microseconds) {
        while gapBin < signals.gapBins.count - 1 {
            if policy.signals.contains(.gap), signals.hazard(gapBin) >= floor {
                nextGap = launch + signals.gapStart + Microseconds(gapBin) * policy.lead
                return
            }
            gapBin += 1
        }
        nextGap = nil
    }

    mutating func wake(at t: Microseconds, state: DeviceState) -> FetchRequest? {
        calibration.expire(before: t)
        var p = 0.0
        if let g = nextGap, g <= t {
            p = max(p, consider(signals.hazard(gapBin), .gap, at: t))
            gapBin += 1
            if let last = signals.lastLaunch { advanceGap(from: last) }
        }
        if nextMidnight <= t {
            let day = LocalCalendar.day(t, offset: signals.offset)
            let midnight = LocalCalendar.midnight(of: day, offset: signals.offset)
            if policy.signals.contains(.timeOfDay) { planned = signals.plan(day: day, threshold: floor).map {
                (midnight + .minutes(Int64($0.minute)), $0.p)
            } }
            nextMidnight = LocalCalendar.midnight(after: t, offset: signals.offset)
        }
        while let first = planned.first, first.time <= t {
            // A launch shortly before a habitual moment usually was that habit, come early.
            let recent = signals.lastLaunch.map { t - $0 <= Self.habitServed } ?? false
            planned.removeFirst()
            if !recent { p = max(p, consider(first.p, .timeOfDay, at: t)) }
        }
        return decide(p, at: t, state: state)
    }

    mutating func completed(_ result: FetchResult) {
        if result.decision == .granted { lastRefresh = result.time }
    }
}

