/// What a policy reads to decide (DOMAIN.md, "Who deploys a policy: scope and signals"). Every
/// policy declares its signals; the replay shows it only those (and its own app's usage events,
/// which the platform's state follows), so a declaration cannot under-state what a policy reads.
public enum PolicySignal: String, Codable, Sendable, Hashable, CaseIterable, Comparable {
    /// The app's own launches (and its own closes, force-quits and refresh switches).
    case ownLaunches = "own_launches"
    /// Other apps' launches and events (their notifications included): only the OS sees them.
    case otherLaunches = "other_launches"
    /// Unlocks, screen-on and system-UI screens: only the OS sees them from the background.
    case deviceSignals = "device_signals"
    /// Notifications posted for the app itself (its server sent them).
    case notifications
    /// The times the app's content changed on its server.
    case contentUpdates = "content_updates"
    /// Battery, charging and network: what the app's APIs expose.
    case context
    /// Launches still to come: a clairvoyant bound, not a policy anyone can run.
    case future

    public static func < (a: PolicySignal, b: PolicySignal) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

/// Who can run a policy, from the signals it reads: an app team (`app`: its own launches, its own
/// notifications, content updates, context), an OS team (`os`: other apps' launches or device
/// signals too) or nobody (`clairvoyant`: it reads the future).
public enum PolicyScope: String, Codable, Sendable, Hashable, CaseIterable {
    case app
    case os
    case clairvoyant

    public init(signals: Set<PolicySignal>) {
        if signals.contains(.future) {
            self = .clairvoyant
        } else if signals.contains(.otherLaunches) || signals.contains(.deviceSignals) {
            self = .os
        } else {
            self = .app
        }
    }

    /// For people: "app", "OS", "clairvoyant".
    public var label: String {
        switch self {
        case .app: "app"
        case .os: "OS"
        case .clairvoyant: "clairvoyant"
        }
    }

    /// Who can deploy it, in a few words.
    public var audience: String {
        switch self {
        case .app: "an app team can ship it"
        case .os: "reads other apps' launches or device signals: only the OS can run it"
        case .clairvoyant: "knows the future: a bound, not a policy"
        }
    }
}
