import FetchLabCore
import Foundation

/// What prompted a decision of a learned scheduler: the moments a policy may act.
enum DecisionTrigger: Int, CaseIterable {
    /// A launch of another app.
    case launch = 0
    case unlock, screenOn, systemUI
    /// A notification posted for the pair's app.
    case notification
    /// The scheduler's own timer.
    case timer
}

/// The model of "a launch of the app comes within τ after now", for one (user, app) pair: per-user
/// hit-rate tables (trigger → app, app before → app, time since the app's last use, hour of the
/// week) and session, recency and trigger features, combined by a logistic regression whose weights
/// were fitted across a population (``weights``), then recalibrated for the pair: a logistic
/// (Platt) scaling of the log-odds learned online, refined by the pair's own hit rate in the raw
/// probability's 5 %-wide bin where that bin holds enough trials. The per-user terms (the tables,
/// the scaling, the bins) learn online. Strictly causal: a decision is a trial whose label is known when the app is launched
/// within τ (a hit) or when τ has passed (a miss); nothing is learned from a trial before then.
struct NextUseModel {
    typealias Features = SIMD16<Double>

    /// The regression's weights, fitted across users by `Benchmarks/fit-learned-weights.sh`: a
    /// logistic regression over the trials of the first half (in time) of a generated population
    /// with signals (`fetchlab generate --users 25 --days 42 --seed 2026 --signals`), never on a
    /// figure the family is judged on. In the order of ``ask(_:app:at:)``'s features: bias, the
    /// trigger's, app-before's, gap's and hour's log-odds, within τ of the app's launch, idle time,
    /// session length, the app's rate, timer, device signal, notification, time since the app's
    /// use, the trigger's trials.
    static let weights: Features = [
        -0.522, 0.197, -0.0218, 0.0399, 0.144, 0, -1.26, -0.195, 1.78, 0.336, 1.32, 2.22, -0.26, -1.14, 0, 0,
    ]
    static let calibrationBins = 20
    static let calibrationWeight = 20.0
    /// Pseudo-trials at the pair's overall hit rate in each table entry.
    static let tableWeight = 2.0
    static let gapBins = 17
    static let slots = 48
    static let sessionGap: Microseconds = .minutes(15)
    /// The half-life of the app's launch rate.
    static let rateHalfLife = 7.0 * 86_400e6

    let app: Int32
    let tau: Microseconds
    let offset: Int32
    let keys: Int
    /// Hit-rate tables: trigger key (apps, then the other trigger kinds), app before, gap bin, slot.
    var triggerHits: [Double]
    var triggerTrials: [Double]
    var beforeHits: [Double]
    var beforeTrials: [Double]
    var gapHits = [Double](repeating: 0, count: gapBins)
    var gapTrials = [Double](repeating: 0, count: gapBins)
    var slotHits = [Double](repeating: 0, count: slots)
    var slotTrials = [Double](repeating: 0, count: slots)
    var totalHits = 0.0
    var totalTrials = 0.0
    /// The pair's Platt scaling of the raw log-odds (bias, slope), learned online (AdaGrad).
    var scaling = SIMD2<Double>(0, 1)
    var scalingSquares = SIMD2<Double>(1, 1)
    static let scalingRate = 0.1
    var binHits = [Double](repeating: 0, count: calibrationBins)
    var binTrials = [Double](repeating: 0, count: calibrationBins)

    // What the model knows of the past.
    var lastLaunch: Instant? = nil
    var lastAnyLaunch: Instant? = nil
    var lastAnyApp: Int32 = -1
    var beforeLastApp: Int32 = -1
    var sessionLength = 0
    var rate = 0.0
    var rateTime = Instant.epoch

    /// Trials awaiting their label, oldest first from `head`.
    struct Trial {
        var time: Instant
        var raw: Double
        /// The raw probability's log-odds (clamped as ``logit(_:)`` clamps).
        var z: Double
        var trigger: Int32
        var before: Int32
        var gap: Int16
        var slot: Int16
    }
    var pending: [Trial] = []
    var head = 0
    /// The trials' features, kept (parallel to `pending`) only when a `TrialLog` is installed.
    var pendingFeatures: [Features] = []

    init(app: Int32, tau: Microseconds, offset: Int32, appCount: Int) {
        self.app = app
        self.tau = tau
        self.offset = offset
        keys = max(appCount, Int(app) + 1) + DecisionTrigger.allCases.count
        triggerHits = [Double](repeating: 0, count: keys)
        triggerTrials = triggerHits
        beforeHits = [Double](repeating: 0, count: keys)
        beforeTrials = beforeHits
    }

    /// The trigger's key in the trigger table: the app launched, or the trigger kind.
    func key(_ trigger: DecisionTrigger, app other: Int32) -> Int {
        trigger == .launch && Int(other) < keys - DecisionTrigger.allCases.count
            ? Int(other) : keys - DecisionTrigger.allCases.count + trigger.rawValue
    }

