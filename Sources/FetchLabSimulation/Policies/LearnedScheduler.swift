import FetchLabCore
import FetchLabPredict
import FetchLabResults
import Foundation

/// The scheduler of `learned(B)` and `learned-cost-aware(J)` for one pair: asks its
/// `NextUseModel` at every moment it may act (a launch of another app, an unlock, a screen-on,
/// a system-UI screen, a notification for its app, its own quarter-hourly timer) and fetches when
/// the probability, times the share of the next τ not already covered by the last refresh (and,
/// cost-aware, divided by the fetch's cost relative to a Wi-Fi fetch), reaches the threshold of a
/// ``SpendController``. A replay gives all of a user's pairs one controller
/// (`PolicyRunner.runLearned`); alone (through ``FetchScheduler``, as a wrapper sees it) a pair
/// has its own, its budget the pair's share of the user's (``BudgetAllocation``).
struct LearnedScheduler: FetchScheduler {
    let app: Int32
    let tau: Microseconds
    let launchRefreshes: Bool
    /// The pair's budget per day, in units of a Wi-Fi fetch (fetches, or joules ÷ the Wi-Fi energy).
    let daily: Double
    let costAware: Bool
    /// The energy of a fetch on Wi-Fi and on cellular, joules (1 and 1 for a fetch budget).
    let wifiCost: Double
    let cellularCost: Double
    /// The controller's unit of cost, joules (1 for a fetch budget): the pair's Wi-Fi fetch alone,
    /// a user's mean Wi-Fi fetch under a shared controller.
    var costUnit: Double
    var model: NextUseModel
    var lastRefresh: Instant? = nil
    var pendingCost = 0.0
    /// The model's probability for the fetch just asked for (before the stated correction).
    var pendingModelled = 0.0
    /// The controller of a pair replayed alone.
    var controller: SpendController
    var allocation: BudgetAllocation
    private(set) var nextWake: Instant?
    private(set) var statedProbability: Double? = nil

    static let timerStep: Microseconds = .minutes(15)

    init(policy: LearnedPolicy, pair: PairInfo) {
        app = pair.app
        tau = pair.evaluation.primaryTau
        launchRefreshes = pair.evaluation.launchRefreshes
        costAware = policy.costAware
        switch policy.budget {
        case .fetches(let b):
            daily = b
            wifiCost = 1
            cellularCost = 1
        case .joules(let j):
            let energy = CostModel().loneFetchEnergy(duration: pair.fetchDuration)
            wifiCost = max(1e-6, energy.wifi)
            cellularCost = max(wifiCost, energy.cellular)
            daily = j / wifiCost
        }
        costUnit = wifiCost
        controller = SpendController(daily: daily, start: pair.firstEvent)
        allocation = BudgetAllocation(app: pair.app, appCount: pair.appCount, tau: tau)
        model = NextUseModel(app: pair.app, tau: tau, offset: pair.offset, appCount: pair.appCount)
        nextWake = Instant(sinceEpoch: (pair.firstEvent.sinceEpoch / Self.timerStep + 1) * Self.timerStep)
    }

    /// The cost of a fetch now in the controller's units (1 for a fetch budget).
    func cost(_ state: DeviceState) -> Double {
        (state.network == .cellular && !state.charging ? cellularCost : wifiCost) / costUnit
    }

    mutating func decide(
        _ trigger: DecisionTrigger, app other: Int32, at t: Instant, state: DeviceState,
        controller: inout SpendController
    ) -> FetchRequest? {
        controller.advance(to: t)
        guard Self.asks(model, launchRefreshes: launchRefreshes, tau: tau, at: t) else { return nil }
        return choose(model.ask(trigger, app: other, at: t), at: t, state: state, controller: &controller)
    }

    /// Whether `model` is asked at `t`: within τ after a launch of the app (when launches
    /// refresh) a launch is fresh anyway, neither a moment to fetch nor a trial of "a launch that
    /// needs a fetch".
    static func asks(_ model: NextUseModel, launchRefreshes: Bool, tau: Microseconds, at t: Instant) -> Bool {
        !(launchRefreshes && model.lastLaunch.map { t - $0 <= tau } ?? false)
    }

