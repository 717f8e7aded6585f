import FetchLabCore
import FetchLabResults

extension PolicyRunner {
    /// Runs one policy on every pair of a user: the learned family jointly
    /// (``runLearned(_:user:settings:logSkips:)``), every other policy pair by pair.
    static func runAll(
        _ policy: any FetchPolicy, user: UserSetup, settings: ReplaySettings, logSkips: Bool = false
    ) -> [PairRun] {
        if let learned = policy as? LearnedPolicy {
            return runLearned(learned, user: user, settings: settings, logSkips: logSkips)
        }
        return user.pairs.indices.map { run(policy, pair: $0, of: user, settings: settings, logSkips: logSkips) }
    }

    /// The learned family on all of a user's pairs in one event loop, their schedulers sharing one
    /// ``SpendController`` whose budget is the pairs' budgets together: a fetch of any app raises
    /// the one threshold, so the user's fetches go to the apps whose launches are likeliest (the
    /// user's budget shared as a Lagrangian shares it, not split among the apps in advance).
    /// Causal: the schedulers see the user's events in time order; each pair's requests pass its
    /// own platform gate. Every pair's timer ticks on the same quarter-hour grid; at an event or a
    /// tick the pairs decide in pair order. (Content updates are not shown: the family does not
    /// read them.)
    static func runLearned(
        _ policy: LearnedPolicy, user: UserSetup, settings: ReplaySettings, logSkips: Bool = false
    ) -> [PairRun] {
        var none = NoQuestionLog()
        return runLearned(policy, user: user, settings: settings, logSkips: logSkips, questions: &none)
    }

    /// ``runLearned(_:user:settings:logSkips:)``, telling `questions` every question a pair's
    /// model was asked (for ``LearnedModelEvaluation``).
    static func runLearned<Log: QuestionLog>(
        _ policy: LearnedPolicy, user: UserSetup, settings: ReplaySettings, logSkips: Bool, questions: inout Log
    ) -> [PairRun] {
        runLearned(group: [policy], user: user, settings: settings, logSkips: logSkips, questions: &questions)[0]
    }
}

/// Where a replay of the learned family tells each question its models were asked.
protocol QuestionLog {
    /// Pair `pair`'s model gave `probability` at `t`, asked at a launch of another app or not.
    mutating func asked(pair: Int, at t: Instant, probability: Double, atLaunch: Bool)
}

/// Keeps no question (a comparison's replay).
struct NoQuestionLog: QuestionLog {
    @inline(__always) mutating func asked(pair: Int, at t: Instant, probability: Double, atLaunch: Bool) {}
}

extension PolicyRunner {
    /// Learned policies (any budgets, cost-aware or not) on all of a user's pairs in one walk,
    /// sharing each pair's model: the model's questions, answers and learning do not depend on
    /// what any policy fetched (it is asked at every moment a policy may act and learns from
    /// launches alone), so one model per pair answers for every policy, and each policy's own
    /// controller, refreshes and platform state decide as in
    /// ``runLearned(_:user:settings:logSkips:)``. The outcomes are those of replaying each policy
    /// alone; the model's work is done once instead of once per policy. Policy-major.
    static func runLearned(group policies: [LearnedPolicy], user: UserSetup, settings: ReplaySettings) -> [[PairRun]] {
        var none = NoQuestionLog()
        return runLearned(group: policies, user: user, settings: settings, logSkips: false, questions: &none)
    }

    /// ``runLearned(group:user:settings:)``, logging skips when asked and telling `questions`
    /// every question a pair's model was asked.
    static func runLearned<Log: QuestionLog>(
        group policies: [LearnedPolicy], user: UserSetup, settings: ReplaySettings, logSkips: Bool,
        questions: inout Log
    ) -> [[PairRun]] {
        let n = user.pairs.count
        guard n > 0, !policies.isEmpty else { return policies.map { _ in [] } }
        let infos = (0..<n).map { info(pair: $0, of: user) }
        var schedulers = policies.map { policy in infos.map { LearnedScheduler(policy: policy, pair: $0) } }
        var models = schedulers[0].map(\.model)
        var states = policies.map { _ in
            (0..<n).map { (p: Int) -> RunState in
                var state = RunState(pair: p, of: user, settings: settings)
                state.logSkips = logSkips
                return state
            }
        }
        var controllers = schedulers.indices.map { k -> SpendController in
            let unit = schedulers[k].reduce(0) { $0 + $1.wifiCost } / Double(n)
            for p in 0..<n { schedulers[k][p].costUnit = unit }
            return SpendController(
                daily: schedulers[k].reduce(0) { $0 + $1.daily * $1.wifiCost } / unit, start: user.window.firstEvent)
        }
        let events = user.events
        let end = user.window.end
        var u = 0
        var cursor = 0
        var wake = schedulers[0][0].nextWake
        while true {
            let te = u < events.count ? events[u].time : nil
            if let tw = wake, tw <= end, te.map({ tw < $0 }) ?? true {
                let device = user.state(at: tw, cursor: &cursor)
                for p in 0..<n {
                    models[p].expire(before: tw)
                    decide(
                        .timer, app: -1, pair: p, at: tw, device: device, &models, &schedulers, &states, &controllers,
                        &questions)
                }
                wake = tw + LearnedScheduler.timerStep
                continue
            }
            guard let t = te, t <= end else { break }
            let event = events[u]
            u += 1
            let device = user.state(at: t, cursor: &cursor)
            for p in 0..<n {
                let own = event.app == user.pairs[p].app
                if own { for k in policies.indices { states[k][p].observe(event) } }
                switch LearnedScheduler.see(event, app: user.pairs[p].app, model: &models[p]) {
                case .ownLaunch:
                    for k in policies.indices { schedulers[k][p].launchedOwnApp(at: t, controller: &controllers[k]) }
                case .moment(let trigger):
                    decide(
                        trigger, app: event.app, pair: p, at: t, device: device, &models, &schedulers, &states,
                        &controllers, &questions)
                case .nothing:
                    break
                }
            }
        }
        return states.map { $0.map(\.run) }
    }

