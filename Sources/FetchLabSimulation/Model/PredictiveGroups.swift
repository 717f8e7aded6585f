import FetchLabCore
import FetchLabResults

extension Simulator {
    /// Every policy on every pair of a user (policy-major), with each policy's thread CPU
    /// seconds. Predictive policies of one lead (two or more) replay together: one walk over the
    /// user's events drives all their schedulers, and their time-of-day plans are computed once
    /// a day (``SharedPlans``). Budgeted policies of one kind of budget (two or more) share each
    /// pair's learner (``PolicyRunner/run(budgeted:pair:of:settings:)``). Learned policies (two or
    /// more) replay together, sharing each pair's model
    /// (``PolicyRunner/runLearned(group:user:settings:)``). The outcomes are those of replaying
    /// each alone; a group's CPU seconds are shared equally among its policies.
    func replay(_ user: UserSetup, policies: [any FetchPolicy], seconds: inout [Double]) -> [[PairOutcome]] {
        var out = [[PairOutcome]](repeating: [], count: policies.count)
        var groups: [Microseconds: [Int]] = [:]
        var leads: [Microseconds] = []
        for (i, p) in policies.enumerated() {
            guard let predictive = p as? PredictivePolicy else { continue }
            if groups[predictive.lead] == nil { leads.append(predictive.lead) }
            groups[predictive.lead, default: []].append(i)
        }
        var grouped = Set<Int>()
        // Replays `members` together (`run` gives their runs, policy-major), sharing the CPU time.
        func together(_ members: [Int], _ run: () -> [[PairRun]]) {
            let start = ThreadClock.now()
            for (k, runs) in run().enumerated() { out[members[k]] = outcomes(user, runs: runs) }
            let share = (ThreadClock.now() - start) / Double(members.count)
            for i in members { seconds[i] = share }
            grouped.formUnion(members)
        }
        // The runs of a group of `count` policies, policy-major, from `run`'s runs of each pair
        // (one per policy).
        func pairByPair(_ count: Int, _ run: (Int) -> [PairRun]) -> [[PairRun]] {
            var runs = [[PairRun]](repeating: [], count: count)
            for pair in user.pairs.indices {
                for (k, r) in run(pair).enumerated() { runs[k].append(r) }
            }
            return runs
        }
        for lead in leads {
            guard let members = groups[lead], members.count > 1 else { continue }
            let group = members.map { policies[$0] as! PredictivePolicy }
            together(members) {
                pairByPair(group.count) { PolicyRunner.run(predictive: group, pair: $0, of: user, settings: settings) }
            }
        }
        // Budgeted policies counting the same cost (fetches, or joules; two or more) share each
        // pair's learner.
        for joules in [false, true] {
            let members = policies.indices.filter {
                guard let b = policies[$0] as? BudgetedPolicy else { return false }
                if case .joules = b.budget { return joules }
                return !joules
            }
            guard members.count > 1 else { continue }
            let group = members.map { policies[$0] as! BudgetedPolicy }
            together(members) {
                pairByPair(group.count) { PolicyRunner.run(budgeted: group, pair: $0, of: user, settings: settings) }
            }
        }
        // Learned policies (two or more) share each pair's model.
        let learned = policies.indices.filter { policies[$0] is LearnedPolicy }
        if learned.count > 1 {
            let group = learned.map { policies[$0] as! LearnedPolicy }
            together(learned) { PolicyRunner.runLearned(group: group, user: user, settings: settings) }
        }
        // App-scope learned policies (two or more) share each pair's model.
        let appLearned = policies.indices.filter { policies[$0] is AppLearnedPolicy }
        if appLearned.count > 1 {
            let group = appLearned.map { policies[$0] as! AppLearnedPolicy }
            together(appLearned) {
                pairByPair(group.count) { PolicyRunner.run(appLearned: group, pair: $0, of: user, settings: settings) }
            }
        }
        for (i, policy) in policies.enumerated() where !grouped.contains(i) {
            let start = ThreadClock.now()
            out[i] = replay(user, policy: policy)
            seconds[i] = ThreadClock.now() - start
        }
        return out
    }
}

