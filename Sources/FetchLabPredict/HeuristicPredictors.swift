import FetchLabCore
import Foundation

/// Android's heuristic, from its public description: the system estimates each app's next launch
/// from recent usage statistics, and `PrefetchController` runs an app's prefetch jobs only when
/// that estimate is within a threshold (7 hours by default). Here the estimate is the last launch
/// plus the app's mean gap between launches over the past `lookbackDays` (a day when it was used
/// once), rolled forward past the origin; no launch in the lookback means no estimate.
public struct AndroidHeuristicPredictor: UsePredictor {
    public var name: String { "android" }
    public var lookbackDays = 7.0
    /// Prefetch only when the estimated launch is this close (the platform's default is 7 h).
    public var thresholdHours = 7.0
    private var recent: [[Instant]] = []

    public init(lookbackDays: Double = 7, thresholdHours: Double = 7) {
        self.lookbackDays = lookbackDays
        self.thresholdHours = thresholdHours
    }

    public mutating func observe(_ launch: UsageEvent) {
        let a = Int(launch.app)
        while recent.count <= a { recent.append([]) }
        recent[a].append(launch.time)
        let cutoff = launch.time - Microseconds(lookbackDays * Double(Microseconds.perDay))
        if let first = recent[a].firstIndex(where: { $0 >= cutoff }), first > 0 { recent[a].removeFirst(first) }
    }

    /// The estimated next launch at or after `origin`, or nil.
    public func estimatedLaunch(app: Int32, origin: Instant) -> Instant? {
        let a = Int(app)
        guard a < recent.count else { return nil }
        let cutoff = origin - Microseconds(lookbackDays * Double(Microseconds.perDay))
        // The launches in [cutoff, origin]: the first, the last and how many (asked every 15
        // minutes of a replay, so without building the list).
        var first: Instant? = nil
        var last = Instant.epoch
        var count: Int64 = 0
        for t in recent[a] where t >= cutoff && t <= origin {
            if first == nil { first = t }
            last = t
            count += 1
        }
        guard let first else { return nil }
        // At least a minute: launches sharing one instant would make it 0.
        let gap = max(count >= 2 ? (last - first) / (count - 1) : Microseconds.perDay, Microseconds.perMinute)
        var estimate = last + gap
        if estimate < origin { estimate += ((origin - estimate) / gap + 1) * gap }
        return estimate
    }

    /// Whether the platform would let a prefetch job run now.
    public func wouldPrefetch(app: Int32, origin: Instant) -> Bool {
        guard let e = estimatedLaunch(app: app, origin: origin) else { return false }
        return Double(e - origin) <= thresholdHours * Double(Microseconds.perHour)
    }

    public func forecast(app: Int32, origin: Instant, offset: Int32, minutes: Int) -> Forecast {
        let e = estimatedLaunch(app: app, origin: origin)
        return .point(origin: origin, minutes: minutes, at: e.map { ($0 - origin).inMinutes })
    }
}

/// Baseline: the next use comes at the same clock time as the last one, a day later.
public struct DailyRepeatBaseline: UsePredictor {
    public var name: String { "same-time-tomorrow" }
    private var last: [Instant?] = []
    public init() {}

    public mutating func observe(_ launch: UsageEvent) {
        let a = Int(launch.app)
        while last.count <= a { last.append(nil) }
        last[a] = launch.time
    }

    public func forecast(app: Int32, origin: Instant, offset: Int32, minutes: Int) -> Forecast {
        let a = Int(app)
        guard a < last.count, let l = last[a] else { return .none(origin: origin, minutes: minutes) }
        var e = l + Microseconds.perDay
        while e < origin { e += Microseconds.perDay }
        return .point(origin: origin, minutes: minutes, at: (e - origin).inMinutes)
    }
}

/// Baseline: the next gap is the same as the last one.
public struct LastGapBaseline: UsePredictor {
    public var name: String { "last-gap" }
    private var last: [(Instant, Instant?)?] = []
    public init() {}

    public mutating func observe(_ launch: UsageEvent) {
        let a = Int(launch.app)
        while last.count <= a { last.append(nil) }
        last[a] = (launch.time, last[a]?.0)
    }