    @inline(__always) static func logit(_ p: Double) -> Double {
        let q = min(0.999, max(0.001, p))
        return log(q / (1 - q))
    }
    @inline(__always) static func sigmoid(_ z: Double) -> Double { 1 / (1 + exp(-z)) }
    /// The log-odds ``logit(_:)`` gives for `sigmoid(z)`: z within its clamp.
    static let largestLogOdds = log(0.999 / 0.001)
    @inline(__always) static func clamped(_ z: Double) -> Double {
        min(largestLogOdds, max(-largestLogOdds, z))
    }

    /// `log1p(n)` for the counts the model keeps (looked up below 4,096).
    static let log1pCounts = (0..<4_096).map { log1p(Double($0)) }
    @inline(__always) static func log1pCount(_ n: Double) -> Double {
        n >= 0 && n < 4_096 ? log1pCounts[Int(n)] : log1p(max(0, n))
    }

    var base: Double { (totalHits + 0.5) / (totalTrials + 10) }
    @inline(__always) func rate(_ hits: Double, _ trials: Double) -> Double {
        (hits + Self.tableWeight * base) / (trials + Self.tableWeight)
    }

    static func gapBin(_ since: Microseconds?) -> Int {
        guard let since else { return gapBins - 1 }
        let minutes = Double(max(0, since)) / 60e6
        // ⌊log2(1 + minutes)⌋: the binary exponent of a number ≥ 1.
        return min(gapBins - 2, Int((1 + minutes).exponent))
    }

    func slot(_ t: Instant) -> Int {
        let local = LocalCalendar.localSeconds(t, offset: offset)
        let day = LocalCalendar.day(localSeconds: local)
        let hour = Int((local - Int64(day) * Seconds.perDay) / 3_600)
        return min(23, max(0, hour)) + (UseSignals.isWeekend(day) ? 24 : 0)
    }

    /// Asks the model at `t`, triggered by `trigger` (`other`: the app launched, for a launch);
    /// the trial is kept for learning once its label is known. Returns the calibrated probability.
    mutating func ask(_ trigger: DecisionTrigger, app other: Int32, at t: Instant) -> Double {
        let k = key(trigger, app: other)
        // The app before the trigger: for a launch, the one before it (it was already learned).
        let beforeApp = trigger == .launch ? beforeLastApp : lastAnyApp
        let b = beforeApp >= 0 && Int(beforeApp) < keys ? Int(beforeApp) : keys - 1
        let since = lastLaunch.map { t - $0 }
        let g = Self.gapBin(since)
        let s = slot(t)
        let previousAny = trigger == .launch ? nil : lastAnyLaunch
        var x = Features(repeating: 0)
        x[0] = 1
        x[1] = Self.logit(rate(triggerHits[k], triggerTrials[k]))
        x[2] = Self.logit(rate(beforeHits[b], beforeTrials[b]))
        x[3] = Self.logit(rate(gapHits[g], gapTrials[g]))
        x[4] = Self.logit(rate(slotHits[s], slotTrials[s]))
        x[5] = since.map { $0 <= tau ? 1 : 0 } ?? 0
        let idle = previousAny.map { Double(t - $0) / 60e6 } ?? 0
        x[6] = log1p(max(0, idle)) / 5
        let inSession = trigger == .launch || previousAny.map { t - $0 <= Self.sessionGap } ?? false
        x[7] = inSession ? Self.log1pCount(Double(sessionLength)) / 3 : 0
        x[8] = log1p(currentRate(at: t)) / 3
        x[9] = trigger == .timer ? 1 : 0
        x[10] = trigger == .unlock || trigger == .screenOn ? 1 : 0
        x[11] = trigger == .notification ? 1 : 0
        x[12] = since.map { log1p(Double($0) / 60e6) / 7 } ?? 1.5
        x[13] = Self.log1pCount(triggerTrials[k]) / 5
        // A launcher or system-UI screen comes mid-session, an unlock or the screen turning on
        // starts one: two features.
        x[14] = trigger == .systemUI ? 1 : 0
        let z = (Self.weights * x).sum()
        let raw = Self.sigmoid(z)
        pending.append(
            Trial(
                time: t, raw: raw, z: Self.clamped(z), trigger: Int32(k), before: Int32(b), gap: Int16(g),
                slot: Int16(s)))
        if TrialLog.sink != nil { pendingFeatures.append(x) }
        return calibrated(raw, logOdds: Self.clamped(z))
    }

    /// The pair's Platt scaling of a raw probability, given by its clamped log-odds.
    func scaled(logOdds z: Double) -> Double { Self.sigmoid(scaling[0] + scaling[1] * z) }

