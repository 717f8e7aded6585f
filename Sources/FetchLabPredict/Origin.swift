import FetchLabCore

/// The moment a prediction starts from, as asked for (`--at`).
public enum RequestedOrigin: Sendable, Equatable {
    /// An instant (a time with a UTC offset).
    case instant(Instant)
    /// A time on the user's wall clock: microseconds since 1970-01-01 00:00 on that clock.
    case local(Microseconds)

    /// Parses `YYYY-MM-DD`, `YYYY-MM-DD H:MM`, `YYYY-MM-DDTHH:MM:SS` (a space or a `T`; a one- or
    /// two-digit hour; optional seconds and fraction), optionally followed by `Z` or a UTC offset
    /// (`+02:00`, `+0200`, `+02`; a space before it allowed). Without an offset it is a local time.
    public init?(parsing text: String) {
        var rest = Substring(text.trimmingSpaces())
        guard rest.count >= 10, let date = CivilDate(rest.prefix(10)) else { return nil }
        rest = rest.dropFirst(10)
        var local = Microseconds.days(Int64(date.daysSince1970))
        if let separator = rest.first, separator == "T" || separator == "t" || separator == " " {
            rest = rest.dropFirst().drop { $0 == " " }
            guard let time = Self.clock(&rest) else { return nil }
            local += time
        }
        rest = rest.drop { $0 == " " }
        if rest.isEmpty {
            self = .local(local)
            return
        }
        guard let offset = Self.offset(rest) else { return nil }
        self = .instant(Instant(sinceEpoch: local - .seconds(offset)))
    }

    /// `H:MM`, `HH:MM:SS` or `HH:MM:SS.ffffff` from the start of `rest` (consumed), in microseconds.
    private static func clock(_ rest: inout Substring) -> Microseconds? {
        let hour = rest.prefix { $0.isASCII && $0.isNumber }
        guard (1...2).contains(hour.count), let h = Int64(hour), h < 24 else { return nil }
        rest = rest.dropFirst(hour.count)
        guard rest.first == ":" else { return nil }
        let minute = rest.dropFirst().prefix { $0.isASCII && $0.isNumber }
        guard minute.count == 2, let m = Int64(minute), m < 60 else { return nil }
        rest = rest.dropFirst(3)
        var time = Microseconds.hours(h) + .minutes(m)
        if rest.first == ":" {
            let second = rest.dropFirst().prefix { $0.isASCII && $0.isNumber }
            guard second.count == 2, let s = Int64(second), s < 60 else { return nil }
            rest = rest.dropFirst(3)
            time += .seconds(s)
            if rest.first == "." {
                let fraction = rest.dropFirst().prefix { $0.isASCII && $0.isNumber }
                guard !fraction.isEmpty else { return nil }
                rest = rest.dropFirst(1 + fraction.count)
                let digits = String((fraction + "000000").prefix(6))
                time += Microseconds(Int64(digits) ?? 0)
            }
        }
        return time
    }

    /// `Z`, `±HH`, `±HHMM` or `±HH:MM`, the whole of `text`, in seconds east of UTC.
    private static func offset(_ text: Substring) -> Int64? {
        if text == "Z" || text == "z" { return 0 }
        guard let sign = text.first, sign == "+" || sign == "-" || sign == "−" else { return nil }
        let body = text.dropFirst()
        let digits = String(body.count == 5 && body.dropFirst(2).first == ":" ? body.filter { $0 != ":" } : body)
        guard digits.count == 2 || digits.count == 4, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
            let h = Int64(digits.prefix(2)), let m = Int64(digits.count == 4 ? digits.suffix(2) : "0"),
            h <= 18, m < 60
        else { return nil }
        let seconds = h * Seconds.perHour + m * Seconds.perMinute
        return sign == "+" ? seconds : -seconds
    }
}

/// Where a user's prediction starts, and what it knows at that moment.
public enum PredictionOrigin {
    /// History older than this before the origin is stale.
    public static let staleAfter = Microseconds.days(7)

    /// The origin for `history` (all the user's launches): an instant as given; a local time on
    /// the user's clock as it was then (the offset of the last launch at or before that local
    /// time, so that a DST change or a trip since does not move it; the first launch's before
    /// the log); by default, the local midnight after the last launch. Nil without launches.
    public static func resolve(_ requested: RequestedOrigin?, in history: UserHistory) -> Instant? {
        guard let first = history.launches.first, let last = history.launches.last else { return nil }
        switch requested {
        case .instant(let t):
            return t
        case .local(let wallClock):
            let seconds = wallClock.wholeSeconds
            let then = history.launches.last { $0.localSeconds <= seconds } ?? first
            return Instant(sinceEpoch: wallClock - .seconds(Int64(then.offset)))
        case nil:
            return LocalCalendar.midnight(after: last.time, offset: last.offset)
        }
    }

    /// Whole days between the last launch of `history` before `origin` and `origin`, when that
    /// is more than ``staleAfter``; nil when the history is fresh (or empty).
    public static func staleDays(_ history: UserHistory, origin: Instant) -> Int? {
        guard let last = history.launches.last(where: { $0.time < origin }) else { return nil }
        let age = origin - last.time
        return age > staleAfter ? Int(age / Microseconds.perDay) : nil
    }
}

extension String {
    fileprivate func trimmingSpaces() -> Substring {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s.removeFirst() }
        while let l = s.last, l.isWhitespace { s.removeLast() }
        return s
    }
}
