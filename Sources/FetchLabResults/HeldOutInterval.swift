import FetchLabCore

/// A fresh rate measured on held-out users (launch-weighted: their fresh launches over their
/// scored launches) with a 95 % bootstrap interval over those users: the users are drawn with
/// replacement `resamples` times by a seeded generator, and the interval is the 2.5th to 97.5th
/// percentile of the rates of the draws. With one user there is no interval.
public struct HeldOutInterval: Sendable, Codable, Hashable {
    /// τ of the fresh rate (JSON `tau_minutes`).
    @InMinutes public var tau: Microseconds
    public var fresh: Double
    /// The interval's ends (nil: fewer than two users, nothing to resample).
    public var low: Double?
    public var high: Double?
    /// Users with scored launches, and their scored launches.
    public var users: Int
    public var scoredLaunches: Int
    public var resamples: Int
    public var seed: UInt64

    public init(
        tau: Microseconds, fresh: Double, low: Double?, high: Double?, users: Int, scoredLaunches: Int,
        resamples: Int, seed: UInt64
    ) {
        self.tau = tau
        self.fresh = fresh
        self.low = low
        self.high = high
        self.users = users
        self.scoredLaunches = scoredLaunches
        self.resamples = resamples
        self.seed = seed
    }

    enum CodingKeys: String, CodingKey {
        case tau = "tauMinutes", fresh, low, high, users, scoredLaunches, resamples, seed
    }

    /// The rate and interval of `users` (fresh and scored launches each; users without a scored
    /// launch are left out). Nil when no launch is scored.
    public static func bootstrap(
        _ users: [(fresh: Int, scored: Int)], tau: Microseconds, resamples: Int = 1_000, seed: UInt64 = 1
    ) -> HeldOutInterval? {
        let kept = users.filter { $0.scored > 0 }
        let scored = kept.reduce(0) { $0 + $1.scored }
        guard scored > 0 else { return nil }
        let fresh = Double(kept.reduce(0) { $0 + $1.fresh }) / Double(scored)
        var out = HeldOutInterval(
            tau: tau, fresh: fresh, low: nil, high: nil, users: kept.count, scoredLaunches: scored,
            resamples: resamples, seed: seed)
        guard kept.count >= 2, resamples >= 2 else { return out }
        var rng = SplitMix64(seed: seed)
        var rates: [Double] = []
        rates.reserveCapacity(resamples)
        for _ in 0..<resamples {
            var f = 0
            var s = 0
            for _ in kept.indices {
                let u = kept[Int(rng.next() % UInt64(kept.count))]
                f += u.fresh
                s += u.scored
            }
            rates.append(Double(f) / Double(s))
        }
        rates.sort()
        let last = Double(resamples - 1)
        out.low = rates[Int((0.025 * last).rounded(.down))]
        out.high = rates[Int((0.975 * last).rounded(.up))]
        return out
    }
}

/// Whether one constraint held on a fold's test part, and the value it was checked on.
public struct ConstraintCheck: Sendable, Codable, Hashable {
    /// `fetches<=2/app/day`.
    public var constraint: String
    /// The chosen setting's value on the test part (nil: the replay did not report the metric).
    public var value: Double?
    public var held: Bool

    public init(constraint: String, value: Double?, held: Bool) {
        self.constraint = constraint
        self.value = value
        self.held = held
    }
}

/// How often one constraint held on the folds' test parts.
public struct ConstraintTally: Sendable, Codable, Hashable {
    public var constraint: String
    public var held: Int
    public var folds: Int

    public init(constraint: String, held: Int, folds: Int) {
        self.constraint = constraint
        self.held = held
        self.folds = folds
    }
}