    /// The decision at `t` once the model answered `p` (the controller already advanced to `t`):
    /// what ``decide(_:app:at:state:controller:)`` does after asking. A group of learned policies
    /// replayed together asks one model and lets each policy choose.
    mutating func choose(_ p: Double, at t: Instant, state: DeviceState, controller: inout SpendController)
        -> FetchRequest?
    {
        controller.stated.expire(app: app, before: t - tau)
        let covered = lastRefresh.map { min(1, Double(max(0, t - $0)) / Double(tau)) } ?? 1
        let c = cost(state)
        if costAware, state.isLow(below: 20) { return nil }
        guard covered > 0, p * covered / c >= controller.threshold else { return nil }
        // The decision follows the model; the probability stated for the fetch is corrected by
        // what became of the fetches made so far.
        statedProbability = controller.stated.corrected(p)
        pendingModelled = p
        pendingCost = c
        return .fetch
    }

    /// ``FetchScheduler/observe(_:state:)`` under the given controller.
    mutating func observe(_ event: UsageEvent, state: DeviceState, controller: inout SpendController)
        -> FetchRequest?
    {
        switch Self.see(event, app: app, model: &model) {
        case .ownLaunch:
            launchedOwnApp(at: event.time, controller: &controller)
            return nil
        case .moment(let trigger):
            return decide(trigger, app: event.app, at: event.time, state: state, controller: &controller)
        case .nothing:
            return nil
        }
    }

    /// What an event is to the pair of `app`.
    enum Sight {
        /// A launch of the pair's app.
        case ownLaunch
        /// A moment the pair may act: a launch of another app, an unlock, a screen-on, a
        /// system-UI screen, a notification for its app.
        case moment(DecisionTrigger)
        /// Nothing the pair acts on.
        case nothing
    }

    /// Shows `event` to the pair's `model` (a launch resolves and updates, a signal expires old
    /// trials) and says what it is to the pair.
    static func see(_ event: UsageEvent, app: Int32, model: inout NextUseModel) -> Sight {
        switch event.kind {
        case .launch:
            model.launched(event.app, at: event.time)
            return event.app == app ? .ownLaunch : .moment(.launch)
        case .unlock, .screenOn, .systemUI:
            model.expire(before: event.time)
            return .moment(event.kind == .unlock ? .unlock : event.kind == .screenOn ? .screenOn : .systemUI)
        case .notification where event.app == app:
            model.expire(before: event.time)
            return .moment(.notification)
        default:
            return .nothing
        }
    }

    /// The pair's app was launched at `t`: its fetches' outcomes, and the refresh of a launch.
    mutating func launchedOwnApp(at t: Instant, controller: inout SpendController) {
        controller.stated.launched(app: app, at: t, tau: tau)
        if launchRefreshes { lastRefresh = t }
    }

    /// ``FetchScheduler/wake(at:state:)`` under the given controller.
    mutating func wake(at time: Instant, state: DeviceState, controller: inout SpendController) -> FetchRequest? {
        nextWake = time + Self.timerStep
        model.expire(before: time)
        return decide(.timer, app: -1, at: time, state: state, controller: &controller)
    }

    /// ``FetchScheduler/completed(_:)`` under the given controller: a fetch that ran refreshes
    /// the app and spends its cost.
    mutating func completed(_ result: FetchResult, controller: inout SpendController) {
        switch result.decision {
        case .granted:
            lastRefresh = result.time
            controller.spent(pendingCost)
            controller.stated.fetched(app: app, at: result.time, modelled: pendingModelled)
        case .expired:
            controller.spent(pendingCost)
        case .refused:
            break
        }
        pendingCost = 0
    }

    mutating func observe(_ event: UsageEvent, state: DeviceState) -> FetchRequest? {
        // Alone, the pair spends its share of the user's budget (a shared controller needs none).
        if event.kind == .launch { allocation.launched(event.app, at: event.time) }
        var c = controller
        c.share = allocation.share
        defer { controller = c }
        return observe(event, state: state, controller: &c)
    }

