import FetchLabCore

/// One user's local day under each policy, for the report's timeline: the launches (fresh or
/// not), the fetches (useful, wasted, expired), the refused fetches with their reason, and the
/// device context over the day. Times are UTC microseconds; `start` is the local midnight.
public struct DayTrace: Codable, Sendable, Hashable {
    public var user: String
    /// The local day, `YYYY-MM-DD`.
    public var day: String
    /// The UTC offset of the user's clock, seconds.
    public var utcOffset: Int32
    /// The local midnight starting the day, and the next one.
    public var start: Microseconds
    public var end: Microseconds
    /// Why this user and day: "chosen" (asked for) or "representative" (how it was picked).
    public var choice: String
    /// The evaluated apps of the user, in the order `app` indexes below.
    public var apps: [String]
    /// The device context over the day: stretches of constant state.
    public var context: [ContextStretch]
    /// One entry per policy of the report, in the report's order.
    public var policies: [PolicyDay]
    /// True when the user had no context samples, so `context` is the assumed defaults
    /// (``ComparisonSettings/contextDefaults``), not observed. Encoded only when true (a run
    /// stored without it reads as false).
    public var assumedContext: Bool

    public init(
        user: String, day: String, utcOffset: Int32, start: Microseconds, end: Microseconds, choice: String,
        apps: [String], context: [ContextStretch], policies: [PolicyDay], assumedContext: Bool = false
    ) {
        self.user = user
        self.day = day
        self.utcOffset = utcOffset
        self.start = start
        self.end = end
        self.choice = choice
        self.apps = apps
        self.context = context
        self.policies = policies
        self.assumedContext = assumedContext
    }

    enum CodingKeys: String, CodingKey {
        case user, day, utcOffset = "utc_offset", start, end, choice, apps, context, policies
        case assumedContext = "assumed_context"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(user, forKey: .user)
        try c.encode(day, forKey: .day)
        try c.encode(utcOffset, forKey: .utcOffset)
        try c.encode(start, forKey: .start)
        try c.encode(end, forKey: .end)
        try c.encode(choice, forKey: .choice)
        try c.encode(apps, forKey: .apps)
        try c.encode(context, forKey: .context)
        try c.encode(policies, forKey: .policies)
        if assumedContext { try c.encode(true, forKey: .assumedContext) }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        user = try c.decode(String.self, forKey: .user)
        day = try c.decode(String.self, forKey: .day)
        utcOffset = try c.decode(Int32.self, forKey: .utcOffset)
        start = try c.decode(Microseconds.self, forKey: .start)
        end = try c.decode(Microseconds.self, forKey: .end)
        choice = try c.decode(String.self, forKey: .choice)
        apps = try c.decode([String].self, forKey: .apps)
        context = try c.decode([ContextStretch].self, forKey: .context)
        policies = try c.decode([PolicyDay].self, forKey: .policies)
        assumedContext = try c.decodeIfPresent(Bool.self, forKey: .assumedContext) ?? false
    }
}

/// The device state from `start` (inclusive) to `end` (exclusive).
public struct ContextStretch: Codable, Sendable, Hashable {
    public var start: Microseconds
    public var end: Microseconds
    public var battery: Double
    public var charging: Bool
    /// Encoded by its name: `wifi`, `cellular` or `none`.
    public var network: NetworkType
    public var lowPower: Bool

    public init(
        start: Microseconds, end: Microseconds, battery: Double, charging: Bool, network: NetworkType, lowPower: Bool
    ) {
        self.start = start
        self.end = end
        self.battery = battery
        self.charging = charging
        self.network = network
        self.lowPower = lowPower
    }

    enum CodingKeys: String, CodingKey {
        case start, end, battery, charging, network, lowPower = "low_power"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(start, forKey: .start)
        try c.encode(end, forKey: .end)
        try c.encode(battery, forKey: .battery)
        try c.encode(charging, forKey: .charging)
        try c.encode(network.name, forKey: .network)
        try c.encode(lowPower, forKey: .lowPower)
    }

    /// A name no reader knows (a run stored by a later FetchLab) reads as `none`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        start = try c.decode(Microseconds.self, forKey: .start)
        end = try c.decode(Microseconds.self, forKey: .end)
        battery = try c.decode(Double.self, forKey: .battery)
        charging = try c.decode(Bool.self, forKey: .charging)
        network = NetworkType(name: try c.decode(String.self, forKey: .network)) ?? .none
        lowPower = try c.decode(Bool.self, forKey: .lowPower)
    }
}

/// One policy's day for the traced user.
public struct PolicyDay: Codable, Sendable, Hashable {
    public var name: String
    public var launches: [TracedLaunch]
    public var fetches: [TracedFetch]
    public var skips: [TracedSkip]

    public init(name: String, launches: [TracedLaunch], fetches: [TracedFetch], skips: [TracedSkip]) {
        self.name = name
        self.launches = launches
        self.fetches = fetches
        self.skips = skips
    }
}

public struct TracedLaunch: Codable, Sendable, Hashable {
    public var time: Microseconds
    /// Index into ``DayTrace/apps``.
    public var app: Int
    /// Fresh at the primary τ.
    public var fresh: Bool
    /// Minutes since the last refresh (nil: never refreshed).
    public var stalenessMinutes: Double?

    public init(time: Microseconds, app: Int, fresh: Bool, stalenessMinutes: Double?) {
        self.time = time
        self.app = app
        self.fresh = fresh
        self.stalenessMinutes = stalenessMinutes
    }

    enum CodingKeys: String, CodingKey { case time, app, fresh, stalenessMinutes = "staleness_min" }
}

public struct TracedFetch: Codable, Sendable, Hashable {
    public var time: Microseconds
    public var app: Int
    /// `useful` (made a launch fresh that the previous launch alone would not have), `wasted`
    /// (superseded before any launch), `used` (a launch came, but not within τ or already fresh),
    /// or `expired` (ran out of its budget).
    public var outcome: String

    public init(time: Microseconds, app: Int, outcome: String) {
        self.time = time
        self.app = app
        self.outcome = outcome
    }
}

public struct TracedSkip: Codable, Sendable, Hashable {
    public var time: Microseconds
    public var app: Int
    public var reason: SkipReason

    public init(time: Microseconds, app: Int, reason: SkipReason) {
        self.time = time
        self.app = app
        self.reason = reason
    }
}
