import FetchLabCore
import Foundation

/// A planned fetch: when to fetch, for which expected use.
/// What a fetch at a planned moment is expected to run on and cost, from the same moments of the
/// user's past days (filled by the caller that knows the device context and the cost model).
public struct FetchOutlook: Sendable, Codable, Equatable {
    /// Shares of the past days on Wi-Fi, on cellular, without a network, and charging.
    public var wifi: Double
    public var cellular: Double
    public var offline: Double
    public var charging: Double
    /// Expected battery energy of the fetch, joules (nothing while charging).
    public var joules: Double
    /// How many past days the shares come from.
    public var days: Int
    /// No context sample of the user before the origin: every share is the stated default (Wi-Fi,
    /// 80 %, not charging), assumed, not observed.
    public var assumed = false

    public init(wifi: Double, cellular: Double, offline: Double, charging: Double, joules: Double, days: Int) {
        self.wifi = wifi
        self.cellular = cellular
        self.offline = offline
        self.charging = charging
        self.joules = joules
        self.days = days
    }
}

public struct PlannedFetch: Sendable, Codable, Equatable {
    /// When to fetch (UTC microseconds).
    public var fetchAt: Microseconds
    /// The expected use it serves (median of the predicted bump), and an 80 % interval around it.
    public var expectedUse: Microseconds
    public var intervalLow: Microseconds
    public var intervalHigh: Microseconds
    /// The probability that the app is launched within the freshness window after `fetchAt`
    /// (in [fetchAt, fetchAt + freshness]): the ``score`` mapped by the planner's calibration;
    /// the score itself when the planner is not calibrated.
    public var probability: Double
    /// The planner's raw score of the bump: the predictor's expected number of uses within the
    /// freshness window around the expected use, capped at 1. The threshold applies to it.
    public var score: Double
    /// The expected network and energy at that moment (nil until a caller fills it).
    public var outlook: FetchOutlook? = nil
}

/// Turns a forecast into fetch moments: a fetch `leadMinutes` before each predicted use that is
/// likely enough, moments closer than the freshness window merged into one.
public struct FetchPlanner: Sendable, Codable {
    /// Minutes between the fetch and the expected use; must cover the fetch itself.
    public var leadMinutes = 10.0
    /// How long a fetch takes (a fetch must end before the use).
    public var fetchDurationMinutes = 0.5
    /// Plan a fetch only for a bump whose score (expected uses in the window) is at least this;
    /// it selects the same fetches whether or not the planner is calibrated.
    public var threshold = 0.5
    /// Content fetched is fresh for this long: uses within it share a fetch, and a bump's
    /// probability is counted over this window.
    public var freshnessMinutes = 30.0
    /// Maps a bump's score to the stated probability of a launch within the freshness window
    /// after the fetch; fitted on past plans (``Evaluator/calibrated(_:for:on:)``), the identity
    /// until then.
    public var calibration = ProbabilityCalibrator.identity

    public init(
        leadMinutes: Double = 10, threshold: Double = 0.5, freshnessMinutes: Double = 30,
        calibration: ProbabilityCalibrator = .identity
    ) {
        self.leadMinutes = leadMinutes
        self.threshold = threshold
        self.freshnessMinutes = freshnessMinutes
        self.calibration = calibration
    }

    /// Problems with the settings, as sentences (empty when usable).
    public func problems() -> [String] {
        var out: [String] = []
        if leadMinutes < fetchDurationMinutes {
            out.append("the lead time (\(leadMinutes) min) must cover the fetch duration (\(fetchDurationMinutes) min)")
        }
        if !(0...1).contains(threshold) { out.append("the probability threshold must be in 0…1") }
        if freshnessMinutes <= 0 { out.append("the freshness window must be positive") }
        return out
    }

    /// The score of the forecast's busiest freshness window: its expected uses, capped at 1 (what
    /// ``plan(_:)`` compares with the threshold first).
    public func peakScore(_ forecast: Forecast) -> Double {
        let curve = forecast.intensity ?? forecast.density
        let n = curve.count
        guard n > 0 else { return 0 }
        let w = max(1, Int(freshnessMinutes))
        var sum = curve[0..<min(w, n)].reduce(0, +)
        var best = sum
        if n > w {
            for start in 1...(n - w) {
                sum += curve[start + w - 1] - curve[start - 1]
                best = max(best, sum)
            }
        }
        return min(1, max(0, best))
    }

    /// The fetch moments for one app's forecast, in time order.
    public func plan(_ forecast: Forecast) -> [PlannedFetch] {
        // Expected uses per minute: the predictor's intensity when it has one (all uses),
        // else the next-use density (the first use only).
        let curve = forecast.intensity ?? forecast.density
        let n = curve.count
        guard n > 0 else { return [] }
        let w = max(1, Int(freshnessMinutes))
        var remaining = curve
        var bumps: [(median: Double, low: Double, high: Double, p: Double)] = []
        while true {
            // The window of `w` minutes holding the most expected use.
            var best = -1.0
            var bestStart = 0
            var sum = remaining[0..<min(w, n)].reduce(0, +)
            for start in 0...(max(0, n - w)) {
                if start > 0 {
                    sum += (start + w - 1 < n ? remaining[start + w - 1] : 0) - remaining[start - 1]
                }
                if sum > best {
                    best = sum
                    bestStart = start
                }
            }
            // The bump's score: the expected number of uses in the window, capped at 1 (a daily
            // habit's bump holds about one use a day); the calibration makes it a probability.
            let p = min(1, best)
            if p < threshold || best <= 0 { break }
            let window = Array(remaining[bestStart..<min(n, bestStart + w)])
            let total = window.reduce(0, +)
            func quantile(_ q: Double) -> Double {
                var c = 0.0
                for (i, v) in window.enumerated() where v > 0 {
                    if c + v >= q * total { return Double(bestStart + i) + (q * total - c) / v }
                    c += v
                }
                return Double(bestStart + window.count)
            }
            bumps.append((quantile(0.5), quantile(0.1), quantile(0.9), p))
            for i in bestStart..<min(n, bestStart + w) { remaining[i] = 0 }
        }
        bumps.sort { $0.median < $1.median }
        var fetches: [PlannedFetch] = []
        for b in bumps {
            let fetchAt = forecast.origin + .minutes(fractional: max(0, b.median - leadMinutes))
            let planned = PlannedFetch(
                fetchAt: fetchAt, expectedUse: forecast.origin + .minutes(fractional: b.median),
                intervalLow: forecast.origin + .minutes(fractional: b.low),
                intervalHigh: forecast.origin + .minutes(fractional: b.high),
                probability: calibration(b.p), score: b.p)
            // Moments closer than the freshness window are one fetch (the earlier, serving both).
            if let last = fetches.last,
                Double(planned.fetchAt - last.fetchAt) < freshnessMinutes * Double(Microseconds.perMinute)
            {
                fetches[fetches.count - 1].score = max(last.score, planned.score)
                fetches[fetches.count - 1].probability = calibration(fetches[fetches.count - 1].score)
                fetches[fetches.count - 1].intervalHigh = planned.intervalHigh
                continue
            }
            fetches.append(planned)
        }
        return fetches
    }
}
