import FetchLabCore

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
    public var launches: [Microseconds]
    /// The user's t0, S, E and clock.
    public var window: UserWindow
    /// The rules of the replay.
    public var evaluation: EvaluationProtocol

    public init(
        history: UserHistory, app: Int32, launches: [Microseconds], window: UserWindow, evaluation: EvaluationProtocol
    ) {
        self.history = history
        self.app = app
        self.launches = launches
        self.window = window
        self.evaluation = evaluation
    }

    /// Whether the launch at index `i` is fresh at τ given the last fetch at or before it
    /// (and the previous launch when launches refresh).
    func isFresh(_ i: Int, lastFetch: Microseconds?, tau: Microseconds) -> Bool {
        let t = launches[i]
        if let f = lastFetch, f <= t, t - f <= tau { return true }
        if evaluation.launchRefreshes, i > 0, t - launches[i - 1] <= tau { return true }
        return false
    }
}

/// A background-fetch policy: when to fetch one app of one user.
public protocol FetchPolicy: Sendable {
    /// The canonical name, as the registry parses it back: `fixed(1h)`, `budget-oracle(4)`.
    var name: String { get }
    /// The family: `never`, `fixed`, `oracle`, `budget-oracle`.
    var family: String { get }
    /// The numeric parameters (`interval_minutes`, `k`).
    var parameters: [String: Double] { get }
    /// One line for people.
    var summary: String { get }
    /// Knows the future launches (an upper bound, not a deployable policy).
    var isClairvoyant: Bool { get }
    /// The fetch times for a pair, ascending. Fetches outside [S, E] may refresh but are not counted.
    func fetchTimes(for pair: PairContext) -> [Microseconds]
}

extension FetchPolicy {
    public var parameters: [String: Double] { [:] }
    public var isClairvoyant: Bool { false }
}