    mutating func wake(at time: Instant, state: DeviceState) -> FetchRequest? {
        var c = controller
        c.share = allocation.share
        defer { controller = c }
        return wake(at: time, state: state, controller: &c)
    }

    mutating func completed(_ result: FetchResult) {
        var c = controller
        defer { controller = c }
        completed(result, controller: &c)
    }
}

/// The correction of a learned scheduler's stated probabilities by what became of its fetches:
/// the model is calibrated over every question it is asked, but a fetch is made only where the
/// probability is high for its moment, so the fetched moments are a selection (the bins whose
/// hit rate happened to run high are chosen more often). Each fetch that ran is a trial of its
/// model probability, known when its app is launched within τ (a hit) or τ has passed (a miss).
/// Once ``minimum`` fetches are resolved, the probability stated is an isotonic map of the model's
/// fitted on them (`ProbabilityCalibrator`'s fit, blocks of at least ``minimum``, refitted every
/// ``refit``, on cells of model probability 0.001 wide: `IsotonicFit`); before, the hit rate of
/// the resolved fetches in the same 0.1-wide bin, pulled toward the model's by ``weight``
/// pseudo-trials. Shared by a user's pairs under a shared controller
/// (more fetches to learn from); causal like the model.
struct StatedCalibration {
    static let bins = 10
    static let weight = 20.0
    var hits = [Double](repeating: 0, count: bins)
    var trials = [Double](repeating: 0, count: bins)
    /// Fetches awaiting their label: (app, time, model probability), oldest first.
    var pending: [(app: Int32, time: Instant, p: Double)] = []
    /// The resolved fetches (counted in cells of model probability 0.001 wide, so that a refit
    /// costs the same however many there are), and the isotonic map fitted on them.
    var resolved = IsotonicFit()
    var isotonic: ProbabilityCalibrator? = nil
    /// The map is refitted every this many resolved fetches.
    static let refit = 10
    /// Resolved fetches before the isotonic map is used (and its smallest block).
    static let minimum = 30

    static func bin(_ p: Double) -> Int { min(bins - 1, max(0, Int(p * Double(bins)))) }

    /// The probability to state for a fetch whose model probability is `p`.
    func corrected(_ p: Double) -> Double {
        if let isotonic { return isotonic(p) }
        let b = Self.bin(p)
        return (hits[b] + Self.weight * p) / (trials[b] + Self.weight)
    }

    mutating func fetched(app: Int32, at t: Instant, modelled p: Double) {
        pending.append((app, t, p))
    }

    /// The app's fetches made before `t` are misses (their τ has passed by t + τ).
    mutating func expire(app: Int32, before t: Instant) {
        // Fetches are pending in time order: none before `t`, nothing to resolve.
        guard let oldest = pending.first, oldest.time < t else { return }
        resolve { $0.app == app && $0.time < t ? false : nil }
    }

    /// The app was launched at `t`: its fetches within τ before are hits, older ones misses.
    mutating func launched(app: Int32, at t: Instant, tau: Microseconds) {
        guard let oldest = pending.first, oldest.time < t else { return }
        resolve { $0.app == app && $0.time < t ? t - $0.time <= tau : nil }
    }

    private mutating func resolve(_ label: ((app: Int32, time: Instant, p: Double)) -> Bool?) {
        var changed = false
        pending.removeAll { f in
            guard let hit = label(f) else { return false }
            let b = Self.bin(f.p)
            trials[b] += 1
            if hit { hits[b] += 1 }
            resolved.add(CalibrationSample(stated: f.p, outcome: hit))
            changed = true
            return true
        }
        guard changed, resolved.count >= Self.minimum, isotonic == nil || resolved.count % Self.refit == 0 else {
            return
        }
        isotonic = resolved.calibrator(minimumSamples: Self.minimum, minimumBlock: Self.minimum)
    }
}

