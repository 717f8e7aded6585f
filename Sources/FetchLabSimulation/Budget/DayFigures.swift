import FetchLabCore

/// One user's figures by scored local day, what the bootstrap over days resamples when a run has
/// fewer than `BudgetSettings.fewUsers` users (DOMAIN.md, "Intervals"): per day its scored
/// launches, the launches fresh without a fetch, and per policy the fresh launches at the primary τ
/// and the fetches in [S, E], each summed over the user's pairs.
struct DayFigures: Sendable, Hashable, Codable {
    /// Policies per day.
    private(set) var policies: Int
    /// (E − S) in days: every day is one day long but the last, cut at E.
    private(set) var span: Double
    /// Day after day: scored, free, the policies' fresh launches, then their fetches.
    private(set) var figures: [Int32]

    /// Figures a day.
    var stride: Int { 2 + 2 * policies }
    /// Scored days.
    var count: Int { figures.count / stride }

    /// A user's days, from its pairs' launches, targets (the scored launches not fresh without a
    /// fetch) and each policy's outcomes at the primary τ.
    init(
        window w: UserWindow, launches: [[Instant]], targets: [[Instant]], outcomes: [[PairOutcome]],
        tau: Microseconds
    ) {
        policies = outcomes.count
        span = w.scoredDays
        let stride = 2 + 2 * outcomes.count
        figures = [Int32](repeating: 0, count: w.scoredDayCount * stride)
        var days: [Int] = []
        for (p, pair) in launches.enumerated() {
            days.removeAll(keepingCapacity: true)
            for t in pair where w.isScored(t) {
                let d = w.scoredDay(of: t)
                days.append(d)
                figures[d * stride] += 1
                figures[d * stride + 1] += 1
            }
            for t in targets[p] { figures[w.scoredDay(of: t) * stride + 1] -= 1 }
            for (i, policy) in outcomes.enumerated() {
                let o = policy[p]
                // Staleness comes one per scored launch, in order (PairOutcome).
                precondition(o.staleness.count == days.count && o.fetchesByDay.count == w.scoredDayCount)
                for (j, s) in o.staleness.enumerated() where s <= tau { figures[days[j] * stride + 2 + i] += 1 }
                for (d, n) in o.fetchesByDay.enumerated() { figures[d * stride + 2 + policies + i] += n }
            }
        }
    }

    /// Day `d`'s part of [S, E], in days.
    func length(ofDay d: Int) -> Double { d == count - 1 ? span - Double(d) : 1 }

    /// The figures summed over the days: scored, free, per policy fresh and fetches.
    var totals: [Int] {
        var out = [Int](repeating: 0, count: stride)
        for (k, v) in figures.enumerated() { out[k % stride] += Int(v) }
        return out
    }

    enum CodingKeys: String, CodingKey { case policies, span, figures }

    /// Checks the shape (a file read back is untrusted): whole days, as many as the span gives,
    /// figures not below zero, no day with more launches fresh without a fetch than scored.
    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        policies = try c.decode(Int.self, forKey: .policies)
        span = try c.decode(Double.self, forKey: .span)
        figures = try c.decode([Int32].self, forKey: .figures)
        func fail(_ why: String) -> DecodingError {
            DecodingError.dataCorruptedError(forKey: .figures, in: c, debugDescription: why)
        }
        guard (0...PartialLimits.policies).contains(policies), figures.count % stride == 0 else {
            throw fail("not whole days")
        }
        guard span.isFinite, span >= 0, span <= PartialLimits.days, count == Int(span) + 1 else {
            throw fail("\(count) days over \(span)")
        }
        guard figures.allSatisfy({ $0 >= 0 }) else { throw fail("a figure below zero") }
        for d in 0..<count where figures[d * stride + 1] > figures[d * stride] {
            throw fail("day \(d): more launches fresh without a fetch than scored")
        }
    }
}
