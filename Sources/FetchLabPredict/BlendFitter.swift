import FetchLabCore

/// A next-app ranking case of the fit period: each component's normalised scores, and the app
/// that came next.
public struct NextAppSample: Sendable {
    public var scores: [[Float]]
    public var target: Int
}

/// Fits the blend's mixture weights on fit-period samples: the weights on a simplex grid (step
/// 0.1) whose mixture median has the least mean absolute error of the next-use time.
public enum BlendFitter {
    public static func fit(samples: [[[Float]]], targets: [Double], components: Int) -> [Double] {
        guard !samples.isEmpty, components > 0 else {
            return Array(repeating: 1 / Double(max(1, components)), count: components)
        }
        // At most 4000 samples, evenly spread (deterministic).
        let stride = max(1, samples.count / 4000)
        let picked = Swift.stride(from: 0, to: samples.count, by: stride).map { $0 }
        var best = [Double](repeating: 0, count: components)
        best[0] = 1
        var bestError = Double.infinity
        for w in grid(components, steps: 10) {
            var error = 0.0
            for i in picked {
                let s = samples[i]
                let n = s[0].count
                var total = 0.0
                for c in 0..<components where w[c] > 0 { total += w[c] * Double(s[c][n - 1]) }
                var predicted = Double(n * 5)
                if total > 1e-9 {
                    let half = total / 2
                    var lo = 0
                    var hi = n - 1
                    while lo < hi {
                        let mid = (lo + hi) / 2
                        var v = 0.0
                        for c in 0..<components where w[c] > 0 { v += w[c] * Double(s[c][mid]) }
                        if v >= half { hi = mid } else { lo = mid + 1 }
                    }
                    predicted = Double(lo * 5 + 2)
                }
                error += abs(predicted - targets[i])
            }
            if error < bestError - 1e-9 {
                bestError = error
                best = w
            }
        }
        return best
    }

    /// Weights of the components' normalised next-app scores with the best mean reciprocal rank.
    public static func fitNextApp(_ samples: [NextAppSample], components: Int) -> [Double] {
        guard !samples.isEmpty else { return Array(repeating: 1 / Double(max(1, components)), count: components) }
        let stride = max(1, samples.count / 6000)
        let picked = Swift.stride(from: 0, to: samples.count, by: stride).map { samples[$0] }
        var best = [Double](repeating: 1 / Double(components), count: components)
        var bestScore = -1.0
        for w in grid(components, steps: 10) {
            var total = 0.0
            for s in picked {
                let apps = s.scores[0].count
                var target = 0.0
                for c in 0..<components where w[c] > 0 { target += w[c] * Double(s.scores[c][s.target]) }
                var rank = 1
                for a in 0..<apps where a != s.target {
                    var v = 0.0
                    for c in 0..<components where w[c] > 0 { v += w[c] * Double(s.scores[c][a]) }
                    if v > target || (v == target && a < s.target) { rank += 1 }
                }
                total += 1 / Double(rank)
            }
            if total > bestScore + 1e-9 {
                bestScore = total
                best = w
            }
        }
        return best
    }

    /// All weight vectors with `components` entries, multiples of 1/steps, summing to 1.
    static func grid(_ components: Int, steps: Int) -> [[Double]] {
        if components == 1 { return [[1]] }
        var out: [[Double]] = []
        func rec(_ prefix: [Int], _ left: Int) {
            if prefix.count == components - 1 {
                out.append((prefix + [left]).map { Double($0) / Double(steps) })
                return
            }
            for k in 0...left { rec(prefix + [k], left - k) }
        }
        rec([], steps)
        return out
    }
}
