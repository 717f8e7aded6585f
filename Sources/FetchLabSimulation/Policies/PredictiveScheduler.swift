import FetchLabCore
import FetchLabResults

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
    /// Per signal and bin (signal-major, ``binsPerSignal`` bins a signal; one flat array, so that a
    /// trial's update touches one buffer): hits, and trials.
    var hits = [Double](repeating: 0, count: binsPerSignal * Signal.allCases.count)
    var trials = [Double](repeating: 0, count: binsPerSignal * Signal.allCases.count)
    /// Per signal, over all its trials: the stated p summed, and the hits.
    var statedSum = [Double](repeating: 0, count: Signal.allCases.count)
    var hitSum = [Double](repeating: 0, count: Signal.allCases.count)
    /// Trials awaiting their label, oldest first: `cell` is the signal's bin in ``hits``/``trials``.
    var pending: [(time: Instant, signal: Signal, cell: Int, p: Double)] = []

    static func bin(_ p: Double) -> Int { min(binsPerSignal - 1, max(0, Int(p * Double(binsPerSignal)))) }
    /// The index in ``hits`` and ``trials`` of bin `b` of signal `s`.
    @inline(__always) static func cell(_ s: Signal, _ b: Int) -> Int { s.rawValue * binsPerSignal + b }

    /// The bin's hit rate, pulled towards p scaled by the signal's overall hits per stated p.
    func calibrated(_ p: Double, _ s: Signal) -> Double {
        let c = Self.cell(s, Self.bin(p))
        let scale = (hitSum[s.rawValue] + scalePrior) / (statedSum[s.rawValue] + scalePrior)
        let prior = min(1, p * scale)
        return (hits[c] + Self.priorWeight * prior) / (trials[c] + Self.priorWeight)
    }

    mutating func record(_ p: Double, _ s: Signal, at t: Instant) {
        assert(pending.last.map { $0.time <= t } ?? true, "trials out of time order")
        pending.append((t, s, Self.cell(s, Self.bin(p)), p))
    }

    /// A cold launch at `t` resolves the trials whose window holds it as hits.
    mutating func coldLaunch(at t: Instant) {
        pending.removeAll { trial in
            guard trial.time < t, t <= trial.time + lead else { return false }
            hits[trial.cell] += 1
            trials[trial.cell] += 1
            hitSum[trial.signal.rawValue] += 1
            statedSum[trial.signal.rawValue] += trial.p
            return true
        }
    }

    /// Trials whose window ended before `t` are misses.
    mutating func expire(before t: Instant) {
        // Trials are recorded as the replay's clock advances, so the first is the oldest: when it
        // has not expired, none has (the common case, checked without touching the array).
        guard let first = pending.first, first.time + lead < t else { return }
        pending.removeAll { trial in
            guard trial.time + lead < t else { return false }
            trials[trial.cell] += 1
            statedSum[trial.signal.rawValue] += trial.p
            return true
        }
    }
}

/// A predictive scheduler on one pair: what it learns (``UseSignals``) and what it decides from
/// it (``PredictiveDecider``). The decider reads the signals but never changes them, so schedulers
/// of one lead replayed together share one (``PolicyRunner/run(predictive:pair:of:settings:everyEvent:)``).
struct PredictiveScheduler: FetchScheduler {
    /// Other apps' launches are its sequence signal's trials; their other events change nothing.
    static let observed = ObservedEvents.ownAppAndLaunches
    var observedEvents: ObservedEvents { Self.observed }
    var signals: UseSignals
    var decider: PredictiveDecider

    init(policy: PredictivePolicy, pair: PairInfo) {
        decider = PredictiveDecider(policy: policy, pair: pair)
        signals = Self.signals(lead: policy.lead, pair: pair)
    }

    /// What a scheduler of `lead` on `pair` starts learning from (the same for every setting of
    /// that lead).
    static func signals(lead: Microseconds, pair: PairInfo) -> UseSignals {
        UseSignals(
            app: pair.app, tau: pair.evaluation.primaryTau, lead: lead,
            launchRefreshes: pair.evaluation.launchRefreshes, offset: pair.offset, appCount: pair.appCount)
    }

    var nextWake: Instant? { decider.nextWake }
    var statedProbability: Double? { decider.statedProbability }

    mutating func observe(_ event: UsageEvent, state: DeviceState) -> FetchRequest? {
        let cold = event.kind == .launch && signals.isCold(at: event.time)
        signals.learn(event)
        return decider.observe(
            event, cold: cold, follow: signals.follow(event, cold: cold), state: state, signals: signals)
    }

    mutating func wake(at time: Instant, state: DeviceState) -> FetchRequest? {
        decider.wake(at: time, state: state, signals: signals)
    }

    mutating func completed(_ result: FetchResult) { decider.completed(result) }
}

/// What a predictive policy decides on one pair from the signals learned so far: its calibration,
/// its gap bin, its day's plan, its last refresh.
struct PredictiveDecider {
    let policy: PredictivePolicy
    let tau: Microseconds
    /// Last refresh of this app (a fetch, or a launch when launches refresh).
    var lastRefresh: Instant? = nil
    /// The next gap bin to consider after the last launch, and the next slot start.
    var nextGap: Instant? = nil { didSet { cacheWake() } }
    var gapBin = 0
    /// Today's remaining time-of-day fetches (time, probability), and the next local midnight.
    var planned: [(time: Instant, p: Double)] = [] { didSet { cacheWake() } }
    var nextMidnight: Instant { didSet { cacheWake() } }
    /// ``nextWake``, kept as the three it is made of change (the replay asks for it at every event).
    private var wakeAt: Instant = .distantFuture
    var calibration: OnlineCalibration
    /// The probability stated for the last fetch asked for (calibrated).
    var statedProbability: Double? = nil
    /// Which of `policy.estimates` may fetch (looked up once, not per event).
    let usesSequence: Bool
    let usesGap: Bool
    let usesTimeOfDay: Bool
    /// Raw probabilities from this level up are decision points (calibration may lift them).
    let floor: Double

