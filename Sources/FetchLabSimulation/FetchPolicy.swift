import FetchLabCore
import FetchLabResults

/// What a policy is given for one (user, app) pair.
///
/// A causal policy must decide a fetch at time t from what happened before t only (for example
/// `history.before(t)`); the clairvoyant ones (``FetchPolicy/isClairvoyant``) may read the future.
public struct PairContext: Sendable {
    /// The user's whole history.
    public var history: UserHistory
    /// The app, an index into `history.apps`.
    public var app: Int32
    /// This app's launch times, ascending.
    public var launches: [Instant]
    /// The user's t0, S, E and clock.
    public var window: UserWindow
    /// The rules of the replay.
    public var evaluation: EvaluationProtocol

    public init(
        history: UserHistory, app: Int32, launches: [Instant], window: UserWindow, evaluation: EvaluationProtocol
    ) {
        self.history = history
        self.app = app
        self.launches = launches
        self.window = window
        self.evaluation = evaluation
    }

    /// Whether the launch at index `i` is fresh at τ given the last fetch at or before it
    /// (and the previous launch when launches refresh).
    func isFresh(_ i: Int, lastFetch: Instant?, tau: Microseconds) -> Bool {
        let t = launches[i]
        if let f = lastFetch, f <= t, t - f <= tau { return true }
        if evaluation.launchRefreshes, i > 0, t - launches[i - 1] <= tau { return true }
        return false
    }
}

/// What a causal policy knows of its pair when the replay starts: which app, the user's clock and
/// the rules, never a launch. Everything else it learns through ``FetchScheduler`` calls, in time
/// order, as it happens.
public struct PairInfo: Sendable {
    /// The app, an index into the user's apps (the `app` of the events the scheduler is shown).
    public var app: Int32
    public var appName: AppID
    /// How many apps the user's history names.
    public var appCount: Int
    /// The UTC offset of the user's clock (local days, time of day).
    public var offset: Int32
    /// t0, the user's first event: the replay starts there.
    public var firstEvent: Instant
    /// S, the first scored instant.
    public var scoredStart: Instant
    public var evaluation: EvaluationProtocol
    /// Whether this app's content updates are known (and shown to the scheduler).
    public var hasContentUpdates: Bool
    /// How long a fetch of this app takes.
    public var fetchDuration: Microseconds

    public init(
        app: Int32, appName: AppID, appCount: Int, offset: Int32, firstEvent: Instant, scoredStart: Instant,
        evaluation: EvaluationProtocol, hasContentUpdates: Bool, fetchDuration: Microseconds
    ) {
        self.app = app
        self.appName = appName
        self.appCount = appCount
        self.offset = offset
        self.firstEvent = firstEvent
        self.scoredStart = scoredStart
        self.evaluation = evaluation
        self.hasContentUpdates = hasContentUpdates
        self.fetchDuration = fetchDuration
    }
}

/// What became of a request.
public struct FetchResult: Sendable, Hashable {
    public var time: Instant
    public var request: FetchRequest
    public var decision: PlatformDecision
    /// For a granted fetch when the app's content updates are known: whether content newer than
    /// the last refresh existed (`newData`) or not (`noData`); nil when unknown or not granted.
    public var newData: Bool?

    public init(time: Instant, request: FetchRequest, decision: PlatformDecision, newData: Bool?) {
        self.time = time
        self.request = request
        self.decision = decision
        self.newData = newData
    }
}

/// A causal policy's state for one pair, driven by the replay: it is shown the user's usage events
/// it observes (``observedEvents``; by default every event of every app: launches, closes,
/// force-quits, refresh switches) and its app's content updates, in time order, at the moment each
/// happens, and woken at the times it asks for. Each call may ask for a fetch (or a push) at that
/// moment; the platform's answer comes back through ``completed(_:)``. It is never shown anything
/// later than the moment of the call.
public protocol FetchScheduler {
    /// The usage events this scheduler acts on. The replay shows it only these, so a scheduler
    /// must ignore every other event (its `observe` would return nil and change nothing): the
    /// outcome is then the same as if it were shown them all, without the walk over them.
    var observedEvents: ObservedEvents { get }
    /// When to be woken next (nil: only on events). Read after every call; a time not after the
    /// last wake is not delivered.
    var nextWake: Instant? { get }
    /// A usage event of any of the user's apps happened (with the device state at that moment).
    mutating func observe(_ event: UsageEvent, state: DeviceState) -> FetchRequest?
    /// New content for this app appeared on the server.
    mutating func observe(_ update: ContentUpdate, state: DeviceState) -> FetchRequest?
    /// The timer asked for fired.
    mutating func wake(at time: Instant, state: DeviceState) -> FetchRequest?
    /// The platform's answer to the request just made.
    mutating func completed(_ result: FetchResult)
    /// The probability the policy stated for the fetch just asked for: that the app is launched
    /// within τ after it (nil: the policy states none). Read right after a call that asked.
    var statedProbability: Double? { get }
}

