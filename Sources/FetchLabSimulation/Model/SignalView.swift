import FetchLabCore
import FetchLabResults

/// What a policy is shown of a pair's inputs: only the signals it declared
/// (``FetchPolicy/signals``). The pair's own app's launches, closes, force-quits and refresh
/// switches are always shown (the platform's state follows them, as it does on a device); other
/// apps' events only with `other_launches`, unlocks, screen-on and system UI only with
/// `device_signals`, the app's own notifications only with `notifications`, its content updates
/// only with `content_updates`, and the device's state only with `context` (otherwise a
/// scheduler is told ``neutral``, while the platform still decides on the real state).
struct SignalView: Sendable {
    let signals: Set<PolicySignal>
    let app: Int32
    let otherApps: Bool
    let device: Bool
    let notifications: Bool
    let contentUpdates: Bool
    let context: Bool

    init(_ signals: Set<PolicySignal>, app: Int32) {
        self.signals = signals
        self.app = app
        otherApps = signals.contains(.otherLaunches)
        device = signals.contains(.deviceSignals)
        notifications = signals.contains(.notifications)
        contentUpdates = signals.contains(.contentUpdates)
        context = signals.contains(.context)
    }

    /// The state a scheduler that does not read context is told: the context defaults' (a full
    /// battery, Wi-Fi, not charging, no Low Power Mode), whatever the device's real state.
    static let neutral = ContextDefaults().state

    /// Whether the view hides nothing of what the replay holds.
    var showsEverything: Bool { otherApps && device && notifications && contentUpdates && context }

    /// Whether a scheduler of this view is shown `e`.
    @inline(__always) func shows(_ e: UsageEvent) -> Bool {
        switch e.kind {
        case .unlock, .screenOn, .systemUI: return device
        case .notification: return e.app == app ? notifications : otherApps
        case .launch, .close, .forceQuit, .refreshOff, .refreshOn: return e.app == app || otherApps
        }
    }

    /// `events` without what the view hides (the same array when it hides none of them).
    func filter(_ events: [UsageEvent]) -> [UsageEvent] {
        guard !(otherApps && device && notifications) else { return events }
        return events.filter(shows)
    }

    /// The content updates shown: all or none.
    func content(_ updates: [Instant]) -> [Instant] { contentUpdates ? updates : [] }

    /// What a planned policy (``FetchPolicy/fetchTimes(for:)``) is given of its pair: everything
    /// when it reads the future (an oracle) or when `reveal`; otherwise the user's window and
    /// clock, its own launches only when it declared them, and no other event.
    func planned(_ pair: PairContext, reveal: Bool = false) -> PairContext {
        guard !reveal, !signals.contains(.future) else { return pair }
        var shown = pair
        let own = signals.contains(.ownLaunches)
        shown.launches = own ? pair.launches : []
        shown.history = UserHistory(
            user: pair.history.user, apps: pair.history.apps,
            launches: own ? pair.history.launches.filter { $0.app == pair.app } : [])
        return shown
    }

    /// The device state shown.
    @inline(__always) func state(_ real: DeviceState) -> DeviceState { context ? real : Self.neutral }
}

/// A scheduler that acts only on what its view shows, whatever it is given: the events, content
/// updates and device state the view hides are dropped or neutralised before `inner` sees them.
/// For a policy built on a scheduler that reads more than the policy declares (`learned-app` on
/// the learned model), so that its decisions are the same however much the replay shows it.
struct SignalFilteredScheduler<Inner: FetchScheduler>: FetchScheduler {
    var inner: Inner
    let view: SignalView

    var observedEvents: ObservedEvents { inner.observedEvents }
    var nextWake: Instant? { inner.nextWake }
    var statedProbability: Double? { inner.statedProbability }

    mutating func observe(_ event: UsageEvent, state: DeviceState) -> FetchRequest? {
        view.shows(event) ? inner.observe(event, state: view.state(state)) : nil
    }

    mutating func observe(_ update: ContentUpdate, state: DeviceState) -> FetchRequest? {
        view.contentUpdates ? inner.observe(update, state: view.state(state)) : nil
    }

    mutating func wake(at time: Instant, state: DeviceState) -> FetchRequest? {
        inner.wake(at: time, state: view.state(state))
    }

    mutating func completed(_ result: FetchResult) { inner.completed(result) }
}
