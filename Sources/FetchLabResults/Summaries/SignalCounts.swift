import FetchLabCore

/// How many signal events the database holds, per kind: the moments before use (an unlock, the
/// screen turning on, a notification, a launcher or system-UI screen) that a scheduler or a
/// per-signal ceiling may act on. None of them is a launch.
///
/// A user reads from it whether a figure that acts on a signal can mean anything: with no unlock
/// event stored, a ceiling "with unlocks" is the launch-only one.
public struct SignalCounts: Sendable, Codable, Hashable {
    /// One kind's events, and the users who have at least one.
    public struct Tally: Sendable, Codable, Hashable {
        public var events: Int
        public var users: Int

        public init(events: Int = 0, users: Int = 0) {
            self.events = events
            self.users = users
        }
    }

    public var unlock = Tally()
    public var screenOn = Tally()
    public var notification = Tally()
    public var systemUI = Tally()

    public init() {}

    /// The signal kinds, in the order they are shown.
    public static let kinds: [UsageEventKind] = [.unlock, .screenOn, .notification, .systemUI]

    /// One kind's tally (a kind that is not a signal has none).
    public subscript(kind: UsageEventKind) -> Tally {
        get {
            switch kind {
            case .unlock: unlock
            case .screenOn: screenOn
            case .notification: notification
            case .systemUI: systemUI
            case .launch, .close, .forceQuit, .refreshOff, .refreshOn: Tally()
            }
        }
        set {
            switch kind {
            case .unlock: unlock = newValue
            case .screenOn: screenOn = newValue
            case .notification: notification = newValue
            case .systemUI: systemUI = newValue
            case .launch, .close, .forceQuit, .refreshOff, .refreshOn: break
            }
        }
    }

    /// Signal events of every kind.
    public var events: Int { Self.kinds.reduce(0) { $0 + self[$1].events } }
}
