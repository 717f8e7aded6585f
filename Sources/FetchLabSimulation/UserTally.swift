import FetchLabCore

/// One user's scored launches and, per policy of a comparison and per reported τ, the launches
/// fresh: what a bootstrap over users resamples (no histograms, so it stays small for many users).
public struct UserTally: Sendable, Hashable {
    public var user: String
    /// The user's scored launches (the same for every policy).
    public var scored: Int
    /// Per policy (the comparison's order), per τ of `settings.taus_minutes`: fresh launches.
    public var fresh: [[Int]]
    /// The same per scored local day, ascending, when the comparison tallies days
    /// (``ComparisonRun/tallyDays``): what a bootstrap over the days of few users resamples.
    public var days: [DayTally] = []

    public init(user: String, scored: Int, fresh: [[Int]], days: [DayTally] = []) {
        self.user = user
        self.scored = scored
        self.fresh = fresh
        self.days = days
    }
}

/// One local day of one user: its scored launches and, per policy and per reported τ, those fresh.
public struct DayTally: Sendable, Hashable {
    /// The local day (days since 1970 on the user's clock).
    public var day: Int
    public var scored: Int
    /// Per policy (the comparison's order), per τ: fresh launches.
    public var fresh: [[Int]]

    public init(day: Int, scored: Int, fresh: [[Int]]) {
        self.day = day
        self.scored = scored
        self.fresh = fresh
    }

    /// A user's days from the scored launches of each pair (`launches`, their staleness per
    /// policy in `outcomes`, policy-major as the replay gives them).
    static func days(
        launches: [[Instant]], outcomes: [[PairOutcome]], window: UserWindow, taus: [Microseconds]
    ) -> [DayTally] {
        var byDay: [Int: DayTally] = [:]
        for (p, times) in launches.enumerated() {
            var k = 0
            for t in times where window.isScored(t) {
                defer { k += 1 }
                let day = LocalCalendar.day(t, offset: window.offset)
                var tally =
                    byDay[day]
                    ?? DayTally(
                        day: day, scored: 0,
                        fresh: outcomes.map { _ in [Int](repeating: 0, count: taus.count) })
                tally.scored += 1
                for (i, pairs) in outcomes.enumerated() where pairs.indices.contains(p) {
                    let staleness = pairs[p].staleness
                    guard staleness.indices.contains(k) else { continue }
                    for (j, tau) in taus.enumerated() where staleness[k] <= tau { tally.fresh[i][j] += 1 }
                }
                byDay[day] = tally
            }
        }
        return byDay.keys.sorted().map { byDay[$0]! }
    }
}
