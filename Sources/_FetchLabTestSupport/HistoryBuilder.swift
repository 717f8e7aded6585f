import FetchLabCore

/// Builds a ``UserHistory`` by hand: a user's apps, then launches at local days, hours and minutes
/// (or at instants), closes, and any context samples and content updates.
///
///     var b = HistoryBuilder(apps: ["com.mail", "com.news"], firstDay: monday, offset: 7200)
///     for d in 0..<14 {
///         b.launch(0, day: d, hour: 8)
///         b.launch(1, day: d, hour: 12, minute: 30)
///     }
///     let history = b.build()
///
/// Apps are indices into `apps`; events may be added in any order (``UserHistory`` sorts them).
public struct HistoryBuilder: Sendable {
    public var user: UserID
    public var apps: [AppID]
    /// The local day (days since 1970) that `day: 0` names.
    public var firstDay: Int
    /// The UTC offset in seconds of the user's clock: local times are read on it and events carry
    /// it, unless one gives its own.
    public var offset: Int32
    public var launches: [UsageEvent] = []
    /// Closes (and any other events that are not launches).
    public var events: [UsageEvent] = []
    public var context: [ContextSample] = []
    public var contentUpdates: [ContentUpdate] = []

    public init(user: UserID = "u", apps: [AppID], firstDay: Int = 0, offset: Int32 = 0) {
        self.user = user
        self.apps = apps
        self.firstDay = firstDay
        self.offset = offset
    }

    /// The instant of `hour:minute` on local day `day` (counted from ``firstDay``), on a clock at
    /// `offset` (``offset`` when nil).
    public func time(day: Int, hour: Int = 0, minute: Int = 0, offset: Int32? = nil) -> Instant {
        LocalCalendar.midnight(of: firstDay + day, offset: offset ?? self.offset) + .hours(Int64(hour))
            + .minutes(Int64(minute))
    }

    /// Adds a launch of `app` at `hour:minute` of local day `day`, and returns its instant.
    @discardableResult
    public mutating func launch(
        _ app: Int32 = 0, day: Int, hour: Int = 0, minute: Int = 0, offset: Int32? = nil
    ) -> Instant {
        add(.launch, app, at: time(day: day, hour: hour, minute: minute, offset: offset), offset: offset)
    }

    /// Adds a launch of `app` at `time`, and returns it.
    @discardableResult
    public mutating func launch(_ app: Int32 = 0, at time: Instant, offset: Int32? = nil) -> Instant {
        add(.launch, app, at: time, offset: offset)
    }

    /// Adds a close of `app` at `time`, and returns it.
    @discardableResult
    public mutating func close(_ app: Int32 = 0, at time: Instant, offset: Int32? = nil) -> Instant {
        add(.close, app, at: time, offset: offset)
    }

    private mutating func add(_ kind: UsageEventKind, _ app: Int32, at time: Instant, offset: Int32?)
        -> Instant
    {
        let event = UsageEvent(time: time, offset: offset ?? self.offset, app: app, kind: kind)
        if kind == .launch { launches.append(event) } else { events.append(event) }
        return time
    }

    public func build() -> UserHistory {
        UserHistory(
            user: user, apps: apps, launches: launches, events: events, context: context,
            contentUpdates: contentUpdates)
    }
}
