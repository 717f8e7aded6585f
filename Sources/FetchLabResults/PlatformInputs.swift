import FetchLabCore

/// What in a population's logs a platform's device rules can act on: context samples (battery,
/// charging, network, Low Power Mode), force-quits and Background App Refresh switches. When the
/// logs hold none of them, those rules of `--platform ios` or `android` never fire and only the
/// platform's scheduling rules (the system's scheduler, budgets, minimum intervals, quotas) act:
/// a run says so rather than let the platform's figures pass for a full model.
public struct PlatformInputs: Sendable, Hashable, Codable {
    public var users = 0
    /// Users with context samples that overlap their launches in time (samples taken before the
    /// first launch or after the last are read by no replay; a user with samples and no launches
    /// counts).
    public var usersWithContext = 0
    public var forceQuits = 0
    /// Background App Refresh switched off or on.
    public var refreshSwitches = 0

    public init() {}

    enum CodingKeys: String, CodingKey {
        case users, usersWithContext = "users_with_context", forceQuits = "force_quits"
        case refreshSwitches = "refresh_switches", inert
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(users, forKey: .users)
        try c.encode(usersWithContext, forKey: .usersWithContext)
        try c.encode(forceQuits, forKey: .forceQuits)
        try c.encode(refreshSwitches, forKey: .refreshSwitches)
        try c.encode(isInert, forKey: .inert)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        users = try c.decode(Int.self, forKey: .users)
        usersWithContext = try c.decode(Int.self, forKey: .usersWithContext)
        forceQuits = try c.decode(Int.self, forKey: .forceQuits)
        refreshSwitches = try c.decode(Int.self, forKey: .refreshSwitches)
    }

    /// Counts one user's context samples, force-quits and refresh switches.
    public mutating func add(_ history: UserHistory) {
        users += 1
        if Self.contextOverlapsLaunches(history) { usersWithContext += 1 }
        for e in history.events {
            switch e.kind {
            case .forceQuit: forceQuits += 1
            case .refreshOff, .refreshOn: refreshSwitches += 1
            case .launch, .close, .unlock, .screenOn, .notification, .systemUI: break
            }
        }
    }

    /// Whether the user has context samples and they overlap the launches in time (any samples
    /// when the user has no launch).
    public static func contextOverlapsLaunches(_ history: UserHistory) -> Bool {
        guard let firstSample = history.context.first?.time, let lastSample = history.context.last?.time else {
            return false
        }
        guard let firstLaunch = history.launches.first?.time, let lastLaunch = history.launches.last?.time else {
            return true
        }
        return firstSample <= lastLaunch && lastSample >= firstLaunch
    }

    public mutating func add(_ histories: [UserHistory]) {
        for h in histories { add(h) }
    }

    /// Adds another population's counts (a shard's).
    public mutating func add(_ other: PlatformInputs) {
        users += other.users
        usersWithContext += other.usersWithContext
        forceQuits += other.forceQuits
        refreshSwitches += other.refreshSwitches
    }

    /// Users were read, and none of them has anything the device rules act on.
    public var isInert: Bool { users > 0 && usersWithContext == 0 && forceQuits == 0 && refreshSwitches == 0 }
}
