import FetchLabCore
import FetchLabResults

/// The settings of a replay beyond the evaluation protocol: the platform, the cost model and the
/// context defaults.
public struct ReplaySettings: Sendable, Hashable, Codable {
    public var platform = PlatformModel()
    public var cost = CostModel()
    public var context = ContextDefaults()

    public init(
        platform: PlatformModel = PlatformModel(), cost: CostModel = CostModel(),
        context: ContextDefaults = ContextDefaults()
    ) {
        self.platform = platform
        self.cost = cost
        self.context = context
    }
}

/// A fetch that ran (granted, or expired after spending its budget), with the device state then.
public struct DoneFetch: Sendable, Hashable {
    public var time: Instant
    public var expired: Bool
    public var state: DeviceState
}

/// What the platform made of one policy's requests on one pair.
public struct PairRun: Sendable {
    /// Fetches that ran, ascending.
    public var fetches: [DoneFetch] = []
    /// Requests refused or expired in [S, E], by `SkipReason` (indexed as `allCases`).
    public var skips = [Int](repeating: 0, count: SkipReason.allCases.count)
    /// The probability the policy stated for each granted fetch in [S, E] (time, p).
    public var stated: [(time: Instant, p: Double)] = []
    /// Every refusal with its time, when asked for (traces).
    public var skipLog: [(time: Instant, reason: SkipReason)] = []
}

/// Everything about one user the policies' replays share: built once per user.
struct UserSetup: Sendable {
    var history: UserHistory
    var window: UserWindow
    var pairs: [PairContext]
    /// The user's usage events (launches, closes, force-quits, refresh switches), in time order.
    var events: [UsageEvent]
    /// Per evaluated pair: the app's own usage events, and its content updates, in time order.
    var appEvents: [[UsageEvent]]
    var content: [[Instant]]
    var timeline: ContextTimeline
    /// The context as stretches of constant state: `stretchStarts[i]` begins `stretchStates[i]`
    /// (the first stretch starts at `Instant.distantPast`).
    var stretchStarts: [Instant]
    var stretchStates: [DeviceState]

    /// Per evaluated pair: the duration and size of one fetch of its app.
    var fetchCosts: [AppFetchCost]
    /// Per evaluated pair, per launch: how many of the app's content updates are at or before it
    /// (the newest is `content[p][n - 1]`), found once for all the policies that score the pair.
    var contentCounts: [[Int32]]

    init(
        history: UserHistory, window: UserWindow, evaluation: EvaluationProtocol, context: ContextDefaults,
        cost: CostModel = CostModel()
    ) {
        self.history = history
        self.window = window
        var launchesByApp = [[Instant]](repeating: [], count: history.apps.count)
        for l in history.launches where Int(l.app) < launchesByApp.count { launchesByApp[Int(l.app)].append(l.time) }
        let apps = evaluation.evaluatedApps(of: history)
        pairs = apps.map { app in
            PairContext(
                history: history, app: app, launches: launchesByApp[Int(app)], window: window, evaluation: evaluation)
        }
        events = history.allEvents
        var byApp = [[UsageEvent]](repeating: [], count: history.apps.count)
        for e in events where Int(e.app) < byApp.count { byApp[Int(e.app)].append(e) }
        appEvents = apps.map { byApp[Int($0)] }
        fetchCosts = apps.map { cost.fetch(of: history.apps[Int($0)].name) }
        content = apps.map { history.updateTimes[Int($0)] }
        contentCounts = zip(pairs, content).map { Replay.contentCounts(launches: $0.launches, content: $1) }
        timeline = ContextTimeline(samples: history.context, defaults: context)
        var points = timeline.changePoints()
        points.sort()
        var times: [Instant] = [.distantPast]
        times.reserveCapacity(points.count + 1)
        for (i, t) in points.enumerated() where i == 0 || points[i - 1] != t { times.append(t) }
        var starts: [Instant] = []
        var states: [DeviceState] = []
        for (t, s) in zip(times, timeline.states(at: times)) where states.last != s {
            starts.append(t)
            states.append(s)
        }
        stretchStarts = starts
        stretchStates = states
    }

    /// The usage events a scheduler of pair `index` that acts on `observed` is shown. (The
    /// launches with the app's events are picked out when asked for, once per replay of a pair:
    /// a set-up kept for every pair would cost the policies that never ask for it.)
    func events(_ observed: ObservedEvents, pair index: Int) -> [UsageEvent] {
        switch observed {
        case .all: return events
        case .ownApp: return appEvents[index]
        case .ownAppAndLaunches:
            let app = pairs[index].app
            return events.filter { $0.app == app || $0.kind == .launch }
        }
    }

    /// The device state at `t` (one binary search).
    @inline(__always) func state(at t: Instant) -> DeviceState {
        stretchStates[stretch(at: t)]
    }

    /// The index of the stretch holding `t`.
    func stretch(at t: Instant) -> Int { stretchStarts.count(upTo: t) - 1 }

