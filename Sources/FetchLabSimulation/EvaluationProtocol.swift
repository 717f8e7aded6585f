import FetchLabCore

/// The rules every replay follows (DOMAIN.md, "Evaluation protocol"); each number is an option.
public struct EvaluationProtocol: Sendable, Hashable {
    /// Days from a user's first event t0 before scoring starts: S is the first local midnight at
    /// least this many days after t0, on the clock of the user's first launch.
    public var warmUpDays: Int = 7
    /// An app is evaluated for a user when it has at least this many launches in the whole log.
    public var minLaunches: Int = 20
    /// The τ at which fresh rates are reported.
    public var taus: [Microseconds] = [.minutes(5), .minutes(15), .minutes(60)]
    /// The τ the oracles aim at, and the ranking, the clairvoyant bound and the baseline are read at.
    public var primaryTau: Microseconds = .minutes(15)
    /// A launch refreshes its app's content at the launch time.
    public var launchRefreshes: Bool = true
    /// Only these apps are evaluated (nil: every app with enough launches).
    public var apps: Set<AppID>? = nil
    /// Scoring starts no earlier than this local day and ends with this one (nil: the log's span).
    public var scoredFrom: CivilDate? = nil
    public var scoredThrough: CivilDate? = nil

    public init() {}

    /// The τ list with the primary τ included, ascending.
    public var reportedTaus: [Microseconds] { Array(Set(taus + [primaryTau])).sorted() }

    /// The scored window of a user: t0 (first event), S (end of the warm-up), E (last event; signals
    /// aside) and the
    /// clock offset used for local days; nil when the log ends before S (or at S).
    public func window(of history: UserHistory) -> UserWindow? {
        guard let firstLaunch = history.launches.first else { return nil }
        // Signals (unlocks, notifications, system UI) are not use: they neither start nor end a span.
        let first = history.events.first { !$0.kind.isSignal }
        let last = history.events.last { !$0.kind.isSignal }
        let t0 = min(firstLaunch.time, first?.time ?? firstLaunch.time)
        var end = max(history.launches.last!.time, last?.time ?? firstLaunch.time)
        let offset = firstLaunch.offset
        // The first midnight at or after t0 + warm-up ("at least 7 days after t0").
        var start = LocalCalendar.midnight(after: t0 + .days(Int64(warmUpDays)) - 1, offset: offset)
        if let from = scoredFrom {
            start = max(start, LocalCalendar.midnight(of: from.daysSince1970, offset: offset))
        }
        if let through = scoredThrough {
            end = min(end, LocalCalendar.midnight(of: through.daysSince1970 + 1, offset: offset) - 1)
        }
        guard end > start else { return nil }
        return UserWindow(firstEvent: t0, start: start, end: end, offset: offset)
    }

    /// The apps (indices into `history.apps`) evaluated for a user, ascending.
    public func evaluatedApps(of history: UserHistory) -> [Int32] {
        var counts = [Int](repeating: 0, count: history.apps.count)
        for launch in history.launches where Int(launch.app) < counts.count { counts[Int(launch.app)] += 1 }
        return counts.indices.filter { counts[$0] >= minLaunches && (apps?.contains(history.apps[$0]) ?? true) }
            .map(Int32.init)
    }
}

/// A user's span under the protocol.
public struct UserWindow: Sendable, Hashable {
    /// t0: the user's first event.
    public var firstEvent: Instant
    /// S: the first scored instant (a local midnight).
    public var start: Instant
    /// E: the user's last event.
    public var end: Instant
    /// The UTC offset of the user's clock (of the first launch), for local days.
    public var offset: Int32

    public init(firstEvent: Instant, start: Instant, end: Instant, offset: Int32) {
        self.firstEvent = firstEvent
        self.start = start
        self.end = end
        self.offset = offset
    }

    /// (E − S) in days.
    public var scoredDays: Double { (end - start).inDays }

    /// Whether an instant is scored: S ≤ t ≤ E.
    @inline(__always) public func isScored(_ t: Instant) -> Bool { t >= start && t <= end }

    /// The scored local days: S is a local midnight, so day d is [S + d days, S + (d + 1) days) ∩ [S, E],
    /// the last one cut at E.
    public var scoredDayCount: Int { end >= start ? Int((end - start) / Microseconds.perDay) + 1 : 0 }

    /// The scored local day (from 0) of a scored instant.
    @inline(__always) public func scoredDay(of t: Instant) -> Int { Int((t - start) / Microseconds.perDay) }
}
