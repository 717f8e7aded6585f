import FetchLabCore
import FetchLabResults

extension PlatformModel {
    /// The model of iOS's own scheduler that runs a requested minimum interval (a floor): it
    /// fetches `iosSystemLead` before the launches it expects, never closer than the interval,
    /// iOS's 15-minute floor or `iosMinimumInterval`.
    public func systemScheduler(minimumInterval: Microseconds) -> IOSAdaptivePolicy {
        IOSAdaptivePolicy(
            lead: iosSystemLead,
            minimumInterval: max(minimumInterval, iosMinimumInterval, IOSAdaptivePolicy.platformMinimum))
    }
}

/// What a policy asks the platform for.
public enum FetchRequest: Sendable, Hashable {
    /// A background fetch (Background App Refresh, a WorkManager job).
    case fetch
    /// A silent push (the server says there is new content).
    case push
}

/// The platform's answer.
public enum PlatformDecision: Sendable, Hashable {
    case granted
    /// Granted but ran out of its time budget: failed, energy spent.
    case expired
    case refused(SkipReason)
}

/// One pair's platform state during a replay: the app's force-quit and refresh switches, its
/// last use and last background run, its recent pushes. Fed the app's usage events in time order.
public struct PlatformGate: Sendable {
    public let model: PlatformModel
    var forceQuit = false
    var refreshOff = false
    var lastUse: Instant? = nil
    var lastRun: Instant? = nil
    var pushes: [Instant] = []
    var runsToday = 0
    var today = Int.min
    /// iOS: the app's launches within the wake budget's window (oldest first), and today's budget
    /// (nil: no limit).
    var recentLaunches: [Instant] = []
    var wakeBudgetToday: Int? = nil
    let offset: Int32

    public init(model: PlatformModel, offset: Int32) {
        self.model = model
        self.offset = offset
    }

    /// The app's own usage event (launch, close, force-quit, refresh switch; signals change nothing).
    public mutating func observe(_ event: UsageEvent) {
        switch event.kind {
        case .launch:
            forceQuit = false
            lastUse = event.time
            if model.kind == .ios { recentLaunches.append(event.time) }
        case .close: lastUse = event.time
        case .forceQuit: forceQuit = true
        case .refreshOff: refreshOff = true
        case .refreshOn: refreshOff = false
        case .unlock, .screenOn, .notification, .systemUI: break
        }
    }

    /// Grants or refuses a request at `t` in state `state`, for a fetch taking `duration`.
    public mutating func decide(
        _ request: FetchRequest, at t: Instant, state: DeviceState, duration: Microseconds
    ) -> PlatformDecision {
        let m = model
        switch m.kind {
        case .none:
            return .granted
        case .ios:
            if refreshOff { return .refused(.refreshOff) }
            if forceQuit { return .refused(.forceQuit) }
            if state.lowPower { return .refused(.lowPower) }
            if state.isLow(below: m.lowBatteryPercent) { return .refused(.lowBattery) }
            if state.network == .none { return .refused(.noNetwork) }
            switch request {
            case .push:
                let hourAgo = t - .hours(1)
                pushes.removeAll { $0 <= hourAgo }
                if pushes.count >= m.pushesPerHour { return .refused(.rateLimit) }
                pushes.append(t)
            case .fetch:
                if let last = lastRun, t - last < m.iosMinimumInterval { return .refused(.minimumInterval) }
                let day = LocalCalendar.day(t, offset: offset)
                if day != today {
                    today = day
                    runsToday = 0
                    wakeBudgetToday = wakeBudget(of: day)
                }
                if m.dailyFetchBudget > 0, runsToday >= m.dailyFetchBudget { return .refused(.budget) }
                if let budget = wakeBudgetToday, runsToday >= budget { return .refused(.systemBudget) }
                runsToday += 1
                lastRun = t
            }
            return duration > m.fetchBudget ? .expired : .granted
        case .android:
            if refreshOff { return .refused(.refreshOff) }
            if forceQuit { return .refused(.forceQuit) }
            if state.lowPower { return .refused(.lowPower) }
            if state.network == .none { return .refused(.noNetwork) }
            if request == .fetch, let last = lastRun {
                if t - last < m.androidMinimumPeriod { return .refused(.minimumInterval) }
                if t - last < deferral(at: t) { return .refused(.quota) }
            }
            if request == .fetch { lastRun = t }
            return .granted
        }
    }

    /// iOS: the wake budget of local `day`, from the app's launches in the window before its
    /// midnight (the launches observed so far; older ones are dropped).
    mutating func wakeBudget(of day: Int) -> Int? {
        let midnight = LocalCalendar.midnight(of: day, offset: offset)
        let from = midnight - model.iosWakeBudgetWindow
        let old = recentLaunches.firstIndex { $0 >= from } ?? recentLaunches.count
        recentLaunches.removeFirst(old)
        return model.wakeBudget(launches: recentLaunches.count(where: { $0 < midnight }))
    }

    /// The App Standby deferral at `t`, from how recently the app was used.
    func deferral(at t: Instant) -> Microseconds {
        guard let used = lastUse else { return model.rareDeferral }
        let since = t - used
        if since <= .hours(1) { return 0 }
        if since <= .days(1) { return model.workingSetDeferral }
        if since <= .days(7) { return model.frequentDeferral }
        return model.rareDeferral
    }
}