    public func forecast(app: Int32, origin: Instant, offset: Int32, minutes: Int) -> Forecast {
        let a = Int(app)
        guard a < last.count, let (l, p) = last[a] else { return .none(origin: origin, minutes: minutes) }
        let gap = max(Microseconds.perMinute, p.map { l - $0 } ?? Microseconds.perDay)
        var e = l + gap
        if e < origin { e += ((origin - e) / gap + 1) * gap }
        return .point(origin: origin, minutes: minutes, at: (e - origin).inMinutes)
    }
}

/// Most frequently used apps first (next-app baseline).
public struct MostFrequentBaseline: UsePredictor {
    public var name: String { "most-frequent" }
    /// Ranks apps only: it knows nothing of when.
    public var forecastsTiming: Bool { false }
    private var counts: [Double] = []
    public init() {}
    public mutating func observe(_ launch: UsageEvent) {
        let a = Int(launch.app)
        while counts.count <= a { counts.append(0) }
        counts[a] += 1
    }
    public func forecast(app: Int32, origin: Instant, offset: Int32, minutes: Int) -> Forecast {
        .none(origin: origin, minutes: minutes)
    }
    public func nextAppScores(apps: Int, origin: Instant, offset: Int32) -> [Double] {
        (0..<apps).map { $0 < counts.count ? counts[$0] : 0 }
    }
}

/// Most recently used apps first (next-app baseline).
public struct MostRecentBaseline: UsePredictor {
    public var name: String { "most-recent" }
    /// Ranks apps only: it knows nothing of when.
    public var forecastsTiming: Bool { false }
    private var last: [Double] = []
    public init() {}
    public mutating func observe(_ launch: UsageEvent) {
        let a = Int(launch.app)
        while last.count <= a { last.append(-.infinity) }
        last[a] = Double(launch.time.sinceEpoch)
    }
    public func forecast(app: Int32, origin: Instant, offset: Int32, minutes: Int) -> Forecast {
        .none(origin: origin, minutes: minutes)
    }
    public func nextAppScores(apps: Int, origin: Instant, offset: Int32) -> [Double] {
        (0..<apps).map { $0 < last.count ? last[$0] : -.infinity }
    }
}

/// A weighted mixture of predictors' forecasts; the weights are fitted on training time by
/// ``BlendFitter``.
public struct BlendPredictor: UsePredictor {
    public var name: String { "blend" }
    public var parts: [any UsePredictor]
    /// Mixture weights of the next-use forecasts.
    public var weights: [Double]
    /// Weights of the parts' (normalised) next-app scores; fitted separately, for ranking.
    public var nextAppWeights: [Double]

    public init(parts: [any UsePredictor], weights: [Double], nextAppWeights: [Double]? = nil) {
        self.parts = parts
        self.weights = Self.normalised(weights)
        self.nextAppWeights = Self.normalised(nextAppWeights ?? weights)
    }

    static func normalised(_ w: [Double]) -> [Double] {
        let sum = w.reduce(0, +)
        return sum > 0 ? w.map { $0 / sum } : Array(repeating: 1 / Double(max(1, w.count)), count: w.count)
    }

    /// A part's next-app scores scaled to sum to 1 (so that parts are comparable).
    static func normalisedScores(_ s: [Double]) -> [Double] {
        let finite = s.map { $0.isFinite ? max(0, $0) : 0 }
        let sum = finite.reduce(0, +)
        return sum > 0 ? finite.map { $0 / sum } : finite
    }

    public mutating func observe(_ launch: UsageEvent) {
        for i in parts.indices { parts[i].observe(launch) }
    }

    public func forecast(app: Int32, origin: Instant, offset: Int32, minutes: Int) -> Forecast {
        Forecast.mixture(
            zip(parts, weights).filter { $0.1 > 0 }.map {
                ($0.0.forecast(app: app, origin: origin, offset: offset, minutes: minutes), $0.1)
            }, origin: origin, minutes: minutes)
    }

    public func nextAppScores(apps: Int, origin: Instant, offset: Int32) -> [Double] {
        var scores = [Double](repeating: 0, count: apps)
        for (p, w) in zip(parts, nextAppWeights) where w > 0 {
            let s = Self.normalisedScores(p.nextAppScores(apps: apps, origin: origin, offset: offset))
            for i in 0..<apps { scores[i] += w * s[i] }
        }
        return scores
    }
}