/// The spend controller of the learned family: a probability threshold that every fetch raises
/// by a step (times its cost) and the passing of time lowers by the step times the budget's rate
/// (times ``share``), so that it settles where the fetches follow the budget (a token bucket whose
/// fill sets the threshold). Whatever the budget, a day's worth of fetches moves it by the same
/// factor.
struct SpendController {
    static let startThreshold = 0.3
    /// The threshold's change (log scale) per day's worth of fetches.
    static let dailyStep = 0.5
    static let lowest = log(0.003)
    static let highest = log(0.95)

    /// The budget per day, in cost units (Wi-Fi fetches).
    let daily: Double
    /// The threshold's change per unit of cost (log scale).
    let step: Double
    /// The share of ``daily`` to spend now (1: all of it).
    var share = 1.0
    /// The correction of the probabilities stated for the fetches this controller paid for.
    var stated = StatedCalibration()
    private(set) var logThreshold = log(SpendController.startThreshold) {
        // Read at every question of every pair, changed once per moment: kept, not recomputed.
        didSet { threshold = exp(logThreshold) }
    }
    /// The probability threshold: `exp(logThreshold)`.
    private(set) var threshold: Double
    private(set) var clock: Instant

    init(daily: Double, start: Instant) {
        self.daily = daily
        step = min(1, Self.dailyStep / max(daily, 1e-3))
        clock = start
        threshold = exp(logThreshold)
    }

    /// Lets time pass: the threshold falls at the budget's rate.
    mutating func advance(to t: Instant) {
        guard t > clock else { return }
        logThreshold = max(Self.lowest, logThreshold - step * daily * share * Double(t - clock) / 86_400e6)
        clock = t
    }

    /// A fetch of `cost` units ran (or ran out of time).
    mutating func spent(_ cost: Double) {
        logThreshold = min(Self.highest, logThreshold + step * cost)
    }
}

/// How a user's budget is shared among their apps: each app's share of the user's fetches follows
/// its launches that need a fetch (those more than τ after its previous launch), to the power
/// ``exponent`` (1.5), relative to the mean over the user's established apps (at least
/// ``established`` launches so far), so that the user's apps together spend about the budget
/// times their number. Learned from the launches shown so far.
struct BudgetAllocation {
    /// Chosen by measurement on a generated population (`fetchlab generate --users 25 --days 42
    /// --seed 2026`, not a figure this family is judged on): exponents 0 (equal shares), 1, 1.5
    /// and 2 gave shares of the possible gain of .19/.17/.16/.26/.42, .23/.21/.20/.31/.46,
    /// .25/.23/.22/.31/.45 and .26/.24/.23/.31/.44 at 0.5/1/2/5/10 fetches/app/day. (``weight(_:)``
    /// computes x^1.5.)
    static let exponent = 1.5
    static let established = 20
    let app: Int32
    let tau: Microseconds
    var last: [Instant]
    var launches: [Int32]
    var needy: [Double]
    var sum = 0.0
    var count = 0
    /// This pair's share: its weight over the mean weight (1 until its app is established).
    private(set) var share = 1.0

    init(app: Int32, appCount: Int, tau: Microseconds) {
        self.app = app
        self.tau = tau
        let n = max(appCount, Int(app) + 1)
        last = [Instant](repeating: .distantPast, count: n)
        launches = [Int32](repeating: 0, count: n)
        needy = [Double](repeating: 0, count: n)
    }

    @inline(__always) static func weight(_ x: Double) -> Double { x * x.squareRoot() }

    mutating func launched(_ other: Int32, at t: Instant) {
        let a = Int(other)
        guard a >= 0, a < last.count else { return }
        let isNeedy = last[a] == .distantPast || t - last[a] > tau
        last[a] = t
        launches[a] += 1
        let old = needy[a]
        if isNeedy { needy[a] += 1 }
        if launches[a] == Int32(Self.established) {
            count += 1
            sum += Self.weight(needy[a])
        } else if launches[a] > Int32(Self.established), isNeedy {
            sum += Self.weight(needy[a]) - Self.weight(old)
        }
        let mine = Int(app)
        share =
            launches[mine] >= Int32(Self.established) && sum > 0
            ? min(4, max(0.25, Self.weight(needy[mine]) * Double(count) / sum)) : 1
    }
}
