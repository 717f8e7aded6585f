import FetchLabCore

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
        let n = user.pairs.count
        guard n > 0 else { return [] }
        var schedulers = (0..<n).map { LearnedScheduler(policy: policy, pair: info(pair: $0, of: user)) }
        var states = (0..<n).map { (p: Int) -> RunState in
            var state = RunState(pair: p, of: user, settings: settings)
            state.logSkips = logSkips
            return state
        }
        // One unit of cost for every pair: the user's mean Wi-Fi fetch (1 for a fetch budget).
        let unit = schedulers.reduce(0) { $0 + $1.wifiCost } / Double(n)
        for p in 0..<n { schedulers[p].costUnit = unit }
        var controller = SpendController(
            daily: schedulers.reduce(0) { $0 + $1.daily * $1.wifiCost } / unit, start: user.window.firstEvent)
        let events = user.events
        let end = user.window.end
        var u = 0
        var cursor = 0
        var wake = schedulers[0].nextWake
        while true {
            let te = u < events.count ? events[u].time : nil
            if let tw = wake, tw <= end, te.map({ tw < $0 }) ?? true {
                let device = user.state(at: tw, cursor: &cursor)
                for p in 0..<n {
                    let r = schedulers[p].wake(at: tw, state: device, controller: &controller)
                    if let q = schedulers[p].lastAsked { questions.asked(pair: p, at: tw, probability: q, atLaunch: false) }
                    if let r {
                        let result = states[p].handle(r, at: tw, device: device)
                        states[p].record(schedulers[p].statedProbability, result)
                        schedulers[p].completed(result, controller: &controller)
                    }
                }
                wake = tw + LearnedScheduler.timerStep
                continue
            }
            guard let t = te, t <= end else { break }
            let event = events[u]
            u += 1
            let device = user.state(at: t, cursor: &cursor)
            for p in 0..<n {
                if event.app == user.pairs[p].app { states[p].observe(event) }
                let r = schedulers[p].observe(event, state: device, controller: &controller)
                if let q = schedulers[p].lastAsked {
                    questions.asked(pair: p, at: t, probability: q, atLaunch: event.kind == .launch)
                }
                if let r {
                    let result = states[p].handle(r, at: t, device: device)
                    states[p].record(schedulers[p].statedProbability, result)
                    schedulers[p].completed(result, controller: &controller)
                }
            }
        }
        return states.map(\.run)
    }
}

/// Where a replay of the learned family tells each question its models were asked.
protocol QuestionLog {
    /// Pair `pair`'s model gave `probability` at `t`, asked at a launch of another app or not.
    mutating func asked(pair: Int, at t: Microseconds, probability: Double, atLaunch: Bool)
}

/// Keeps no question (a comparison's replay).
struct NoQuestionLog: QuestionLog {
    @inline(__always) mutating func asked(pair: Int, at t: Microseconds, probability: Double, atLaunch: Bool) {}
}
