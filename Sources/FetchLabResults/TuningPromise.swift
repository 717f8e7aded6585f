import FetchLabCore

/// What a tuned setting promises and what it kept: its fresh rate and its gain over the fixed
/// baseline on the same users and days (``FixedBaselineLine`` at the setting's own fetches per app
/// per day), on the training part and on the held-out part, each with a 95 % bootstrap interval.
/// The interval resamples users, or, with fewer than ``fewUsers`` users in a part, the users'
/// scored days (whole days as blocks): two users' own values are not an interval over users.
public struct TuningPromise: Sendable, Codable, Hashable {
    /// Below this many users in either part the intervals resample days, not users.
    public static let fewUsers = 10

    /// What a bootstrap unit resamples: `users` or `days` (of these users).
    public enum IntervalOver: String, Sendable, Codable, Hashable {
        case users, days
    }

    public var training: PromiseFigures
    public var heldOut: PromiseFigures
    public var intervalOver: IntervalOver
    /// τ of the fresh rates (JSON `tau_minutes`).
    @InMinutes public var tau: Microseconds
    public var resamples: Int
    public var seed: UInt64

    public init(
        training: PromiseFigures, heldOut: PromiseFigures, intervalOver: IntervalOver, tau: Microseconds,
        resamples: Int, seed: UInt64
    ) {
        self.training = training
        self.heldOut = heldOut
        self.intervalOver = intervalOver
        self.tau = tau
        self.resamples = resamples
        self.seed = seed
    }

    enum CodingKeys: String, CodingKey {
        case training, heldOut, intervalOver, tau = "tauMinutes", resamples, seed
    }

    /// Whether the held-out gain lies within the training gain's interval (nil: no training interval).
    public var heldOutGainWithinTraining: Bool? {
        guard let ci = training.gainCI, ci.count == 2 else { return nil }
        return heldOut.gainVsFixed >= ci[0] - 1e-12 && heldOut.gainVsFixed <= ci[1] + 1e-12
    }

    /// How the intervals were drawn, in words: `over users` or `over days of these 2 users, not over users`.
    public func intervalWords(users: Int) -> String {
        switch intervalOver {
        case .users: "over users"
        case .days: "over days of \(users == 1 ? "this user" : "these \(users) users"), not over users"
        }
    }
}

/// One part's side of a ``TuningPromise``.
public struct PromiseFigures: Sendable, Codable, Hashable {
    /// fresh@τ: fresh launches over scored launches.
    public var fresh: Double
    /// Its 95 % interval, `[low, high]` (nil: one unit, nothing to resample).
    public var freshCI: [Double]?
    /// fresh@τ minus the fixed baseline at ``fetchesPerAppDay`` on the same launches.
    public var gainVsFixed: Double
    public var gainCI: [Double]?
    /// The setting's fetches per app per day: the budget the baseline is read at (held in the resamples).
    public var fetchesPerAppDay: Double
    /// The share of the scored launches fresh without any fetch (`never`'s fresh rate).
    public var never: Double
    /// The baseline's fresh rate: ``FixedBaselineLine/fresh(never:budget:tau:)``.
    public var baseline: Double
    public var scoredLaunches: Int
    /// Users with scored launches, and the units resampled (users, or user-days).
    public var users: Int
    public var units: Int

    public init(
        fresh: Double, freshCI: [Double]?, gainVsFixed: Double, gainCI: [Double]?, fetchesPerAppDay: Double,
        never: Double, baseline: Double, scoredLaunches: Int, users: Int, units: Int
    ) {
        self.fresh = fresh
        self.freshCI = freshCI
        self.gainVsFixed = gainVsFixed
        self.gainCI = gainCI
        self.fetchesPerAppDay = fetchesPerAppDay
        self.never = never
        self.baseline = baseline
        self.scoredLaunches = scoredLaunches
        self.users = users
        self.units = units
    }

    /// One resampling unit (a user, or one day of one user): its scored launches, those fresh under
    /// the setting and those fresh without any fetch.
    public struct Unit: Sendable, Hashable {
        public var scored: Int
        public var fresh: Int
        public var never: Int
        public init(scored: Int, fresh: Int, never: Int) {
            self.scored = scored
            self.fresh = fresh
            self.never = never
        }
    }

    /// The figures of `units` and their 95 % bootstrap intervals (`resamples` draws of as many
    /// units with replacement by a seeded generator, the 2.5th to 97.5th percentile). The
    /// baseline's budget is `fetchesPerAppDay` in every draw, so the gain's interval is that of the
    /// fresh rate against the free launches of the same draw. Nil when no launch is scored.
    public static func bootstrap(
        _ units: [Unit], users: Int, fetchesPerAppDay: Double, tau: Microseconds, resamples: Int, seed: UInt64
    ) -> PromiseFigures? {
        let kept = units.filter { $0.scored > 0 }
        func figures(_ f: Int, _ n: Int, _ s: Int) -> (fresh: Double, gain: Double, never: Double, baseline: Double) {
            let fresh = Double(f) / Double(s)
            let never = Double(n) / Double(s)
            let baseline = FixedBaselineLine.fresh(never: never, budget: fetchesPerAppDay, tau: tau)
            return (fresh, fresh - baseline, never, baseline)
        }
        let scored = kept.reduce(0) { $0 + $1.scored }
        guard scored > 0 else { return nil }
        let point = figures(kept.reduce(0) { $0 + $1.fresh }, kept.reduce(0) { $0 + $1.never }, scored)
        var out = PromiseFigures(
            fresh: point.fresh, freshCI: nil, gainVsFixed: point.gain, gainCI: nil, fetchesPerAppDay: fetchesPerAppDay,
            never: point.never, baseline: point.baseline, scoredLaunches: scored, users: users, units: kept.count)
        guard kept.count >= 2, resamples >= 2 else { return out }
        var rng = SplitMix64(seed: seed)
        var fresh: [Double] = []
        var gains: [Double] = []
        fresh.reserveCapacity(resamples)
        gains.reserveCapacity(resamples)
        for _ in 0..<resamples {
            var (f, n, s) = (0, 0, 0)
            for _ in kept.indices {
                let u = kept[Int(rng.next() % UInt64(kept.count))]
                f += u.fresh
                n += u.never
                s += u.scored
            }
            let draw = figures(f, n, s)
            fresh.append(draw.fresh)
            gains.append(draw.gain)
        }
        out.freshCI = percentiles(fresh)
        out.gainCI = percentiles(gains)
        return out
    }

    /// The 2.5th and 97.5th percentiles of `values`.
    static func percentiles(_ values: [Double]) -> [Double] {
        let sorted = values.sorted()
        let last = Double(sorted.count - 1)
        return [sorted[Int((0.025 * last).rounded(.down))], sorted[Int((0.975 * last).rounded(.up))]]
    }
}
