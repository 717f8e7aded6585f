import FetchLabCore

/// One user's local day under each policy, for the report's timeline: the launches (fresh or
/// not), the fetches (useful, wasted, expired), the refused fetches with their reason, and the
/// device context over the day. Times are UTC microseconds; `start` is the local midnight. In JSON
/// every time is ISO-8601 on the user's clock (`"start": "2024-03-14T00:00:00+01:00"`) with the
/// microseconds beside it (`"start_us"`); a run stored before that reads the same.
public struct DayTrace: Codable, Sendable, Hashable {
    public var user: String
    /// The local day, `YYYY-MM-DD`.
    public var day: String
    /// The UTC offset of the user's clock, seconds.
    public var utcOffset: Int32
    /// The local midnight starting the day, and the next one.
    public var start: Instant
    public var end: Instant
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
        user: String, day: String, utcOffset: Int32, start: Instant, end: Instant, choice: String,
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

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        let offset = Int(utcOffset)
        try c.encode(user, forKey: JSONKey("user"))
        try c.encode(day, forKey: JSONKey("day"))
        try c.encode(utcOffset, forKey: JSONKey("utc_offset"))
        try c.encodeTime(start, offset: offset, forKey: "start")
        try c.encodeTime(end, offset: offset, forKey: "end")
        try c.encode(choice, forKey: JSONKey("choice"))
        try c.encode(apps, forKey: JSONKey("apps"))
        try c.encode(context.map { AtOffset($0, offset) }, forKey: JSONKey("context"))
        try c.encode(policies.map { AtOffset($0, offset) }, forKey: JSONKey("policies"))
        if assumedContext { try c.encode(true, forKey: JSONKey("assumed_context")) }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        user = try c.decode(String.self, forKey: JSONKey("user"))
        day = try c.decode(String.self, forKey: JSONKey("day"))
        utcOffset = try c.decode(Int32.self, forKey: JSONKey("utc_offset"))
        start = try c.decodeTime(forKey: "start")
        end = try c.decodeTime(forKey: "end")
        choice = try c.decode(String.self, forKey: JSONKey("choice"))
        apps = try c.decode([String].self, forKey: JSONKey("apps"))
        context = try c.decode([ContextStretch].self, forKey: JSONKey("context"))
        policies = try c.decode([PolicyDay].self, forKey: JSONKey("policies"))
        assumedContext = try c.decodeIfPresent(Bool.self, forKey: JSONKey("assumed_context")) ?? false
    }
}

/// A part of a day's trace that writes its times on the user's clock (see
/// `KeyedEncodingContainer.encodeTime(_:offset:forKey:)`).
protocol EncodableAtOffset {
    func encode(to encoder: any Encoder, offset: Int) throws
}

/// `value` encoded with its times at `offset` seconds east of UTC.
struct AtOffset<Value: EncodableAtOffset>: Encodable {
    var value: Value
    var offset: Int
    init(_ value: Value, _ offset: Int) {
        self.value = value
        self.offset = offset
    }
    func encode(to encoder: any Encoder) throws { try value.encode(to: encoder, offset: offset) }
}

/// The device state from `start` (inclusive) to `end` (exclusive).
public struct ContextStretch: Codable, Sendable, Hashable {
    public var start: Instant
    public var end: Instant
    public var battery: Double
    public var charging: Bool
    /// Encoded by its name: `wifi`, `cellular` or `none`.
    public var network: NetworkType
    public var lowPower: Bool

    public init(
        start: Instant, end: Instant, battery: Double, charging: Bool, network: NetworkType, lowPower: Bool
    ) {
        self.start = start
        self.end = end
        self.battery = battery
        self.charging = charging
        self.network = network
        self.lowPower = lowPower
    }

    /// Encoded on its own (without a day's clock), times are UTC.
    public func encode(to encoder: any Encoder) throws { try encode(to: encoder, offset: 0) }

    /// A name no reader knows (a run stored by a later FetchLab) reads as `none`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        start = try c.decodeTime(forKey: "start")
        end = try c.decodeTime(forKey: "end")
        battery = try c.decode(Double.self, forKey: JSONKey("battery"))
        charging = try c.decode(Bool.self, forKey: JSONKey("charging"))
        network = NetworkType(name: try c.decode(String.self, forKey: JSONKey("network"))) ?? .none
        lowPower = try c.decode(Bool.self, forKey: JSONKey("low_power"))
    }
}

