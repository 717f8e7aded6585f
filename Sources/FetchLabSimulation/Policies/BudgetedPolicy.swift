import FetchLabCore
import FetchLabResults

/// Spends a daily budget (k fetches, or J joules) on the moments of highest expected benefit per
/// cost, as IMP does, learning causally from its app's launches. The local day is cut in
/// 15-minute slots; a launch that needs a fetch (not already fresh from a launch of the app within
/// τ = the primary τ before, when launches refresh) credits every slot starting in the τ before it:
/// a fetch there would have made it fresh. Per slot, the benefit is that credit per day (decayed
/// by 0.9 a day). Woken at every slot start, it fetches when the slot has a benefit and the budget
/// left today covers this fetch and the expected cost of the slots left today with a better
/// benefit per cost (with k fetches left: when fewer than k of the remaining slots look better),
/// so the best learned slots get the budget and what they leave is spent by the end of the day.
///
/// Cost: 1 per fetch for `budgeted(k)`. For `budgeted(<J>j)`, the energy of one lone fetch of the
/// app under the default `CostModel` on the network of the moment (cellular ≈ 16.5 J for a 3 s
/// fetch, Wi-Fi ≈ 1.7 J); a slot's expected cost is the decayed mean of the costs seen at its
/// start. A fetch while charging costs the Wi-Fi energy (nothing from the battery, but the budget
/// still bounds how many run). A request the platform refuses is refunded.
public struct BudgetedPolicy: FetchPolicy {
    /// What the daily budget counts.
    public enum Budget: Sendable, Hashable {
        case fetches(Int)
        case joules(Double)
    }

    public var budget: Budget

    public init(budget: Budget = .fetches(4)) {
        switch budget {
        case .fetches(let k): precondition(k >= 1)
        case .joules(let j): precondition(j > 0 && j.isFinite)
        }
        self.budget = budget
    }

    var budgetName: String {
        switch budget {
        case .fetches(let k): "\(k)"
        case .joules(let j): "\(PolicyRegistry.Arguments.numberName(j))j"
        }
    }

    public var name: String { "budgeted(\(budgetName))" }
    public var family: String { "budgeted" }
    /// The benefit of its slots, learned from the app's own launches, per the cost of a fetch now.
    public var signals: Set<PolicySignal> { [.ownLaunches, .context] }
    public var parameters: [String: Double] {
        switch budget {
        case .fetches(let k): ["k": Double(k)]
        case .joules(let j): ["joules": j]
        }
    }
    public var summary: String {
        let what =
            switch budget {
            case .fetches(let k): "\(k) fetch\(k == 1 ? "" : "es")"
            case .joules(let j): "\(PolicyRegistry.Arguments.numberName(j)) J of fetches"
            }
        return "at most \(what) a day, at the 15-minute slots with the most launches needing a fetch per cost"
    }

    public func makeScheduler(_ pair: PairInfo) -> (any FetchScheduler)? {
        BudgetedScheduler(budget: budget, pair: pair)
    }
}

extension BudgetedPolicy: PolicyFamily {
    public static let familyNames = ["budgeted", "budget"]
    public static let form = "budgeted(k or <J>j) (e.g. budgeted(4), budgeted(200j))"
    public static func parse(_ arguments: [String], raw: String) throws(PolicyRegistry.ParseError) -> [any FetchPolicy]
    {
        guard !arguments.isEmpty else { return [BudgetedPolicy()] }
        return try arguments.map { (a: String) throws(PolicyRegistry.ParseError) -> any FetchPolicy in
            if a.hasSuffix("j") {
                let j = try PolicyRegistry.Arguments.number(
                    String(a.dropLast()), raw: raw, what: "daily energy budget (joules)", in: 0.001...1_000_000)
                return BudgetedPolicy(budget: .joules(j))
            }
            return BudgetedPolicy(
                budget: .fetches(
                    try PolicyRegistry.Arguments.integer(a, raw: raw, what: "daily budget", in: 1...10_000)))
        }
    }
}

/// What a budgeted scheduler learns of its pair, whatever its budget: when launches needed a fetch
/// (benefit per slot) and what a fetch cost at each slot start (cost per slot). Neither depends on
/// what was fetched, so budgets counted in the same costs share one (``PolicyRunner/run(budgeted:pair:of:settings:)``).
struct BudgetedLearner {
    let app: Int32
    let offset: Int32
    let tau: Microseconds
    let launchRefreshes: Bool
    /// Each network's cost of a fetch (1 each when counting fetches).
    let wifiCost: Double
    let cellularCost: Double
    /// Per slot: launches needing a fetch in the τ after its start, per day.
    var benefit: SlotHistogram
    /// Per slot: the cost of a fetch at its start, as seen (its mean).
    var cost: SlotHistogram
    var lastLaunch: Instant? = nil

    init(budget: BudgetedPolicy.Budget, pair: PairInfo) {
        app = pair.app
        offset = pair.offset
        tau = pair.evaluation.primaryTau
        launchRefreshes = pair.evaluation.launchRefreshes
        switch budget {
        case .fetches:
            wifiCost = 1
            cellularCost = 1
        case .joules:
            (wifiCost, cellularCost) = CostModel().loneFetchEnergy(duration: pair.fetchDuration)
        }
        benefit = SlotHistogram(offset: pair.offset)
        cost = SlotHistogram(offset: pair.offset)
    }