    init(policy: PredictivePolicy, pair: PairInfo) {
        self.policy = policy
        tau = pair.evaluation.primaryTau
        nextMidnight = LocalCalendar.midnight(after: pair.firstEvent, offset: pair.offset)
        calibration = OnlineCalibration(lead: policy.lead)
        usesSequence = policy.estimates.contains(.sequence)
        usesGap = policy.estimates.contains(.gap)
        usesTimeOfDay = policy.estimates.contains(.timeOfDay)
        floor = Self.floor(of: policy)
        cacheWake()
    }

    /// A time-of-day fetch is dropped when the app was launched this shortly before: the habit
    /// came early and was served.
    static let habitServed: Microseconds = .minutes(60)

    static func floor(of policy: PredictivePolicy) -> Double { min(policy.threshold, policy.cellularThreshold) / 2 }
    /// The plans of the schedulers replayed with this one (nil: alone).
    var sharedPlans: SharedPlans? = nil

    /// A decision point of `signal` at `t`: recorded as a trial, answered calibrated.
    mutating func consider(_ raw: Double, _ signal: OnlineCalibration.Signal, at t: Instant) -> Double {
        guard raw >= floor else { return 0 }
        calibration.record(raw, signal, at: t)
        return calibration.calibrated(raw, signal)
    }

    mutating func decide(_ p: Double, at t: Instant, state: DeviceState) -> FetchRequest? {
        guard !covered(at: t), wants(p, state: state) else { return nil }
        statedProbability = p
        return .fetch
    }

    var nextWake: Instant? { wakeAt }

    /// The earliest of the next planned fetch, the next midnight and the next gap bin.
    private mutating func cacheWake() {
        var t = planned.first.map { min($0.time, nextMidnight) } ?? nextMidnight
        if let g = nextGap { t = min(t, g) }
        wakeAt = t
    }

    /// Whether the last refresh still keeps launches up to `t + lead` fresh.
    func covered(at t: Instant) -> Bool {
        guard let r = lastRefresh else { return false }
        return r + tau >= t + policy.lead
    }

    func wants(_ p: Double, state: DeviceState) -> Bool {
        guard policy.costAware else { return p >= policy.threshold }
        if state.isLow(below: 20) { return false }
        let cheap = state.charging || state.network == .wifi
        return p >= (cheap ? policy.threshold : policy.cellularThreshold)
    }

    /// `event` happened and `signals` have learned it; `cold`: a launch of this app then would
    /// have been cold (before learning it); `follow`: `signals.follow(event, cold: cold)`, worked out
    /// once for every decider replayed together.
    mutating func observe(
        _ event: UsageEvent, cold: Bool, follow: Double, state: DeviceState, signals: UseSignals
    ) -> FetchRequest? {
        let t = event.time
        calibration.expire(before: t)
        guard event.kind == .launch else { return nil }
        if event.app == signals.app {
            if cold { calibration.coldLaunch(at: t) }
            if signals.launchRefreshes { lastRefresh = t }
            gapBin = 0
            advanceGap(from: t, signals: signals)
            return nil
        }
        guard cold, usesSequence else { return nil }
        return decide(consider(follow, .sequence, at: t), at: t, state: state)
    }

    /// The next gap bin at or after `gapBin` whose hazard passes the threshold (the bins are
    /// learned, so the lowest threshold of the policy decides whether to wake; `wants` decides).
    /// Only the gap bins holding a gap can pass a threshold above 0 (``UseSignals/firstGapBin(from:hazardAtLeast:)``).
    mutating func advanceGap(from launch: Instant, signals: UseSignals) {
        let last = signals.gapBins.count - 1
        guard gapBin < last, usesGap else {
            gapBin = max(gapBin, last)
            nextGap = nil
            return
        }
        // A hazard is never below 0: at a floor of 0 the first bin passes.
        if floor > 0 {
            guard let b = signals.firstGapBin(from: gapBin, hazardAtLeast: floor) else {
                gapBin = last
                nextGap = nil
                return
            }
            gapBin = b
        }
        nextGap = launch + signals.gapStart + policy.lead * Int64(gapBin)
    }

    mutating func wake(at t: Instant, state: DeviceState, signals: UseSignals) -> FetchRequest? {
        calibration.expire(before: t)
        var p = 0.0
        if let g = nextGap, g <= t {
            p = max(p, consider(signals.hazard(gapBin), .gap, at: t))
            gapBin += 1
            if let last = signals.lastLaunch { advanceGap(from: last, signals: signals) }
        }
        if nextMidnight <= t {
            let day = LocalCalendar.day(t, offset: signals.offset)
            let midnight = LocalCalendar.midnight(of: day, offset: signals.offset)
            if usesTimeOfDay {
                planned =
                    (sharedPlans?.plan(signals, day: day, threshold: floor) ?? signals.plan(day: day, threshold: floor))
                    .map {
                        (midnight + .minutes(Int64($0.minute)), $0.p)
                    }
            }
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
