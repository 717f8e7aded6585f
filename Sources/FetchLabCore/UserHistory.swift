/// Everything known about one user, in time order: the one type the store returns and the
/// predictors, the evaluator and the simulator read.
public struct UserHistory: Sendable {
    public var user: UserID
    /// The user's apps; events and content updates index this list.
    public var apps: [AppID]
    /// Launches, in time order.
    public var launches: [UsageEvent]
    /// The other events (closes, force-quits, refresh switches), in time order.
    public var events: [UsageEvent]
    /// Device context samples, in time order.
    public var context: [ContextSample]
    /// The times of each app's content updates (indexed like ``apps``), each in time order. An
    /// app's updates are the same for every user of it, so a store may hand every user the same
    /// array (shared storage, not a copy per user).
    public private(set) var updateTimes: [[Instant]]

    public init(
        user: UserID, apps: [AppID], launches: [UsageEvent], events: [UsageEvent] = [],
        context: [ContextSample] = [], contentUpdates: [ContentUpdate] = []
    ) {
        var times = [[Instant]](repeating: [], count: apps.count)
        for u in contentUpdates where u.app >= 0 && Int(u.app) < apps.count { times[Int(u.app)].append(u.time) }
        self.init(user: user, apps: apps, launches: launches, events: events, context: context, updateTimes: times)
    }

    /// A history whose content updates are given per app (`updateTimes[i]`: the times of
    /// `apps[i]`'s updates; missing trailing apps have none).
    public init(
        user: UserID, apps: [AppID], launches: [UsageEvent], events: [UsageEvent] = [],
        context: [ContextSample] = [], updateTimes: [[Instant]]
    ) {
        self.user = user
        self.apps = apps
        self.launches = inTimeOrder(launches, \.time)
        self.events = inTimeOrder(events, \.time)
        self.context = inTimeOrder(context, \.time)
        var times = Array(updateTimes.prefix(apps.count))
        times += [[Instant]](repeating: [], count: apps.count - times.count)
        self.updateTimes = times.map { inTimeOrder($0, { $0 }) }
    }

    /// The bytes the history's own arrays hold (launches, other events, context samples, apps);
    /// content updates are left out, as an app's are shared by its users.
    public var ownBytes: Int {
        launches.count * MemoryLayout<UsageEvent>.stride + events.count * MemoryLayout<UsageEvent>.stride
            + context.count * MemoryLayout<ContextSample>.stride + apps.count * MemoryLayout<AppID>.stride
            + updateTimes.count * MemoryLayout<[Instant]>.stride
    }

    /// Content updates of the user's apps, in time order (an app's first at equal times).
    public var contentUpdates: [ContentUpdate] {
        var out: [ContentUpdate] = []
        out.reserveCapacity(updateTimes.reduce(0) { $0 + $1.count })
        for (a, times) in updateTimes.enumerated() {
            for t in times { out.append(ContentUpdate(time: t, app: Int32(a))) }
        }
        // Stable: equal times keep the app order.
        return out.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
    }

    /// The history as it stood before `origin`: earlier events only, and only the apps the earlier
    /// launches used (renumbered in the same order).
    public func before(_ origin: Instant) -> UserHistory {
        let kept = launches.prefix { $0.time < origin }
        var newIndex = [Int32](repeating: -1, count: apps.count)
        for launch in kept { newIndex[Int(launch.app)] = 0 }
        var keptApps: [AppID] = []
        for (a, name) in apps.enumerated() where newIndex[a] == 0 {
            newIndex[a] = Int32(keptApps.count)
            keptApps.append(name)
        }
        func renumber(_ e: UsageEvent) -> UsageEvent? {
            let a = newIndex[Int(e.app)]
            guard a >= 0 else { return nil }
            var copy = e
            copy.app = a
            return copy
        }
        return UserHistory(
            user: user, apps: keptApps, launches: kept.compactMap(renumber),
            events: events.prefix { $0.time < origin }.compactMap(renumber),
            context: Array(context.prefix { $0.time < origin }),
            updateTimes: apps.indices.filter { newIndex[$0] >= 0 }.map { a in
                let times = updateTimes[a]
                let end = times.count(upTo: origin, inclusive: false)
                return end == times.count ? times : Array(times[..<end])
            })
    }

    /// Launches and the other events merged in time order (a launch first at equal times).
    public var allEvents: [UsageEvent] {
        var out: [UsageEvent] = []
        out.reserveCapacity(launches.count + events.count)
        var i = 0
        var j = 0
        while i < launches.count || j < events.count {
            if j == events.count || (i < launches.count && launches[i].time <= events[j].time) {
                out.append(launches[i])
                i += 1
            } else {
                out.append(events[j])
                j += 1
            }
        }
        return out
    }

    /// The index of an app in ``apps``, if the user has it.
    public func index(of app: AppID) -> Int32? { apps.firstIndex(of: app).map(Int32.init) }

    /// The UTC offset of the user's clock at the last launch (0 when unknown or no launch).
    public var lastOffset: Int32 { launches.last?.offset ?? 0 }
}

/// `xs` in time order: as given when already so (the store and ``UserHistory/before(_:)`` pass
/// sorted lists), sorted otherwise.
private func inTimeOrder<T>(_ xs: [T], _ time: (T) -> Instant) -> [T] {
    for i in xs.indices.dropFirst() where time(xs[i]) < time(xs[i - 1]) {
        return xs.sorted { time($0) < time($1) }
    }
    return xs
}
