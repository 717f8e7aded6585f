/// What happened to an app in a usage event.
///
/// Besides what the user did to an app (launch, close, force-quit, refresh switch), the logs may
/// hold **signals**: events that precede use and that a scheduler may act on (``isSignal``) —
/// the device unlocked or its screen turned on, a notification posted for an app, a launcher or
/// system-UI screen in the foreground. Signals are never launches: no figure counts them as use.
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
    /// The device was unlocked (Android `KEYGUARD_HIDDEN`, iOS `/device/isLocked` going to 0). A
    /// device signal: its app is ``AppID/device``.
    case unlock = 5
    /// The screen turned on (Android `SCREEN_INTERACTIVE`, iOS `/display/isBacklit` going to 1, the
    /// battery sampler's `isInteractive` turning true). A device signal: its app is ``AppID/device``.
    case screenOn = 6
    /// A notification was posted for the app (Android `NOTIFICATION_INTERRUPTION`, iOS
    /// `/notification/usage`).
    case notification = 7
    /// A launcher or system-UI screen came to the foreground (the rows foreground logs hold for
    /// the home screen): the user is at the device, about to open something.
    case systemUI = 8

    /// The name used in logs and in the database views.
    public var name: String {
        switch self {
        case .launch: "launch"
        case .close: "close"
        case .forceQuit: "force_quit"
        case .refreshOff: "refresh_off"
        case .refreshOn: "refresh_on"
        case .unlock: "unlock"
        case .screenOn: "screen_on"
        case .notification: "notification"
        case .systemUI: "system_ui"
        }
    }

    /// Reads a log's event name (`launch`, `close`, `force_quit`, `refresh_off`, `refresh_on`,
    /// `unlock`, `screen_on`, `notification`, `system_ui`; case-insensitive, with common spellings).
    public init?(name: String) {
        switch name.lowercased() {
        case "launch", "open", "opened", "foreground": self = .launch
        case "close", "closed", "background": self = .close
        case "force_quit", "force-quit", "forcequit", "kill", "killed": self = .forceQuit
        case "refresh_off", "refresh-off": self = .refreshOff
        case "refresh_on", "refresh-on": self = .refreshOn
        case "unlock", "unlocked", "keyguard_hidden": self = .unlock
        case "screen_on", "screen-on", "screenon", "screen_interactive": self = .screenOn
        case "notification", "notified", "notification_interruption": self = .notification
        case "system_ui", "system-ui", "systemui", "home", "launcher": self = .systemUI
        default: return nil
        }
    }

    /// A signal that precedes use (unlock, screen on, notification, system UI), not something done
    /// to an app: a trigger a scheduler may act on, never counted as a launch.
    public var isSignal: Bool { rawValue >= UsageEventKind.unlock.rawValue }

    /// A signal of the device, not of one app (unlock, screen on): its app is ``AppID/device``.
    public var isDeviceSignal: Bool { self == .unlock || self == .screenOn }

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

/// One usage event: a user launched, closed or force-quit an app, or switched its background
/// refresh. This is FetchLab's one shape of a launch: the importer produces it, the store keeps it,
/// the generator simulates it, and the predictors and the simulator read it from a ``UserHistory``.
///
/// `user` and `app` are indices into the name tables of whatever carries the event: an import
/// batch's new names, a generated population, or a ``UserHistory`` (where `user` is 0 and `app`
/// indexes ``UserHistory/apps``).
public struct UsageEvent: Hashable, Sendable {
    /// UTC instant.
    public var time: Instant
    public var user: Int32
    public var app: Int32
    public var kind: UsageEventKind
    /// The UTC offset of the user's wall clock in seconds; `nil` when the log did not say.
    public var utcOffset: Int32?

    public init(time: Instant, user: Int32, app: Int32, kind: UsageEventKind, utcOffset: Int32?) {
        self.time = time
        self.user = user
        self.app = app
        self.kind = kind
        self.utcOffset = utcOffset
    }

    /// A launch of app `app` of a user's history, on a clock at `offset`.
    public init(time: Instant, offset: Int32, app: Int32, kind: UsageEventKind = .launch) {
        self.init(time: time, user: 0, app: app, kind: kind, utcOffset: offset)
    }

    /// The offset of the user's wall clock, UTC (0) when the log gave none.
    @inline(__always) public var offset: Int32 { utcOffset ?? 0 }
    /// Seconds since 1970 on the user's wall clock.
    @inline(__always) public var localSeconds: Int64 { LocalCalendar.localSeconds(time, offset: offset) }
    /// The local day (days since 1970).
    @inline(__always) public var localDay: Int { LocalCalendar.day(localSeconds: localSeconds) }
    /// The local minute of the day, 0–1439.
    @inline(__always) public var localMinute: Int {
        Int((localSeconds - Int64(localDay) * Seconds.perDay) / Seconds.perMinute)
    }
}

/// The device's state at one moment. Any field may be unknown.
public struct ContextSample: Hashable, Sendable {
    public var time: Instant
    /// Index into the name table of whatever carries the sample (0 in a ``UserHistory``).
    public var user: Int32
    /// Battery level in percent, 0–100.
    public var battery: Double?
    public var charging: Bool?
    public var network: NetworkType?
    public var lowPower: Bool?
    public var screenOn: Bool?
    /// The UTC offset of the device's clock in seconds; `nil` when the log did not say.
    public var utcOffset: Int32?

    public init(
        time: Instant, user: Int32 = 0, battery: Double? = nil, charging: Bool? = nil,
        network: NetworkType? = nil, lowPower: Bool? = nil, screenOn: Bool? = nil, utcOffset: Int32? = nil
    ) {
        self.time = time
        self.user = user
        self.utcOffset = utcOffset
        self.battery = battery
        self.charging = charging
        self.network = network
        self.lowPower = lowPower
        self.screenOn = screenOn
    }
}

/// New content for an app appeared on the server at `time`.
public struct ContentUpdate: Hashable, Sendable {
    public var time: Instant
    /// Index into the name table of whatever carries the update.
    public var app: Int32
    /// The UTC offset of the clock the log wrote the time in; `nil` when it did not say.
    public var utcOffset: Int32?

    public init(time: Instant, app: Int32, utcOffset: Int32? = nil) {
        self.time = time
        self.app = app
        self.utcOffset = utcOffset
    }
}
