import FetchLabCore

/// The device's state at one moment, as the replay sees it: every field known (a sampled value
/// still within its hold, or the stated default).
public struct DeviceState: Sendable, Hashable {
    /// Battery level, percent.
    public var battery: Double
    public var charging: Bool
    public var network: NetworkType
    public var lowPower: Bool

    public init(battery: Double, charging: Bool, network: NetworkType, lowPower: Bool) {
        self.battery = battery
        self.charging = charging
        self.network = network
        self.lowPower = lowPower
    }

    /// Battery below `percent` and not charging.
    @inline(__always) public func isLow(below percent: Double) -> Bool { !charging && battery < percent }
}

/// What the replay assumes when no sample says otherwise: before a user's first sample, after a
/// sample older than ``hold``, and for users with no context at all. The defaults refuse nothing
/// (a full-enough battery, Wi-Fi, no Low Power Mode), so that missing data never blocks fetches
/// silently; every report states them.
public struct ContextDefaults: Sendable, Hashable, Codable {
    public var battery: Double = 80
    public var charging = false
    public var network: NetworkType = .wifi
    public var lowPower = false
    /// How long a sampled value holds before the default applies again.
    public var hold: Microseconds = .hours(6)

    public init() {}

    public var state: DeviceState {
        DeviceState(battery: battery, charging: charging, network: network, lowPower: lowPower)
    }

    enum CodingKeys: String, CodingKey {
        case battery = "battery_pct", charging, network, lowPower = "low_power", hold = "hold_minutes"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(battery, forKey: .battery)
        try c.encode(charging, forKey: .charging)
        try c.encode(network.name, forKey: .network)
        try c.encode(lowPower, forKey: .lowPower)
        try c.encode(hold.inMinutes, forKey: .hold)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        battery = try c.decode(Double.self, forKey: .battery)
        charging = try c.decode(Bool.self, forKey: .charging)
        network = NetworkType(name: try c.decode(String.self, forKey: .network)) ?? .wifi
        lowPower = try c.decode(Bool.self, forKey: .lowPower)
        hold = .minutes(fractional: try c.decode(Double.self, forKey: .hold))
    }
}

/// One user's device context over time: each field keeps its last sampled value for up to
/// `defaults.hold`, then falls back to its default. Fields are independent (a sample that only
/// reports the network leaves the battery as it was).
public struct ContextTimeline: Sendable {
    struct Track<Value: Sendable>: Sendable {
        var times: [Microseconds] = []
        var values: [Value] = []

        mutating func append(_ t: Microseconds, _ v: Value?) {
            guard let v else { return }
            times.append(t)
            values.append(v)
        }

        /// The value of the last sample at or before `t`, if it is at most `hold` old.
        func value(at t: Microseconds, hold: Microseconds) -> Value? {
            let lo = times.count(upTo: t)
            guard lo > 0, t - times[lo - 1] <= hold else { return nil }
            return values[lo - 1]
        }

        /// ``value(at:hold:)`` for times asked in ascending order: `lo` is the count of samples
        /// at or before the previous time, moved on instead of searched for.
        @inline(__always) func value(at t: Microseconds, hold: Microseconds, from lo: inout Int) -> Value? {
            while lo < times.count, times[lo] <= t { lo += 1 }
            guard lo > 0, t - times[lo - 1] <= hold else { return nil }
            return values[lo - 1]
        }
    }

    public let defaults: ContextDefaults
    var battery = Track<Double>()
    var charging = Track<Bool>()
    var network = Track<NetworkType>()
    var lowPower = Track<Bool>()

    /// Builds the timeline from samples in time order.
    public init(samples: [ContextSample], defaults: ContextDefaults) {
        self.defaults = defaults
        for s in samples {
            battery.append(s.time, s.battery)
            charging.append(s.time, s.charging)
            network.append(s.time, s.network)
            lowPower.append(s.time, s.lowPower)
        }
    }

    /// Whether any sample exists.
    public var isEmpty: Bool {
        battery.times.isEmpty && charging.times.isEmpty && network.times.isEmpty && lowPower.times.isEmpty
    }

    /// The instants at which the state may change: every sample, and every instant a sampled
    /// value stops holding (unsorted, may repeat).
    public func changePoints() -> [Microseconds] {
        var out: [Microseconds] = []
        func add(_ times: [Microseconds]) {
            for t in times {
                out.append(t)
                out.append(t + defaults.hold + 1)
            }
        }
        add(battery.times)
        add(charging.times)
        add(network.times)
        add(lowPower.times)
        return out
    }

    /// The state at each of `times` (ascending): ``state(at:)`` of each, walking the samples once.
    public func states(at times: [Microseconds]) -> [DeviceState] {
        let h = defaults.hold
        var cursors = (0, 0, 0, 0)
        return times.map { t in
            DeviceState(
                battery: battery.value(at: t, hold: h, from: &cursors.0) ?? defaults.battery,
                charging: charging.value(at: t, hold: h, from: &cursors.1) ?? defaults.charging,
                network: network.value(at: t, hold: h, from: &cursors.2) ?? defaults.network,
                lowPower: lowPower.value(at: t, hold: h, from: &cursors.3) ?? defaults.lowPower)
        }
    }

    /// The state at `t`.
    public func state(at t: Microseconds) -> DeviceState {
        let h = defaults.hold
        return DeviceState(
            battery: battery.value(at: t, hold: h) ?? defaults.battery,
            charging: charging.value(at: t, hold: h) ?? defaults.charging,
            network: network.value(at: t, hold: h) ?? defaults.network,
            lowPower: lowPower.value(at: t, hold: h) ?? defaults.lowPower)
    }
}