extension ContextStretch: EncodableAtOffset {
    func encode(to encoder: any Encoder, offset: Int) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        try c.encodeTime(start, offset: offset, forKey: "start")
        try c.encodeTime(end, offset: offset, forKey: "end")
        try c.encode(battery, forKey: JSONKey("battery"))
        try c.encode(charging, forKey: JSONKey("charging"))
        try c.encode(network.name, forKey: JSONKey("network"))
        try c.encode(lowPower, forKey: JSONKey("low_power"))
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

    /// Encoded on its own (without a day's clock), times are UTC.
    public func encode(to encoder: any Encoder) throws { try encode(to: encoder, offset: 0) }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        name = try c.decode(String.self, forKey: JSONKey("name"))
        launches = try c.decode([TracedLaunch].self, forKey: JSONKey("launches"))
        fetches = try c.decode([TracedFetch].self, forKey: JSONKey("fetches"))
        skips = try c.decode([TracedSkip].self, forKey: JSONKey("skips"))
    }
}

extension PolicyDay: EncodableAtOffset {
    func encode(to encoder: any Encoder, offset: Int) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        try c.encode(name, forKey: JSONKey("name"))
        try c.encode(launches.map { AtOffset($0, offset) }, forKey: JSONKey("launches"))
        try c.encode(fetches.map { AtOffset($0, offset) }, forKey: JSONKey("fetches"))
        try c.encode(skips.map { AtOffset($0, offset) }, forKey: JSONKey("skips"))
    }
}

/// A traced event of one app: its time (in JSON ISO-8601 on the user's clock, with `time_us`
/// beside it), the app (an index into ``DayTrace/apps``) and what happened, `Detail`, whose own
/// synthesized keys sit beside those (`{"time", "time_us", "app", "fresh", "staleness_min"}`).
/// Its detail's fields read as its own (`launch.fresh`).
@dynamicMemberLookup
public struct Traced<Detail: Codable & Sendable & Hashable>: Codable, Sendable, Hashable {
    public var time: Instant
    /// Index into ``DayTrace/apps``.
    public var app: Int
    public var detail: Detail

    public init(time: Instant, app: Int, detail: Detail) {
        self.time = time
        self.app = app
        self.detail = detail
    }

    public subscript<T>(dynamicMember field: WritableKeyPath<Detail, T>) -> T {
        get { detail[keyPath: field] }
        set { detail[keyPath: field] = newValue }
    }

    /// Encoded on its own (without a day's clock), the time is UTC.
    public func encode(to encoder: any Encoder) throws { try encode(to: encoder, offset: 0) }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        time = try c.decodeTime(forKey: "time")
        app = try c.decode(Int.self, forKey: JSONKey("app"))
        detail = try Detail(from: decoder)
    }
}

extension Traced: EncodableAtOffset {
    func encode(to encoder: any Encoder, offset: Int) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        try c.encodeTime(time, offset: offset, forKey: "time")
        try c.encode(app, forKey: JSONKey("app"))
        try detail.encode(to: encoder)
    }
}

/// A launch: whether it was fresh at the primary τ and how stale.
public typealias TracedLaunch = Traced<LaunchDetail>

public struct LaunchDetail: Codable, Sendable, Hashable {
    /// Fresh at the primary τ.
    public var fresh: Bool
    /// Minutes since the last refresh (nil: never refreshed).
    public var stalenessMinutes: Double?

    enum CodingKeys: String, CodingKey { case fresh, stalenessMinutes = "staleness_min" }
}

extension Traced where Detail == LaunchDetail {
    public init(time: Instant, app: Int, fresh: Bool, stalenessMinutes: Double?) {
        self.init(time: time, app: app, detail: LaunchDetail(fresh: fresh, stalenessMinutes: stalenessMinutes))
    }
}

/// A fetch that ran, and what became of it.
public typealias TracedFetch = Traced<FetchDetail>

public struct FetchDetail: Codable, Sendable, Hashable {
    /// `useful` (made a launch fresh that the previous launch alone would not have), `wasted`
    /// (superseded before any launch), `used` (a launch came, but not within τ or already fresh),
    /// or `expired` (ran out of its budget).
    public var outcome: String
}

extension Traced where Detail == FetchDetail {
    public init(time: Instant, app: Int, outcome: String) {
        self.init(time: time, app: app, detail: FetchDetail(outcome: outcome))
    }
}

/// A fetch the platform refused, and why.
public typealias TracedSkip = Traced<SkipDetail>

public struct SkipDetail: Codable, Sendable, Hashable {
    public var reason: SkipReason
}

extension Traced where Detail == SkipDetail {
    public init(time: Instant, app: Int, reason: SkipReason) {
        self.init(time: time, app: app, detail: SkipDetail(reason: reason))
    }
}
