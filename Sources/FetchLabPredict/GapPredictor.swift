import FetchLabCore
import Foundation

/// Time until next use (as in PREPP): per app, the recency-weighted distribution of gaps between
/// consecutive uses, conditioned on the time already elapsed since the last use (a hazard). For
/// apps without a clock-like routine.
public struct GapPredictor: UsePredictor {
    public var name: String { "gap" }
    public var halfLifeDays = 14.0
    /// Gap bins: log-spaced from 30 s to 60 days.
    static let edges: [Double] = {
        let lo = log(30.0)
        let hi = log(60.0 * Double(Seconds.perDay))
        return (0...80).map { exp(lo + (hi - lo) * Double($0) / 80) }
    }()

    private var histograms: [[Double]] = []
    private var last: [Instant?] = []
    private var firstTime: Instant? = nil

    public init(halfLifeDays: Double = 14) { self.halfLifeDays = halfLifeDays }

    public mutating func observe(_ launch: UsageEvent) {
        let a = Int(launch.app)
        while histograms.count <= a {
            histograms.append(Array(repeating: 0, count: Self.edges.count - 1))
            last.append(nil)
        }
        let first = firstTime ?? launch.time
        firstTime = first
        if let previous = last[a] {
            let gap = (launch.time - previous).inSeconds
            let w = exp2((launch.time - first).inDays / halfLifeDays)
            histograms[a][Self.bin(gap)] += w
        }
        last[a] = launch.time
    }

    static func bin(_ seconds: Double) -> Int {
        if seconds <= edges[0] { return 0 }
        let i = Int(
            (log(seconds) - log(edges[0])) / (log(edges[edges.count - 1]) - log(edges[0])) * Double(edges.count - 1))
        return min(edges.count - 2, max(0, i))
    }

    /// Weight of gaps longer than `seconds` (linear inside a bin, in log time), from tail sums.
    @inline(__always)
    private static func survival(_ h: [Double], _ tail: [Double], _ seconds: Double) -> Double {
        if seconds <= edges[0] { return tail[0] }
        if seconds >= edges[edges.count - 1] { return 0 }
        let b = bin(seconds)
        let lo = log(edges[b])
        let hi = log(edges[b + 1])
        let frac = max(0, min(1, (log(seconds) - lo) / (hi - lo)))
        return tail[b + 1] + h[b] * (1 - frac)
    }

    public func forecast(app: Int32, origin: Instant, offset: Int32, minutes: Int) -> Forecast {
        let a = Int(app)
        guard a < histograms.count, let previous = last[a] else { return .none(origin: origin, minutes: minutes) }
        let h = histograms[a]
        var tail = [Double](repeating: 0, count: h.count + 1)  // tail[i] = sum of h[i...]
        for i in stride(from: h.count - 1, through: 0, by: -1) { tail[i] = tail[i + 1] + h[i] }
        let elapsed = (origin - previous).inSeconds
        let s0 = Self.survival(h, tail, elapsed)
        guard s0 > 1e-12 else { return .none(origin: origin, minutes: minutes) }
        var density = [Double](repeating: 0, count: minutes)
        var before = s0
        for i in 0..<minutes {
            let after = Self.survival(h, tail, elapsed + Double(i + 1) * Double(Seconds.perMinute))
            density[i] = max(0, before - after) / s0
            before = after
        }
        return Forecast(origin: origin, density: density, beyond: before / s0)
    }
}