    /// ``state(at:)`` for times that mostly move forward: `cursor` (the stretch of the previous
    /// call) is tried and stepped a few stretches on before falling back to a binary search.
    @inline(__always) func state(at t: Instant, cursor i: inout Int) -> DeviceState {
        let n = stretchStarts.count
        if i < n, stretchStarts[i] <= t {
            var j = i
            while j + 1 < n, stretchStarts[j + 1] <= t, j - i < 4 { j += 1 }
            if j + 1 == n || t < stretchStarts[j + 1] {
                i = j
                return stretchStates[j]
            }
        }
        i = stretch(at: t)
        return stretchStates[i]
    }
}

/// Runs one policy on one pair: asks it for fetches (planned, or event by event for a causal
/// policy) and passes each request through the platform.
enum PolicyRunner {
    /// Runs `policy` on pair `index` of `user`, its scheduler shown only the signals the policy
    /// declares (`SignalView`). `everyEvent` shows its scheduler every usage event, every content
    /// update and the device's real state, whatever it observes and declares (the same outcome,
    /// more slowly, when the declaration is complete: for tests).
    static func run(
        _ policy: any FetchPolicy, pair index: Int, of user: UserSetup, settings: ReplaySettings,
        logSkips: Bool = false,
        everyEvent: Bool = false
    ) -> PairRun {
        let pair = user.pairs[index]
        let info = self.info(pair: index, of: user)
        var state = RunState(pair: index, of: user, settings: settings)
        state.logSkips = logSkips
        if settings.platform.kind == .ios, let floor = policy.requestedMinimumInterval(for: info) {
            // The app asked for a minimum interval: iOS decides when it runs. The system's
            // scheduler runs it (it reads what the system sees of the app's own use); what it ran
            // is the outcome. The app asked for nothing at the interval's ticks, so nothing the
            // system did not run is a refused request: only its fetches count.
            let model = settings.platform.systemScheduler(minimumInterval: floor)
            let system = IOSAdaptiveScheduler(info, policy: model)
            drive(
                system, view: SignalView(model.signals, app: pair.app), user: user, pair: pair, index: index,
                state: &state, everyEvent: everyEvent)
            state.run.skips = state.run.skips.map { _ in 0 }
            state.run.skipLog = []
            return state.run
        }
        let view = SignalView(policy.signals, app: pair.app)
        if let scheduler = policy.makeScheduler(info) {
            // The common schedulers by their own type (a specialised loop); the others through
            // the opened existential (no box to project or keep unique at every call).
            if let s = scheduler as? PredictiveScheduler {
                drive(s, view: view, user: user, pair: pair, index: index, state: &state, everyEvent: everyEvent)
            } else if let s = scheduler as? LearnedScheduler {
                drive(s, view: view, user: user, pair: pair, index: index, state: &state, everyEvent: everyEvent)
            } else if let s = scheduler as? IOSAdaptiveScheduler {
                drive(s, view: view, user: user, pair: pair, index: index, state: &state, everyEvent: everyEvent)
            } else if let s = scheduler as? WorkManagerScheduler {
                drive(s, view: view, user: user, pair: pair, index: index, state: &state, everyEvent: everyEvent)
            } else {
                drive(
                    scheduler, view: view, user: user, pair: pair, index: index, state: &state, everyEvent: everyEvent)
            }
        } else if settings.platform.kind == .none {
            // Nothing can refuse: every planned time runs (the fast path of fixed and oracles).
            // The times ascend, so the device state is found stepping on from the last one.
            var cursor = 0
            state.run.fetches = policy.fetchTimes(for: view.planned(pair, reveal: everyEvent)).map {
                DoneFetch(time: $0, expired: false, state: user.state(at: $0, cursor: &cursor))
            }
        } else {
            let appEvents = user.appEvents[index]
            var e = 0
            var cursor = 0
            for t in policy.fetchTimes(for: view.planned(pair, reveal: everyEvent)) {
                while e < appEvents.count, appEvents[e].time <= t {
                    state.observe(appEvents[e])
                    e += 1
                }
                _ = state.handle(FetchRequest.fetch, at: t, device: user.state(at: t, cursor: &cursor))
            }
        }
        return state.run
    }

    /// What a scheduler is told about pair `index` of `user`.
    static func info(pair index: Int, of user: UserSetup) -> PairInfo {
        let pair = user.pairs[index]
        return PairInfo(
            app: pair.app, appName: user.history.apps[Int(pair.app)], appCount: user.history.apps.count,
            offset: user.window.offset, firstEvent: user.window.firstEvent, scoredStart: user.window.start,
            evaluation: pair.evaluation, hasContentUpdates: !user.content[index].isEmpty,
            fetchDuration: user.fetchCosts[index].duration)
    }

    /// The time of the next usage event (`events[u]`) or content update (`content[c]`), nil when
    /// both are used up.
    @inline(__always) static func nextInput(
        _ events: [UsageEvent], _ u: Int, _ content: [Instant], _ c: Int
    ) -> Instant? {
        switch (u < events.count, c < content.count) {
        case (true, true): min(events[u].time, content[c])
        case (true, false): events[u].time
        case (false, true): content[c]
        case (false, false): nil
        }
    }

