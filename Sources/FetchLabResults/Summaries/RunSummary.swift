import FetchLabCore

/// A stored run, as `fetchlab runs` lists it.
public struct RunSummary: Sendable, Hashable, Codable {
    public var id: Int64
    /// ISO-8601 UTC.
    public var createdAt: String
    /// The command that ran it: `compare`, `demo`.
    public var command: String
    public var fetchlabVersion: String?
    public var policies: Int
    public var users: Int
    public var pairs: Int
    public var scoredLaunches: Int
    /// The primary τ (JSON `tau_minutes`); whether a launch refreshed its app; the platform model
    /// (`none`, `ios`, `android`).
    @InMinutes public var tau: Microseconds
    public var launchRefreshes: Bool
    public var platform: String

    enum CodingKeys: String, CodingKey {
        case id, createdAt = "created_at", command, fetchlabVersion = "fetchlab_version", policies, users, pairs
        case scoredLaunches = "scored_launches", tau = "tau_minutes", launchRefreshes = "launch_refreshes"
        case platform
    }

    public init(
        id: Int64, createdAt: String, command: String, fetchlabVersion: String?, policies: Int, users: Int, pairs: Int,
        scoredLaunches: Int, tau: Microseconds = 15 * .perMinute, launchRefreshes: Bool = true,
        platform: String = "none"
    ) {
        self.tau = tau
        self.launchRefreshes = launchRefreshes
        self.platform = platform
        self.id = id
        self.createdAt = createdAt
        self.command = command
        self.fetchlabVersion = fetchlabVersion
        self.policies = policies
        self.users = users
        self.pairs = pairs
        self.scoredLaunches = scoredLaunches
    }
}

/// A stored tuning run, as `fetchlab runs` lists it.
public struct TuningRunSummary: Sendable, Hashable, Codable {
    public var id: Int64
    /// ISO-8601 UTC.
    public var createdAt: String
    public var fetchlabVersion: String?
    public var family: String
    public var method: String
    public var objective: String
    /// Settings tried, over all folds.
    public var settings: Int
    /// The last fold's choice, and its best fixed interval.
    public var chosen: String
    public var bestFixed: String?

    enum CodingKeys: String, CodingKey {
        case id, createdAt = "created_at", fetchlabVersion = "fetchlab_version", family, method, objective, settings
        case chosen, bestFixed = "best_fixed"
    }

    public init(
        id: Int64, createdAt: String, fetchlabVersion: String?, family: String, method: String, objective: String,
        settings: Int, chosen: String, bestFixed: String?
    ) {
        self.id = id
        self.createdAt = createdAt
        self.fetchlabVersion = fetchlabVersion
        self.family = family
        self.method = method
        self.objective = objective
        self.settings = settings
        self.chosen = chosen
        self.bestFixed = bestFixed
    }
}
