/// Microseconds since 1970-01-01T00:00:00Z. FetchLab keeps every instant in this one unit.
public typealias Microseconds = Int64

/// What happened to an app in a usage event.
public enum UsageEventKind: Int, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// The user brought the app to the foreground.
    case launch = 0
    /// The app left the foreground.
    case close = 1
    /// The user force-quit the app (no background fetch until the next launch).
    case forceQuit = 2
    /// Background App Refresh was switched off for the app (no background fetch until `refreshOn`).
    case refreshOff = 3
    /// Background App Refresh was switched back on.
    case refreshOn = 4

    /// The name used in logs and in the database views.
    public var name: String {
        switch self {
        case .launch: "launch"
        case .close: "close"
        case .forceQuit: "force_quit"
        case .refreshOff: "refresh_off"
        case .refreshOn: "refresh_on"
        }
    }

    /// Reads a log's event name (`launch`, `close`, `force_quit`, `refresh_off`, `refresh_on`; case-insensitive).
    public init?(name: String) {
        switch name.lowercased() {
        case "launch", "open", "opened", "foreground": self = .launch
        case "close", "closed", "background": self = .close
        case "force_quit", "force-quit", "forcequit", "kill", "killed": self = .forceQuit
        case "refresh_off", "refresh-off": self = .refreshOff
        case "refresh_on", "refresh-on": self = .refreshOn
        default: return nil
        }
    }

    public var description: String { name }
}

/// The network a device is on.
public enum NetworkType: Int, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    case none = 0
    case wifi = 1
    case cellular = 2

    public var name: String {
        switch self {
        case .none: "none"
        case .wifi: "wifi"
        case .cellular: "cellular"
        }
    }

    /// Reads `wifi`, `cellular` or `none` (and common spellings: `wi-fi`, `mobile`, `lte`, `5g`, `offline`).
    public init?(name: String) {
        switch name.lowercased() {
        case "wifi", "wi-fi", "wlan", "ethernet": self = .wifi
        case "cellular", "cell", "mobile", "lte", "4g", "5g", "3g", "wwan": self = .cellular
        case "none", "offline", "no", "": self = .none
        default: return nil
        }
    }

    public var description: String { name }
}

/// One usage event: a user launched, closed or force-quit an app.
public struct UsageEvent: Hashable, Sendable, Codable {
    public var time: Microseconds
    public var user: UserID
    public var app: AppID
    public var kind: UsageEventKind
    /// The UTC offset of the local time the log wrote, when the log said it.
    public var utcOffsetSeconds: Int32?

    public init(
        time: Microseconds, user: UserID, app: AppID, kind: UsageEventKind = .launch, utcOffsetSeconds: Int32? = nil
    ) {
        self.time = time
        self.user = user
        self.app = app
        self.kind = kind
        self.utcOffsetSeconds = utcOffsetSeconds
    }
}

/// The device's state at one moment. Any field may be unknown.
public struct ContextSample: Hashable, Sendable, Codable {
    public var time: Microseconds
    public var user: UserID
    /// Battery level in percent, 0–100.
    public var battery: Double?
    public var charging: Bool?
    public var network: NetworkType?
    public var lowPower: Bool?
    public var screenOn: Bool?

    public init(
        time: Microseconds, user: UserID, battery: Double? = nil, charging: Bool? = nil,
        network: NetworkType? = nil, lowPower: Bool? = nil, screenOn: Bool? = nil
    ) {
        self.time = time
        self.user = user
        self.battery = battery
        self.charging = charging
        self.network = network
        self.lowPower = lowPower
        self.screenOn = screenOn
    }
}

/// New content for an app appeared on the server at `time`.
public struct ContentUpdate: Hashable, Sendable, Codable {
    public var time: Microseconds
    public var app: AppID

    public init(time: Microseconds, app: AppID) {
        self.time = time
        self.app = app
    }
}