    /// The event loop of a causal policy: the user's usage events that the scheduler observes
    /// (every one with `everyEvent`) and this app's content updates in time order, the scheduler's
    /// timers between them (an event and a timer at the same instant: the event first), up to E.
    static func drive<S: FetchScheduler>(
        _ scheduler: S, view: SignalView, user: UserSetup, pair: PairContext, index: Int, state: inout RunState,
        everyEvent: Bool = false
    ) {
        var scheduler = scheduler
        let events = everyEvent ? user.events : view.filter(user.events(scheduler.observedEvents, pair: index))
        let content = everyEvent ? user.content[index] : view.content(user.content[index])
        let shows = everyEvent ? SignalView(Set(PolicySignal.allCases), app: pair.app) : view
        let end = user.window.end
        var u = 0
        var c = 0
        var lastWake = Instant.distantPast
        var cursor = 0
        while true {
            let te = nextInput(events, u, content, c)
            if let tw = scheduler.nextWake, tw > lastWake, tw <= end, te.map({ tw < $0 }) ?? true {
                lastWake = tw
                let device = user.state(at: tw, cursor: &cursor)
                if let r = scheduler.wake(at: tw, state: shows.state(device)) {
                    let result = state.handle(r, at: tw, device: device)
                    state.record(scheduler.statedProbability, result)
                    scheduler.completed(result)
                }
                continue
            }
            guard let t = te, t <= end else { break }
            let device = user.state(at: t, cursor: &cursor)
            if u < events.count, events[u].time == t, !(c < content.count && content[c] < t) {
                let event = events[u]
                u += 1
                if event.app == pair.app { state.observe(event) }
                if let r = scheduler.observe(event, state: shows.state(device)) {
                    let result = state.handle(r, at: t, device: device)
                    state.record(scheduler.statedProbability, result)
                    scheduler.completed(result)
                }
            } else {
                let update = ContentUpdate(time: content[c], app: pair.app, utcOffset: user.window.offset)
                c += 1
                if let r = scheduler.observe(update, state: shows.state(device)) {
                    let result = state.handle(r, at: t, device: device)
                    state.record(scheduler.statedProbability, result)
                    scheduler.completed(result)
                }
            }
        }
    }

    /// One pair's replay state: the platform gate, the last refresh, the fetches so far.
    struct RunState {
        var gate: PlatformGate
        let window: UserWindow
        let content: [Instant]
        let duration: Microseconds
        let launchRefreshes: Bool
        var run = PairRun()
        /// Keep every refusal with its time (for a trace).
        var logSkips = false
        var lastRefresh: Instant? = nil
        var contentIndex = 0

        /// The state of a replay of pair `index` of `user` under `settings`.
        init(pair index: Int, of user: UserSetup, settings: ReplaySettings) {
            self.init(
                gate: PlatformGate(model: settings.platform, offset: user.window.offset), window: user.window,
                content: user.content[index], duration: user.fetchCosts[index].duration,
                launchRefreshes: user.pairs[index].evaluation.launchRefreshes)
        }

        init(
            gate: PlatformGate, window: UserWindow, content: [Instant], duration: Microseconds,
            launchRefreshes: Bool
        ) {
            self.gate = gate
            self.window = window
            self.content = content
            self.duration = duration
            self.launchRefreshes = launchRefreshes
        }

        /// Keeps a granted fetch's stated probability (scored span only).
        mutating func record(_ p: Double?, _ result: FetchResult) {
            guard let p, result.decision == .granted, window.isScored(result.time) else { return }
            run.stated.append((result.time, p))
        }

        mutating func observe(_ event: UsageEvent) {
            gate.observe(event)
            if event.kind == .launch, launchRefreshes { lastRefresh = event.time }
        }

        mutating func handle(_ request: FetchRequest, at t: Instant, device: DeviceState) -> FetchResult {
            let decision = gate.decide(request, at: t, state: device, duration: duration)
            var newData: Bool? = nil
            switch decision {
            case .refused(let reason):
                if window.isScored(t) { run.skips[SkipReason.allCases.firstIndex(of: reason)!] += 1 }
                if logSkips { run.skipLog.append((t, reason)) }
            case .expired:
                if window.isScored(t) { run.skips[SkipReason.allCases.firstIndex(of: .expired)!] += 1 }
                run.fetches.append(DoneFetch(time: t, expired: true, state: device))
            case .granted:
                run.fetches.append(DoneFetch(time: t, expired: false, state: device))
                if !content.isEmpty {
                    // newData: content appeared after the last refresh, up to now.
                    while contentIndex < content.count, content[contentIndex] <= t { contentIndex += 1 }
                    let latest = contentIndex > 0 ? content[contentIndex - 1] : nil
                    newData = latest.map { u in lastRefresh.map { u > $0 } ?? true } ?? false
                }
                lastRefresh = t
            }
            return FetchResult(time: t, request: request, decision: decision, newData: newData)
        }
    }
}