    /// One moment of a group's replay for pair `p`: the shared model asked once (when it is a
    /// question), then every policy advances its controller and chooses.
    private static func decide<Log: QuestionLog>(
        _ trigger: DecisionTrigger, app other: Int32, pair p: Int, at t: Instant, device: DeviceState,
        _ models: inout [NextUseModel], _ schedulers: inout [[LearnedScheduler]], _ states: inout [[RunState]],
        _ controllers: inout [SpendController], _ questions: inout Log
    ) {
        let asked = LearnedScheduler.asks(
            models[p], launchRefreshes: schedulers[0][p].launchRefreshes, tau: schedulers[0][p].tau, at: t)
        let answer = asked ? models[p].ask(trigger, app: other, at: t) : 0
        if asked { questions.asked(pair: p, at: t, probability: answer, atLaunch: trigger == .launch) }
        for k in controllers.indices {
            controllers[k].advance(to: t)
            // The device's state only for the cost-aware policies, which declare it (context).
            let shown = schedulers[k][p].costAware ? device : SignalView.neutral
            guard asked, let r = schedulers[k][p].choose(answer, at: t, state: shown, controller: &controllers[k])
            else { continue }
            let result = states[k][p].handle(r, at: t, device: device)
            states[k][p].record(schedulers[k][p].statedProbability, result)
            schedulers[k][p].completed(result, controller: &controllers[k])
        }
    }
}

extension PolicyRunner {
    /// App-scope learned policies (any budgets) on one pair in one walk, sharing the pair's model:
    /// each policy has its own scheduler, controller (an app's budget is its own) and platform
    /// state, told exactly what ``run(_:pair:of:settings:logSkips:everyEvent:)`` tells it alone, in
    /// the same order; the model's work is done once instead of once per budget.
    static func run(
        appLearned policies: [AppLearnedPolicy], pair index: Int, of user: UserSetup, settings: ReplaySettings
    ) -> [PairRun] {
        guard !policies.isEmpty else { return [] }
        let pair = user.pairs[index]
        let info = self.info(pair: index, of: user)
        var schedulers = policies.map {
            LearnedScheduler(policy: LearnedPolicy(budget: .fetches($0.budget)), pair: info)
        }
        // Each policy's controller, held apart from its scheduler so that it is changed in place
        // (a copy out and back would share, then copy, its pending fetches at every moment).
        var controllers = schedulers.map(\.controller)
        var model = schedulers[0].model
        var allocation = schedulers[0].allocation
        let (launchRefreshes, tau) = (schedulers[0].launchRefreshes, schedulers[0].tau)
        var states = policies.map { _ in RunState(pair: index, of: user, settings: settings) }
        let view = SignalView(policies[0].signals, app: pair.app)
        let events = view.filter(user.events(schedulers[0].observedEvents, pair: index))
        let end = user.window.end
        var u = 0
        var cursor = 0
        var wake = schedulers[0].nextWake
        // One moment for every policy: the model asked once, then each policy chooses under its
        // own controller (holding the pair's share, as a scheduler alone sets it at every call).
        func decide(_ trigger: DecisionTrigger, app other: Int32, at t: Instant, device: DeviceState) {
            let asked = LearnedScheduler.asks(model, launchRefreshes: launchRefreshes, tau: tau, at: t)
            let answer = asked ? model.ask(trigger, app: other, at: t) : 0
            let shown = view.state(device)
            for k in schedulers.indices {
                controllers[k].share = allocation.share
                controllers[k].advance(to: t)
                if asked, let r = schedulers[k].choose(answer, at: t, state: shown, controller: &controllers[k]) {
                    let result = states[k].handle(r, at: t, device: device)
                    states[k].record(schedulers[k].statedProbability, result)
                    schedulers[k].completed(result, controller: &controllers[k])
                }
            }
        }
        while true {
            let te = u < events.count ? events[u].time : nil
            if let tw = wake, tw <= end, te.map({ tw < $0 }) ?? true {
                wake = tw + LearnedScheduler.timerStep
                model.expire(before: tw)
                decide(.timer, app: -1, at: tw, device: user.state(at: tw, cursor: &cursor))
                continue
            }
            guard let t = te, t <= end else { break }
            let event = events[u]
            u += 1
            let device = user.state(at: t, cursor: &cursor)
            if event.app == pair.app { for k in states.indices { states[k].observe(event) } }
            if event.kind == .launch { allocation.launched(event.app, at: event.time) }
            switch LearnedScheduler.see(event, app: pair.app, model: &model) {
            case .ownLaunch:
                for k in schedulers.indices {
                    controllers[k].share = allocation.share
                    schedulers[k].launchedOwnApp(at: t, controller: &controllers[k])
                }
            case .moment(let trigger):
                decide(trigger, app: event.app, at: t, device: device)
            case .nothing:
                break
            }
        }
        return states.map(\.run)
    }
}
