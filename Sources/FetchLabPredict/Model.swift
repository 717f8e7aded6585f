import FetchLabCore
import Foundation

/// A predictor's answer for one app from an origin: the distribution of the time of the *next*
/// use over the horizon, minute by minute, and the chance of no use within the horizon.
public struct Forecast: Sendable {
    public let origin: Instant
    /// Probability that the next use falls in minute `i` after the origin.
    public var density: [Double]
    /// Probability of no use within the horizon.
    public var beyond: Double
    /// Expected number of uses in each minute (all uses, not only the next), when the predictor
    /// knows it (time-of-day profiles); the planner uses it to plan several fetches a day.
    public var intensity: [Double]?

    public init(origin: Instant, density: [Double], beyond: Double, intensity: [Double]? = nil) {
        self.origin = origin
        self.density = density
        self.beyond = max(0, beyond)
        self.intensity = intensity
    }

    /// No information: no use expected within `minutes`.
    public static func none(origin: Instant, minutes: Int) -> Forecast {
        Forecast(origin: origin, density: Array(repeating: 0, count: minutes), beyond: 1)
    }

    public var horizonMinutes: Int { density.count }

    /// Probability of a use within `minutes` of the origin.
    public func probability(within minutes: Double) -> Double {
        let whole = min(density.count, Int(minutes))
        var p = 0.0
        for i in 0..<whole { p += density[i] }
        if whole < density.count { p += density[whole] * (minutes - Double(whole)) }
        return min(1, p)
    }

    /// Probability of use somewhere in the horizon.
    public var total: Double { min(1, density.reduce(0, +)) }

    /// The `q` quantile of the next-use time given a use within the horizon, in minutes after
    /// the origin (interpolated inside the minute), or nil when no use is expected.
    public func quantile(_ q: Double) -> Double? {
        let mass = density.reduce(0, +)
        guard mass > 1e-9 else { return nil }
        let target = q * mass
        var cumulative = 0.0
        for (i, p) in density.enumerated() where p > 0 {
            if cumulative + p >= target { return Double(i) + (target - cumulative) / p }
            cumulative += p
        }
        return Double(density.count)
    }

    /// The expected next-use time: the median given a use within the horizon (minutes after origin).
    public var expectedNext: Double? { quantile(0.5) }

    /// An 80 % predictive interval (10th–90th percentile), minutes after the origin.
    public var interval: (low: Double, high: Double)? {
        guard let lo = quantile(0.1), let hi = quantile(0.9) else { return nil }
        return (lo, hi)
    }

    /// A point mass at `minute` (for heuristics that give one estimated time).
    static func point(origin: Instant, minutes: Int, at minute: Double?, probability: Double = 1) -> Forecast {
        var f = Forecast.none(origin: origin, minutes: minutes)
        if let minute, minute >= 0, minute < Double(minutes) {
            f.density[Int(minute)] = probability
            f.beyond = 1 - probability
        }
        return f
    }

    /// Builds the next-use distribution from per-minute use probabilities (a discrete hazard).
    static func fromHazard(origin: Instant, hazard: [Double], intensity: [Double]? = nil) -> Forecast {
        var density = [Double](repeating: 0, count: hazard.count)
        var survive = 1.0
        for (i, h) in hazard.enumerated() {
            density[i] = survive * h
            survive *= 1 - h
        }
        return Forecast(origin: origin, density: density, beyond: survive, intensity: intensity)
    }

    /// A weighted mixture of forecasts (weights summing to 1). The next-use densities mix with
    /// the weights; the intensity (all uses, for planning a day) comes from the parts that know
    /// it, their weights renormalised: a part that only knows the next use cannot tell the rest.
    static func mixture(_ parts: [(Forecast, Double)], origin: Instant, minutes: Int) -> Forecast {
        var density = [Double](repeating: 0, count: minutes)
        var beyond = 0.0
        for (f, w) in parts where w > 0 {
            for i in 0..<min(minutes, f.density.count) { density[i] += w * f.density[i] }
            beyond += w * f.beyond
        }
        var intensity: [Double]? = nil
        let knowing = parts.compactMap { f, w in f.intensity.map { ($0, w) } }.filter { $0.1 > 0 }
        let weight = knowing.reduce(0) { $0 + $1.1 }
        if weight > 0 {
            var sum = [Double](repeating: 0, count: minutes)
            for (fi, w) in knowing {
                for i in 0..<min(minutes, fi.count) { sum[i] += w / weight * fi[i] }
            }
            intensity = sum
        }
        return Forecast(origin: origin, density: density, beyond: beyond, intensity: intensity)
    }
}

/// A next-use predictor. It is causal by construction: it learns only through `observe`, which
/// the caller feeds in time order, and forecasts from an origin at or after the last observed
/// launch; it never sees a launch after the origin.
public protocol UsePredictor: Sendable {
    var name: String { get }
    /// Whether ``forecast(app:origin:offset:minutes:)`` says anything about when an app is used
    /// next (a pure next-app ranker answers "no use" and is not scored on timing).
    var forecastsTiming: Bool { get }
    /// Whether ``nextAppScores(apps:origin:offset:)`` ranks the apps (scored on next-app ranking).
    var ranksApps: Bool { get }
    /// Learns one launch (launches come in time order).
    mutating func observe(_ launch: UsageEvent)
    /// The next-use distribution of `app` over `minutes` from `origin` (local offset `offset`).
    func forecast(app: Int32, origin: Instant, offset: Int32, minutes: Int) -> Forecast
    /// How likely each app is to be the next one launched, just after `origin`.
    func nextAppScores(apps: Int, origin: Instant, offset: Int32) -> [Double]
}

extension UsePredictor {
    public var forecastsTiming: Bool { true }
    public var ranksApps: Bool { true }

    public func nextAppScores(apps: Int, origin: Instant, offset: Int32) -> [Double] {
        (0..<apps).map { forecast(app: Int32($0), origin: origin, offset: offset, minutes: 15).total }
    }
}