extension PolicyRunner {
    /// Predictive policies of one lead on one pair in one walk over the events they observe: what
    /// they learn (``UseSignals``) is learned once for all, and each policy has its own decider
    /// and platform state, told exactly what ``run(_:pair:of:settings:logSkips:everyEvent:)`` tells
    /// it alone, in the same order (a decider's timers before an event, an event at a timer's
    /// instant first). `everyEvent` shows them every usage event (the same outcome: for tests).
    static func run(
        predictive policies: [PredictivePolicy], pair index: Int, of user: UserSetup, settings: ReplaySettings,
        everyEvent: Bool = false
    ) -> [PairRun] {
        let pair = user.pairs[index]
        let info = self.info(pair: index, of: user)
        let plans = SharedPlans(floor: policies.map { PredictiveDecider.floor(of: $0) }.min() ?? 0)
        // One learner for all: its signals do not depend on what any of them fetched.
        var signals = PredictiveScheduler.signals(lead: policies[0].lead, pair: info)
        var deciders = policies.map { p in
            var d = PredictiveDecider(policy: p, pair: info)
            d.sharedPlans = plans
            return d
        }
        var states = policies.map { _ in RunState(pair: index, of: user, settings: settings) }
        var lastWakes = [Instant](repeating: .distantPast, count: policies.count)
        // What the group is shown: what any of them declared (the sequence estimate's other apps'
        // launches change no decision of the others: `SignalDeclarationTests`); each decider is
        // told the device's state only when it reads context.
        let union = policies.reduce(into: Set<PolicySignal>()) { $0.formUnion($1.signals) }
        let views = policies.map { SignalView(everyEvent ? Set(PolicySignal.allCases) : $0.signals, app: pair.app) }
        let events =
            everyEvent
            ? user.events
            : SignalView(union, app: pair.app).filter(user.events(PredictiveScheduler.observed, pair: index))
        let content = user.content[index]
        let end = user.window.end
        var u = 0
        var c = 0
        var cursor = 0
        // The earliest instant any decider would wake at (a wake it has not had yet), as of the
        // last time they were all visited: no decider wakes before it, so inputs before it (most
        // of them) skip the visit. `.min`: not known.
        var earliest = Instant.distantPast
        // The decider's next wake it has not had yet (`.max`: none).
        func pending(_ k: Int) -> Instant {
            guard let w = deciders[k].nextWake, w > lastWakes[k] else { return .distantFuture }
            return w
        }
        while true {
            let te = nextInput(events, u, content, c)
            if earliest <= end, te.map({ earliest < $0 }) ?? true {
                var next = Instant.distantFuture
                for k in deciders.indices {
                    while let tw = deciders[k].nextWake, tw > lastWakes[k], tw <= end, te.map({ tw < $0 }) ?? true {
                        lastWakes[k] = tw
                        let device = user.state(at: tw, cursor: &cursor)
                        if let r = deciders[k].wake(at: tw, state: views[k].state(device), signals: signals) {
                            let result = states[k].handle(r, at: tw, device: device)
                            states[k].record(deciders[k].statedProbability, result)
                            deciders[k].completed(result)
                        }
                    }
                    next = min(next, pending(k))
                }
                earliest = next
            }
            guard let t = te, t <= end else { break }
            let device = user.state(at: t, cursor: &cursor)
            if u < events.count, events[u].time == t, !(c < content.count && content[c] < t) {
                let event = events[u]
                u += 1
                let cold = event.kind == .launch && signals.isCold(at: t)
                signals.learn(event)
                let follow = signals.follow(event, cold: cold)
                var next = Instant.distantFuture
                for k in deciders.indices {
                    if event.app == pair.app { states[k].observe(event) }
                    if let r = deciders[k].observe(
                        event, cold: cold, follow: follow, state: views[k].state(device), signals: signals)
                    {
                        let result = states[k].handle(r, at: t, device: device)
                        states[k].record(deciders[k].statedProbability, result)
                        deciders[k].completed(result)
                    }
                    next = min(next, pending(k))
                }
                earliest = next
            } else {
                // A content update: the predictive schedulers do not read it.
                c += 1
            }
        }
        return states.map(\.run)
    }
}

extension PolicyRunner {
    /// Budgeted policies whose budgets count the same cost (all in fetches, or all in joules) on one
    /// pair in one walk: what they learn (``BudgetedLearner``) does not depend on what they fetched,
    /// and they are woken at the same slot starts, so one learner serves them all, and the slots
    /// that look better than the current one are summed once per wake. Each policy keeps its own
    /// spending and platform state, told what ``run(_:pair:of:settings:logSkips:everyEvent:)`` tells
    /// it alone, in the same order; the outcomes are those of replaying each alone.
    static func run(
        budgeted policies: [BudgetedPolicy], pair index: Int, of user: UserSetup, settings: ReplaySettings
    ) -> [PairRun] {
        guard let first = policies.first else { return [] }
        let info = self.info(pair: index, of: user)
        var learner = BudgetedLearner(budget: first.budget, pair: info)
        var spends = policies.map { BudgetSpend(budget: $0.budget) }
        var states = policies.map { _ in RunState(pair: index, of: user, settings: settings) }
        // Content updates change nothing for these schedulers nor their platform state.
        let events = user.appEvents[index]
        let end = user.window.end
        var wake = learner.firstWake(info)
        var u = 0
        var cursor = 0
        while true {
            let te = u < events.count ? events[u].time : nil
            if wake <= end, te.map({ wake < $0 }) ?? true {
                let t = wake
                wake = t + SlotHistogram.slotLength
                let device = user.state(at: t, cursor: &cursor)
                // Budgeted policies declare context (a fetch's cost now): the real state.
                let moment = learner.wake(at: t, state: device)
                var better: Double? = nil
                for k in spends.indices {
                    let request = spends[k].decide(moment) {
                        if let better { return better }
                        let b = learner.better(than: moment.benefit / moment.cost, after: moment.slot)
                        better = b
                        return b
                    }
                    if let r = request { spends[k].completed(states[k].handle(r, at: t, device: device)) }
                }
                continue
            }
            guard let t = te, t <= end else { break }
            let event = events[u]
            u += 1
            for k in states.indices { states[k].observe(event) }
            learner.observe(event)
        }
        return states.map(\.run)
    }
}

/// The time-of-day plans of predictive schedulers of one lead on one pair, replayed together:
/// they learn from the same events, so on a given day their signals are the same and their plans
/// differ only in the threshold. The greedy plan picks windows in order of falling probability and
/// stops below the threshold, so one plan made with the group's lowest threshold, cut at a
/// scheduler's own, is that scheduler's plan. Kept for the day it was made; checked against the
/// signals it was made from.
final class SharedPlans {
    let floor: Double
    private var day: Int? = nil
    private var coldCount = -1
    private var plan: [(minute: Int, p: Double)] = []

    init(floor: Double) { self.floor = floor }

    func plan(_ signals: UseSignals, day: Int, threshold: Double) -> [(minute: Int, p: Double)] {
        guard threshold >= floor, threshold <= 1 else { return signals.plan(day: day, threshold: threshold) }
        if self.day != day || coldCount != signals.coldBins.count {
            plan = signals.plan(day: day, threshold: floor)
            self.day = day
            coldCount = signals.coldBins.count
        }
        return threshold == floor ? plan : plan.filter { $0.p >= threshold }
    }
}
