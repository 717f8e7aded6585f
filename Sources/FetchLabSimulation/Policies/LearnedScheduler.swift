import FetchLabCore
import FetchLabResults
import Foundation

/// The scheduler of `learned(B)` and `learned-cost-aware(J)` for one pair: asks its
/// ``NextUseModel`` at every moment it may act (a launch of another app, an unlock, a screen-on,
/// a system-UI screen, a notification for its app, its own quarter-hourly timer) and fetches when
/// the probability, times the share of the next τ not already covered by the last refresh (and,
/// cost-aware, divided by the fetch's cost relative to Wi-Fi), reaches a threshold that a spend
/// controller moves: every fetch that runs raises it by a step, the passing of time lowers it by
/// the step times the budget's rate, so that the threshold settles where the pair spends its
/// budget (a token bucket whose fill sets the threshold).
struct LearnedScheduler: FetchScheduler {
    let app: Int32
    let tau: Microseconds
    let launchRefreshes: Bool
    /// The budget per day, in units of a Wi-Fi fetch (fetches, or joules ÷ the Wi-Fi energy).
    let daily: Double
    let costAware: Bool
    let wifiCost: Double
    let cellularCost: Double
    var model: NextUseModel
    var lastRefresh: Microseconds? = nil
    var logThreshold = log(LearnedScheduler.startThreshold)
    var clock: Microseconds
    var pendingCost = 0.0
    /// The threshold's change per fetch (log scale).
    let step: Double
    private(set) var nextWake: Microseconds?
    private(set) var statedProbability: Double? = nil
    var allocation: BudgetAllocation

    static let timerStep: Microseconds = .minutes(15)
    static let startThreshold = 0.3
    /// The threshold's change per fetch is this ÷ the daily budget (log scale): whatever the
    /// budget, a day's worth of fetches moves it by the same factor. Its bounds:
    static let dailyStep = 0.5
    static let lowest = log(0.003)
    static let highest = log(0.95)

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
        step = min(1, max(0.02, Self.dailyStep / max(daily, 1e-3)))
        model = NextUseModel(app: pair.app, tau: tau, offset: pair.offset, appCount: pair.appCount)
        allocation = BudgetAllocation(app: pair.app, appCount: pair.appCount, tau: tau)
        clock = pair.firstEvent
        nextWake = (pair.firstEvent / Self.timerStep + 1) * Self.timerStep
    }

    /// Lets time pass for the controller: the threshold falls at the budget's rate.
    mutating func advance(to t: Microseconds) {
        guard t > clock else { return }
        logThreshold = max(
            Self.lowest, logThreshold - step * daily * allocation.share * Double(t - clock) / 86_400e6)
        clock = t
    }

    /// The relative cost of a fetch now (1 on Wi-Fi or while charging, or for a fetch budget).
    func cost(_ state: DeviceState) -> Double {
        state.network == .cellular && !state.charging ? cellularCost / wifiCost : 1
    }

    mutating func decide(_ trigger: DecisionTrigger, app other: Int32, at t: Microseconds, state: DeviceState)
        -> FetchRequest?
    {
        advance(to: t)
        // Within τ after a launch of the app (when launches refresh) a launch is fresh anyway:
        // neither a moment to fetch nor a trial of "a launch that needs a fetch".
        if launchRefreshes, let last = model.lastLaunch, t - last <= tau { return nil }
        let p = model.ask(trigger, app: other, at: t)
        let covered = lastRefresh.map { min(1, Double(max(0, t - $0)) / Double(tau)) } ?? 1
        let c = cost(state)
        if costAware, state.isLow(below: 20) { return nil }
        guard covered > 0, p * covered / c >= exp(logThreshold) else { return nil }
        statedProbability = p
        pendingCost = c
        return .fetch
    }

    mutating func observe(_ event: UsageEvent, state: DeviceState) -> FetchRequest? {
        let t = event.time
        switch event.kind {
        case .launch:
            model.launched(event.app, at: t)
            allocation.launched(event.app, at: t)
            if event.app == app {
                if launchRefreshes { lastRefresh = t }
                return nil
            }
            return decide(.launch, app: event.app, at: t, state: state)
        case .unlock, .screenOn, .systemUI:
            model.expire(before: t)
            let trigger: DecisionTrigger =
                event.kind == .unlock ? .unlock : event.kind == .screenOn ? .screenOn : .systemUI
            return decide(trigger, app: event.app, at: t, state: state)
        case .notification where event.app == app:
            model.expire(before: t)
            return decide(.notification, app: event.app, at: t, state: state)
        default:
            return nil
        }
    }

    mutating func wake(at time: Microseconds, state: DeviceState) -> FetchRequest? {
        nextWake = time + Self.timerStep
        model.expire(before: time)
        return decide(.timer, app: -1, at: time, state: state)
    }

    mutating func completed(_ result: FetchResult) {
        switch result.decision {
        case .granted:
            lastRefresh = result.time
            logThreshold = min(Self.highest, logThreshold + step * pendingCost)
        case .expired:
            logThreshold = min(Self.highest, logThreshold + step * pendingCost)
        case .refused:
            break
        }
        pendingCost = 0
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
    var last: [Microseconds]
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
        last = [Microseconds](repeating: .min, count: n)
        launches = [Int32](repeating: 0, count: n)
        needy = [Double](repeating: 0, count: n)
    }

    @inline(__always) static func weight(_ x: Double) -> Double { x * x.squareRoot() }

    mutating func launched(_ other: Int32, at t: Microseconds) {
        let a = Int(other)
        guard a >= 0, a < last.count else { return }
        let isNeedy = last[a] == .min || t - last[a] > tau
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
