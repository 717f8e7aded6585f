import FetchLabCore
import FetchLabResults
import Foundation

/// Planning: a forecast's fetch moments.
extension FetchPlanner {
    /// The score of the forecast's busiest freshness window: its expected uses, capped at 1 (what
    /// ``plan(_:)`` compares with the threshold first).
    public func peakScore(_ forecast: Forecast) -> Double {
        let curve = forecast.intensity ?? forecast.density
        let n = curve.count
        guard n > 0 else { return 0 }
        let w = max(1, Int(freshness / .perMinute))
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
        let w = max(1, Int(freshness / .perMinute))
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
            let fetchAt = forecast.origin + .minutes(fractional: max(0, b.median - lead.inMinutes))
            let planned = PlannedFetch(
                fetchAt: fetchAt, expectedUse: forecast.origin + .minutes(fractional: b.median),
                intervalLow: forecast.origin + .minutes(fractional: b.low),
                intervalHigh: forecast.origin + .minutes(fractional: b.high),
                probability: calibration(b.p), score: b.p)
            // Moments closer than the freshness window are one fetch (the earlier, serving both).
            if let last = fetches.last, planned.fetchAt - last.fetchAt < freshness {
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