    /// The hit rate of the raw probability's bin, pulled toward the scaled probability (a bin with
    /// few trials follows the scaling).
    /// - Parameters:
    ///   - raw: the model's raw probability.
    ///   - logOdds: its log-odds, clamped as ``logit(_:)`` clamps.
    func calibrated(_ raw: Double, logOdds: Double) -> Double {
        let bin = min(Self.calibrationBins - 1, Int(raw * Double(Self.calibrationBins)))
        return (binHits[bin] + Self.calibrationWeight * scaled(logOdds: logOdds))
            / (binTrials[bin] + Self.calibrationWeight)
    }

    /// The app's launches per day, decayed.
    func currentRate(at t: Instant) -> Double {
        decayedRate(at: t) * 86_400e6 / (Self.rateHalfLife / M_LN2)
    }

    /// The launch count decayed to `t`: 0 before the first launch, whenever `t` is (the decay from
    /// `rateTime` 0 to an instant long before 1970 is infinite, and 0 × ∞ is not a number).
    @inline(__always) func decayedRate(at t: Instant) -> Double {
        rate > 0 ? rate * exp(-Double(t - rateTime) / Self.rateHalfLife * M_LN2) : 0
    }

    /// Resolves the trials whose τ has passed by `t` as misses.
    mutating func expire(before t: Instant) {
        while head < pending.count, pending[head].time + tau < t {
            learn(head, hit: false)
            head += 1
        }
        compact()
    }

    /// A launch at `t` of any app: the pair's app resolves every open trial as a hit.
    mutating func launched(_ other: Int32, at t: Instant) {
        expire(before: t)
        if other == app {
            while head < pending.count, pending[head].time < t {
                learn(head, hit: true)
                head += 1
            }
            compact()
            rate = decayedRate(at: t) + 1
            rateTime = t
            lastLaunch = t
        }
        if lastAnyLaunch.map({ t - $0 > Self.sessionGap }) ?? true { sessionLength = 0 }
        sessionLength += 1
        beforeLastApp = lastAnyApp
        lastAnyApp = other
        lastAnyLaunch = t
    }

    private mutating func compact() {
        if head == pending.count {
            pending.removeAll(keepingCapacity: true)
            pendingFeatures.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 256, head * 2 > pending.count {
            pending.removeFirst(head)
            if !pendingFeatures.isEmpty { pendingFeatures.removeFirst(head) }
            head = 0
        }
    }

    /// Learns from the pending trial at `index`.
    private mutating func learn(_ index: Int, hit: Bool) {
        let trial = pending[index]
        let y = hit ? 1.0 : 0.0
        if let log = TrialLog.sink {
            log(Self.line(trial, x: pendingFeatures[index], app: app, offset: offset, hit: hit))
        }
        let bin = min(Self.calibrationBins - 1, Int(trial.raw * Double(Self.calibrationBins)))
        binTrials[bin] += 1
        binHits[bin] += y
        totalTrials += 1
        let z = trial.z
        let g = scaled(logOdds: z) - y
        let grad = SIMD2(g, g * z)
        scalingSquares += grad * grad
        scaling -= Self.scalingRate * grad / scalingSquares.squareRoot()
        totalHits += y
        triggerTrials[Int(trial.trigger)] += 1
        triggerHits[Int(trial.trigger)] += y
        beforeTrials[Int(trial.before)] += 1
        beforeHits[Int(trial.before)] += y
        gapTrials[Int(trial.gap)] += 1
        gapHits[Int(trial.gap)] += y
        slotTrials[Int(trial.slot)] += 1
        slotHits[Int(trial.slot)] += y
    }

    /// A resolved trial as `TrialLog` gets it: `T,app,offset,time,trigger,hit,raw,x0,…,x14`.
    private static func line(_ trial: Trial, x: Features, app: Int32, offset: Int32, hit: Bool) -> String {
        var line = "T,\(app),\(offset),\(trial.time.sinceEpoch),\(trial.trigger),\(hit ? 1 : 0),\(trial.raw)"
        for i in 0..<15 { line += ",\(x[i])" }
        return line
    }
}

/// Where the learned family's next-use model reports each resolved trial, as a line
/// `T,app,offset,time,trigger,hit,raw,x0,…,x14` (the input of `Benchmarks/fit-learned-weights.sh`).
/// The simulator does no I/O: nil, the default, reports none, and a front end installs a writer
/// before it replays anything (`fetchlab` does with `FETCHLAB_LEARNED_TRIALS=1`, to standard
/// error). Called from the replays of users in parallel: one call per line.
public enum TrialLog {
    /// The installed writer (nil: trials are not reported).
    nonisolated(unsafe) public private(set) static var sink: (@Sendable (String) -> Void)?

    /// Reports every resolved trial to `sink` from now on; call it before any replay starts.
    public static func install(_ sink: @escaping @Sendable (String) -> Void) { self.sink = sink }
}
