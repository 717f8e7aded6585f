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
        hold = try c.decodeSpan(.perMinute, forKey: .hold)
    }
}