    /// The first wake: the end of the slot of the pair's first event.
    func firstWake(_ pair: PairInfo) -> Instant { benefit.slotStart(pair.firstEvent) + SlotHistogram.slotLength }

    func cost(in state: DeviceState) -> Double {
        state.network == .cellular && !state.charging ? cellularCost : wifiCost
    }

    /// A launch of the pair's app (other events change nothing) credits the slots in the τ before it.
    mutating func observe(_ event: UsageEvent) {
        guard event.app == app, event.kind == .launch else { return }
        let t = event.time
        defer { lastLaunch = t }
        if launchRefreshes, let last = lastLaunch, t - last <= tau { return }
        benefit.advance(to: t)
        var s = benefit.slotStart(t)
        while s >= t - tau {
            benefit.add(1, to: benefit.slot(of: s))
            s -= SlotHistogram.slotLength
        }
    }

    /// A slot start: what a fetch now would cost and bring, the cost seen counted.
    struct Moment {
        var slot: Int
        var day: Int
        var cost: Double
        var benefit: Double
    }

    mutating func wake(at time: Instant, state: DeviceState) -> Moment {
        benefit.advance(to: time)
        cost.advance(to: time)
        let slot = benefit.slot(of: time)
        let c = cost(in: state)
        cost.add(1, to: slot, value: c)
        return Moment(slot: slot, day: LocalCalendar.day(time, offset: offset), cost: c, benefit: benefit.perDay(slot))
    }

    /// The expected cost of the slots left today after `slot` whose benefit per cost beats `value`:
    /// the budget they would claim first.
    func better(than value: Double, after slot: Int) -> Double {
        var total = 0.0
        for s in (slot + 1)..<SlotHistogram.slotCount where benefit.counts[s] > 0 {
            let expected = cost.counts[s] > 0 ? cost.mean(s) : wifiCost
            if benefit.perDay(s) / expected > value { total += expected }
        }
        return total
    }
}

/// One budget's spending: the day's budget, what is spent of it today, the request awaiting its answer.
struct BudgetSpend {
    /// The day's budget, in the learner's costs.
    let daily: Double
    var day = Int.min
    var spent = 0.0
    /// The last request's cost, refunded when it is refused.
    var pending = 0.0

    init(budget: BudgetedPolicy.Budget) {
        switch budget {
        case .fetches(let k): daily = Double(k)
        case .joules(let j): daily = j
        }
    }

    /// Fetch at `moment` when the slot has a benefit and today's budget covers this fetch and the
    /// slots left today that look better (`better`, asked only when needed: it is the same for
    /// every budget of a learner).
    mutating func decide(_ moment: BudgetedLearner.Moment, better: () -> Double) -> FetchRequest? {
        if moment.day != day {
            day = moment.day
            spent = 0
        }
        let c = moment.cost
        // `better` is at least 0: past the budget without it, past it with it.
        guard moment.benefit > 0, spent + c <= daily + 1e-9, spent + c + better() <= daily + 1e-9 else { return nil }
        spent += c
        pending = c
        return .fetch
    }

    mutating func completed(_ result: FetchResult) {
        if case .refused = result.decision { spent -= pending }
        pending = 0
    }
}

struct BudgetedScheduler: FetchScheduler {
    var observedEvents: ObservedEvents { .ownApp }
    var learner: BudgetedLearner
    var spend: BudgetSpend
    private(set) var nextWake: Instant?

    init(budget: BudgetedPolicy.Budget, pair: PairInfo) {
        learner = BudgetedLearner(budget: budget, pair: pair)
        spend = BudgetSpend(budget: budget)
        nextWake = learner.firstWake(pair)
    }

    mutating func observe(_ event: UsageEvent, state: DeviceState) -> FetchRequest? {
        learner.observe(event)
        return nil
    }

    mutating func wake(at time: Instant, state: DeviceState) -> FetchRequest? {
        nextWake = time + SlotHistogram.slotLength
        let moment = learner.wake(at: time, state: state)
        return spend.decide(moment) { learner.better(than: moment.benefit / moment.cost, after: moment.slot) }
    }

    mutating func completed(_ result: FetchResult) { spend.completed(result) }
}

extension BudgetedPolicy: TunableFamily {
    /// `tune --family budgeted`: the daily budget k; lower toward fewer fetches (halved, at least
    /// 1) or higher (×2).
    public static let tunableParameters = [
        TunableParameter("k", defaults: ["1", "2", "4", "8"]) { values, cheaper in
            let numbers = values.compactMap { Int($0) }
            guard numbers.count == values.count, let low = numbers.min(), let high = numbers.max() else { return nil }
            let next = cheaper ? low / 2 : high * 2
            guard cheaper ? next >= 1 && next < low : next <= 10_000 else { return nil }
            return "\(next)"
        }
    ]
}

extension CostModel {
    /// The energy of one fetch of `duration` alone (no other radio use near it), on Wi-Fi and on
    /// cellular, joules: what a joule budget counts.
    func loneFetchEnergy(duration: Microseconds) -> (wifi: Double, cellular: Double) {
        let energy = energy(of: [
            RadioUse(start: .epoch, duration: duration, network: .wifi),
            RadioUse(start: .epoch + .days(1), duration: duration, network: .cellular),
        ])
        return (energy[0], energy[1])
    }
}
