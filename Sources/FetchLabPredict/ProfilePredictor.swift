import FetchLabCore
import Foundation

/// Time-of-day profile: per app, a circular kernel density of launches over the minutes of the
/// day, kept separately for weekdays and weekends, shrunk towards the pooled profile when a day
/// type has few days, and recency-weighted (a launch counts half after `halfLifeDays`) so that a
/// changed habit takes over within days.
public struct ProfilePredictor: UsePredictor {
    public var name: String { "profile" }
    public var halfLifeDays = 5.0
    /// Kernel bandwidth (standard deviation), minutes.
    public var bandwidthMinutes = 8.0
    /// Pseudo-days of the pooled profile mixed into each day type's.
    public var shrinkageDays = 3.0

    private var counts: [[[Double]]] = []  // app → [weekday, weekend] → 1440 minutes
    private var firstDay: Int? = nil
    private var lastDay = 0
    private let kernel: [Double]

    public init(halfLifeDays: Double = 5, bandwidthMinutes: Double = 8, shrinkageDays: Double = 3) {
        self.halfLifeDays = halfLifeDays
        self.bandwidthMinutes = bandwidthMinutes
        self.shrinkageDays = shrinkageDays
        let reach = Int((3 * bandwidthMinutes).rounded(.up))
        var k = (-reach...reach).map { exp(-0.5 * pow(Double($0) / bandwidthMinutes, 2)) }
        let sum = k.reduce(0, +)
        k = k.map { $0 / sum }
        kernel = k
    }

    @inline(__always) private func weight(day: Int) -> Double {
        exp2(Double(day - (firstDay ?? day)) / halfLifeDays)
    }

    public mutating func observe(_ launch: UsageEvent) {
        let day = launch.localDay
        if firstDay == nil { firstDay = day }
        lastDay = max(lastDay, day)
        let app = Int(launch.app)
        while counts.count <= app {
            counts.append([Array(repeating: 0, count: 1440), Array(repeating: 0, count: 1440)])
        }
        // The counts are kept smoothed: each launch adds its kernel around its minute.
        let w = weight(day: day)
        let t = LocalCalendar.isWeekend(day) ? 1 : 0
        let reach = kernel.count / 2
        let m = launch.localMinute
        for (k, kw) in kernel.enumerated() {
            counts[app][t][(m + k - reach + 1440) % 1440] += w * kw
        }
    }

    /// Recency-weighted number of days of each type from the first observed day to `day` (excluded),
    /// and their plain numbers.
    private func dayWeights(upTo day: Int) -> (weighted: [Double], plain: [Double]) {
        var weighted = [0.0, 0.0]
        var plain = [0.0, 0.0]
        guard let first = firstDay else { return (weighted, plain) }
        for d in first..<max(first, day) {
            let t = LocalCalendar.isWeekend(d) ? 1 : 0
            weighted[t] += weight(day: d)
            plain[t] += 1
        }
        return (weighted, plain)
    }

    /// Expected launches in minute `m` of a day of type `t` (0 weekday, 1 weekend), given day weights.
    @inline(__always)
    private func rate(_ c: [[Double]], _ t: Int, _ m: Int, _ w: [Double], _ n: [Double]) -> Double {
        let pooledDays = w[0] + w[1]
        let pooled = pooledDays > 0 ? (c[0][m] + c[1][m]) / pooledDays : 0
        let own = w[t] > 0 ? c[t][m] / w[t] : pooled
        return (n[t] * own + shrinkageDays * pooled) / (n[t] + shrinkageDays)
    }

    /// Expected launches per minute of the day for `app` on weekdays and weekends, from the
    /// launches observed on the days before `day` (for reports; forecasts also use today's).
    public func rates(app: Int32, before day: Int) -> [[Double]] {
        let a = Int(app)
        guard a < counts.count, firstDay != nil else {
            return [Array(repeating: 0, count: 1440), Array(repeating: 0, count: 1440)]
        }
        let (w, n) = dayWeights(upTo: day)
        return (0..<2).map { t in (0..<1440).map { rate(counts[a], t, $0, w, n) } }
    }

    public func forecast(app: Int32, origin: Instant, offset: Int32, minutes: Int) -> Forecast {
        let a = Int(app)
        guard a < counts.count, firstDay != nil else { return .none(origin: origin, minutes: minutes) }
        let local = LocalCalendar.localSeconds(origin, offset: offset)
        let day = LocalCalendar.day(localSeconds: local)
        let startMinute = Int((local - Int64(day) * Seconds.perDay) / Seconds.perMinute)
        // The counts hold today's launches before the origin: minutes of the day before the
        // origin's have been seen on one more day than those after it.
        let (w0, n0) = dayWeights(upTo: day)
        var w1 = w0
        var n1 = n0
        if let first = firstDay, day >= first {
            let today = LocalCalendar.isWeekend(day) ? 1 : 0
            w1[today] += weight(day: day)
            n1[today] += 1
        }
        let c = counts[a]
        var hazard = [Double](repeating: 0, count: minutes)
        var intensity = [Double](repeating: 0, count: minutes)
        for s in 0..<minutes {
            let m = startMinute + s
            let mod = m % 1440
            let seenToday = mod < startMinute
            let lambda = rate(
                c, LocalCalendar.isWeekend(day + m / 1440) ? 1 : 0, mod, seenToday ? w1 : w0, seenToday ? n1 : n0)
            intensity[s] = lambda
            hazard[s] = -expm1(-lambda)
        }
        return Forecast.fromHazard(origin: origin, hazard: hazard, intensity: intensity)
    }
}