/// Which of a user's usage events a ``FetchScheduler`` acts on. Every selection holds the pair's
/// own app's events (the platform's state follows them).
public enum ObservedEvents: Sendable, Hashable {
    /// Every event of every app.
    case all
    /// The events of the pair's app.
    case ownApp
    /// The events of the pair's app, and the launches of every app.
    case ownAppAndLaunches
}

extension FetchScheduler {
    public var observedEvents: ObservedEvents { .all }
    public mutating func observe(_ update: ContentUpdate, state: DeviceState) -> FetchRequest? { nil }
    public mutating func completed(_ result: FetchResult) {}
    public var statedProbability: Double? { nil }
}

/// A background-fetch policy: when to fetch one app of one user. A policy either plans every
/// fetch time at once (``fetchTimes(for:)``: fixed intervals from t0, and the clairvoyant oracles,
/// which read the future) or, causal by construction, makes a ``FetchScheduler`` that learns only
/// what the replay shows it (``makeScheduler(_:)``).
public protocol FetchPolicy: Sendable {
    /// The canonical name, as the registry parses it back: `fixed(1h)`, `budget-oracle(4)`.
    var name: String { get }
    /// The family: `never`, `fixed`, `oracle`, `budget-oracle`, `predictive`, …
    var family: String { get }
    /// The numeric parameters (`interval_minutes`, `k`).
    var parameters: [String: Double] { get }
    /// One line for people.
    var summary: String { get }
    /// How the figures treat it: `never` the floor, `fixed` the baseline, the oracles read the
    /// future (``isClairvoyant``: an upper bound, not a deployable policy), every other family is
    /// read at each budget. The replay carries it into the policy's result.
    var role: PolicyRole { get }
    /// The signals it reads (DOMAIN.md, "Who deploys a policy"), and so who can run it
    /// (``scope``). Declared by every policy, and enforced: the replay shows a scheduler only what
    /// its policy declared (`SignalView`); a test replays every policy with and without the
    /// undeclared signals hidden and finds the same decisions.
    var signals: Set<PolicySignal> { get }
    /// The planned fetch times for a pair, ascending (each still goes through the platform).
    /// Fetches outside [S, E] may refresh but are not counted.
    func fetchTimes(for pair: PairContext) -> [Instant]
    /// The scheduler of a causal policy for one pair; nil for a planned policy.
    func makeScheduler(_ pair: PairInfo) -> (any FetchScheduler)?
    /// Works only with content-update data (silent push).
    var needsContentUpdates: Bool { get }
    /// Does nothing without notification events (notification-refresh): left out of the standard
    /// set when the data holds none.
    var needsNotifications: Bool { get }
    /// The minimum interval this policy asks the platform for on the pair's app when what it asks
    /// for is a floor, not a fetch at each of its times (`fixed(T)`:
    /// `setMinimumBackgroundFetchInterval(T)`); nil when it asks for each fetch itself. A platform
    /// whose own scheduler decides (iOS) replays such a request through that scheduler.
    func requestedMinimumInterval(for pair: PairInfo) -> Microseconds?
}

extension FetchPolicy {
    /// Who can run it: an app team, an OS team, or nobody (a clairvoyant bound).
    public var scope: PolicyScope { PolicyScope(signals: signals) }
    public var parameters: [String: Double] { [:] }
    public var role: PolicyRole { .family }
    /// Knows the future launches (an upper bound, not a deployable policy): its ``role`` reads the future.
    public var isClairvoyant: Bool { role.readsFuture }
    public func fetchTimes(for pair: PairContext) -> [Instant] { [] }
    public func makeScheduler(_ pair: PairInfo) -> (any FetchScheduler)? { nil }
    public var needsContentUpdates: Bool { false }
    public var needsNotifications: Bool { false }
    public func requestedMinimumInterval(for pair: PairInfo) -> Microseconds? { nil }
}
