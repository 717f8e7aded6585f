import FetchLabCore
import Foundation

/// Sequence: after app A is launched, which app follows within `windowMinutes`, as a
/// prediction-by-partial-matching model of order 2 falling back to order 1 (A alone); the delay
/// to the follower is the user's empirical delay distribution. Answers "which app next" and
/// sharpens "when" in the minutes after a launch; says nothing outside that window.
public struct SequencePredictor: UsePredictor {
    public var name: String { "sequence" }
    public var windowMinutes = 15.0
    /// Weight of the order-1 estimate inside an order-2 one (PPM-style blending).
    public var backoff = 2.0

    private var order1: [Int32: [Int32: Double]] = [:]
    private var order1Total: [Int32: Double] = [:]
    private var order2: [Int64: [Int32: Double]] = [:]
    private var order2Total: [Int64: Double] = [:]
    /// Delays to the follower, in 30-second bins over the window.
    private var delays: [Double]
    private var previous: UsageEvent? = nil
    private var beforePrevious: UsageEvent? = nil

    public init(windowMinutes: Double = 15) {
        self.windowMinutes = windowMinutes
        delays = Array(repeating: 0.5, count: Int(windowMinutes * 2))  // a flat prior
    }

    private static func key(_ a: Int32, _ b: Int32) -> Int64 { Int64(a) << 32 | Int64(UInt32(bitPattern: b)) }

    private var windowMicros: Microseconds { .minutes(fractional: windowMinutes) }

    public mutating func observe(_ launch: UsageEvent) {
        if let p = previous {
            // p's launch either had a follower within the window (this one) or none.
            let follows = launch.time - p.time <= windowMicros
            order1Total[p.app, default: 0] += 1
            if follows {
                order1[p.app, default: [:]][launch.app, default: 0] += 1
                let bin = min(delays.count - 1, Int(Double(launch.time - p.time) / 30e6))
                delays[bin] += 1
            }
            if let pp = beforePrevious, p.time - pp.time <= windowMicros {
                let k = Self.key(pp.app, p.app)
                order2Total[k, default: 0] += 1
                if follows { order2[k, default: [:]][launch.app, default: 0] += 1 }
            }
        }
        beforePrevious = previous
        previous = launch
    }

    /// Probability that `app` is the follower of the last launch (within the window).
    private func followProbability(_ app: Int32) -> Double {
        guard let p = previous, let n1 = order1Total[p.app], n1 > 0 else { return 0 }
        let p1 = (order1[p.app]?[app] ?? 0) / n1
        if let pp = beforePrevious, p.time - pp.time <= windowMicros {
            let k = Self.key(pp.app, p.app)
            if let n2 = order2Total[k], n2 > 0 {
                return ((order2[k]?[app] ?? 0) + backoff * p1) / (n2 + backoff)
            }
        }
        return p1
    }

    public func forecast(app: Int32, origin: Instant, offset: Int32, minutes: Int) -> Forecast {
        guard let p = previous else { return .none(origin: origin, minutes: minutes) }
        let elapsed = Double(origin - p.time) / 30e6  // in 30-second bins
        guard elapsed < Double(delays.count) else { return .none(origin: origin, minutes: minutes) }
        let probability = followProbability(app)
        guard probability > 0 else { return .none(origin: origin, minutes: minutes) }
        // Delay distribution after the elapsed time, spread over the minutes of the horizon.
        let start = Int(elapsed)
        var remaining = 0.0
        for b in start..<delays.count { remaining += delays[b] }
        guard remaining > 0 else { return .none(origin: origin, minutes: minutes) }
        var density = [Double](repeating: 0, count: minutes)
        for b in start..<delays.count {
            let minute = Int((Double(b) + 0.5 - elapsed) / 2)
            if minute >= 0 && minute < minutes { density[minute] += probability * delays[b] / remaining }
        }
        let mass = density.reduce(0, +)
        return Forecast(origin: origin, density: density, beyond: 1 - mass)
    }

    public func nextAppScores(apps: Int, origin: Instant, offset: Int32) -> [Double] {
        (0..<apps).map { followProbability(Int32($0)) }
    }
}
