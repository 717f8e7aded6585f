import FetchLabCore
import FetchLabPredict
import FetchLabResults
import Foundation

/// A comparison over some of a population's users (a shard) kept as mergeable sufficient
/// statistics: merged with the partials of the other users, it gives the report one run over all
/// of them would, to the last digit.
///
/// Two kinds of figures, by how they merge:
/// - sums over users that do not depend on their order or grouping (`MetricSums`: counts,
///   histograms and exact sums, per policy and per policy and app), summed across partials;
/// - the bootstrap over users (`PoissonBootstrap`): per resample, sums over the users weighted by
///   draws that depend on each user's name alone, summed across partials;
/// - what depends on the users' order (the clairvoyant bound's pairs, the
///   order apps are listed in, the first and last scored days, the representative user), kept
///   per user and replayed, after the merge, in the order one run takes them: by name (the
///   database lists users by name, in bytes).
public struct ComparisonPartial: Sendable, Codable {
    /// The format this version writes and reads: JSON lines, the header, then one line per app's
    /// sums and one per user (``jsonLines(_:)``). Version 1 was one JSON document; version 2 kept
    /// each user's fixed-interval figures over a grid of intervals instead of its scored days;
    /// version 3 each user's per-policy sums for a multinomial bootstrap, where version 4 has the
    /// Poisson bootstrap's sums per resample (`PoissonBootstrap`) in its header.
    public static let currentFormat = "fetchlab-partial 4"

    /// What every partial of one run must agree on: the policies, the evaluation protocol, the
    /// platform, cost and context, the budgets and the bootstrap.
    public struct Configuration: Sendable, Codable, Hashable {
        public var policies: [String]
        public var warmUpDays: Int
        public var minLaunches: Int
        public var taus: [Microseconds]
        public var primaryTau: Microseconds
        public var launchRefreshes: Bool
        /// The evaluated apps (nil: every app with enough launches), sorted.
        public var apps: [String]?
        public var scoredFrom: CivilDate?
        public var scoredThrough: CivilDate?
        public var settings: ReplaySettings
        public var budgetFigures: Bool
        public var budgets: [Double]
        public var headlineBudget: Double
        public var resamples: Int
        public var seed: UInt64
        /// Whether each user's metrics are kept (`--per-user`).
        public var perUser: Bool

        /// The evaluation protocol these settings give.
        public var evaluation: EvaluationProtocol {
            var e = EvaluationProtocol()
            e.warmUpDays = warmUpDays
            e.minLaunches = minLaunches
            e.taus = taus
            e.primaryTau = primaryTau
            e.launchRefreshes = launchRefreshes
            e.apps = apps.map { Set($0.map { AppID($0) }) }
            e.scoredFrom = scoredFrom
            e.scoredThrough = scoredThrough
            return e
        }

        /// The policies the partial names, as values: its names read once, where the partial is
        /// read, each of which must read back to the name it was written as; or, when one does
        /// not, why (a partial is not trusted input).
        public func policyValues() -> Result<[any FetchPolicy], PartialProblem> {
            let values: [any FetchPolicy]
            do {
                values = try PolicyRegistry.parseList(policies.joined(separator: ","))
            } catch {
                return .failure(PartialProblem("", "its policies cannot be read: \(error)"))
            }
            guard values.map(\.name) == policies else {
                return .failure(PartialProblem("", "its policies do not read back as written"))
            }
            return .success(values)
        }

        /// The configuration's JSON with sorted keys: the same settings give the same bytes.
        public var canonicalJSON: Data {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            return (try? encoder.encode(self)) ?? Data()
        }

        /// FNV-1a (64 bits) of ``canonicalJSON``, in hex: partials of one run share it.
        public var fingerprint: String {
            String(UserShard.hash(bytes: canonicalJSON), radix: 16).leftPadded(to: 16)
        }

        /// The first setting in which `self` and `other` differ, by its JSON name (nil: none).
        public func firstDifference(from other: Configuration) -> String? {
            let decode = { (c: Configuration) in
                (try? JSONSerialization.jsonObject(with: c.canonicalJSON)) as? [String: Any] ?? [:]
            }
            let (a, b) = (decode(self), decode(other))
            for key in Set(a.keys).union(b.keys).sorted() {
                let encode = { (v: Any?) in
                    v.flatMap { try? JSONSerialization.data(withJSONObject: [$0], options: [.sortedKeys]) }
                }
                if encode(a[key]) != encode(b[key]) { return key }
            }
            return nil
        }
    }

    /// One user's part of the figures that depend on the users' order.
    struct User: Sendable, Codable {
        var name: String
        /// The evaluated apps, in the order the user's pairs were replayed.
        var apps: [String]
        var start: Instant
        var end: Instant
        var offset: Int32
        var withoutContext: Bool
        var pairsWithContent: Int
        var launchesPerDay: Double
        var budget: UserBudgetSums?
        /// The user's sums per requested policy (`--per-user` only).
        var sums: [MetricSums]?
        /// The user's group, when the run sums users by group (``ComparisonRun/userGroups``).
        var group: String? = nil
        /// The user's scored launches, when the run tallies users (``ComparisonRun/tallyUsers``).
        var scored: Int? = nil
        /// When a merge adds the user: what `budget` adds to the bootstrap, as its record
        /// (``BudgetAnalysis/record(_:)``), `budget` keeping only its bound's and ceilings'
        /// pairs. Not part of a partial.
        var record: [UInt8]? = nil

        enum CodingKeys: String, CodingKey {
            case name, apps, start, end, offset, withoutContext, pairsWithContent, launchesPerDay, budget, sums
            case group, scored
        }
    }

    public var format = currentFormat
    public var configuration: Configuration
    /// ``Configuration/fingerprint``, written for readers and checked on reading.
    public var fingerprint: String
    /// The shard replayed (`I/N`; nil: the users selected, unsharded).
    public var shard: String?
    /// The database the users were read from.
    public var source: String
    /// What the users' logs held for the platform's device rules.
    public var platformInputs = PlatformInputs()
    var totals: [MetricSums]
    var perApp: [String: [MetricSums]]
    /// Sums per group of users, per policy (nil: the run does not group its users).
    var perGroup: [String: [MetricSums]]? = nil
    var users: [User]
    /// The bootstrap's sums per resample over the partial's users (nil: no budget figures).
    var bootstrap: PoissonBootstrap? = nil
    /// CPU seconds per policy and launches replayed (timings, not part of the report).
    var cpuSeconds: [Double]
    var launchesReplayed: Int
    /// In a file's header line: how many app lines, then user lines, follow it (nil elsewhere).
    var appLines: Int? = nil
    var userLines: Int? = nil
    /// The users' names, once their figures are let go (``withoutFigures``; nil before). Not
    /// written: a file's users give them.
    var names: [String]? = nil

    enum CodingKeys: String, CodingKey {
        case format, configuration, fingerprint, shard, source, platformInputs, totals, perApp, perGroup, users
        case bootstrap, cpuSeconds
        case launchesReplayed, appLines, userLines
    }

    /// The names of the users the partial holds (or held, before ``withoutFigures``), in its order.
    public var userNames: [String] { names ?? users.map(\.name) }

    /// The users the partial holds (or held).
    public var userCount: Int { names?.count ?? users.count }

    /// The partial without its figures (users, sums and timings): its settings, shard, source and
    /// platform inputs, what a merge still reads once the partial is absorbed. The user names
    /// stay (``userNames``).
    public var withoutFigures: ComparisonPartial {
        var p = self
        p.users = []
        p.names = userNames
        p.totals = []
        p.perApp = [:]
        p.perGroup = p.perGroup.map { _ in [:] }
        p.bootstrap = nil
        p.cpuSeconds = []
        return p
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

extension ComparisonRun {
    /// The settings this run's partials carry.
    public var configuration: ComparisonPartial.Configuration {
        let e = simulator.evaluation
        return ComparisonPartial.Configuration(
            policies: all.map(\.name), warmUpDays: e.warmUpDays, minLaunches: e.minLaunches, taus: e.taus,
            primaryTau: e.primaryTau, launchRefreshes: e.launchRefreshes, apps: e.apps.map { $0.map(\.name).sorted() },
            scoredFrom: e.scoredFrom, scoredThrough: e.scoredThrough, settings: simulator.settings,
            budgetFigures: budget != nil, budgets: budgets, headlineBudget: headlineBudget, resamples: resamples,
            seed: seed, perUser: simulator.perUser)
    }

    /// The run so far as a mergeable partial (the users added with ``keepsUsers`` on).
    public func partial(shard: UserShard?, source: String) -> ComparisonPartial {
        precondition(keepsUsers || users == 0, "a partial needs keepsUsers on before users are added")
        let configuration = self.configuration
        return ComparisonPartial(
            configuration: configuration, fingerprint: configuration.fingerprint, shard: shard?.description,
            source: source, totals: totals, perApp: perApp, perGroup: userGroups == nil ? nil : perGroup,
            users: keptUsers, bootstrap: budget.map { $0.bootstrap ?? $0.emptyBootstrap }, cpuSeconds: cpuSeconds,
            launchesReplayed: launchesReplayed)
    }

}

// MARK: - Exact encodings

extension DurationHistogram: Codable {
    enum CodingKeys: String, CodingKey { case total, bins }

    /// Sparse: `bins` holds (bin, count) pairs of the non-empty bins, flattened.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(total, forKey: .total)
        var bins: [Int] = []
        for (b, n) in counts.enumerated() where n != 0 { bins += [b, Int(n)] }
        try c.encode(bins, forKey: .bins)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        let bins = try c.decode([Int].self, forKey: .bins)
        guard bins.count % 2 == 0 else {
            throw DecodingError.dataCorruptedError(forKey: .bins, in: c, debugDescription: "bins come in pairs")
        }
        if !bins.isEmpty { counts = [Int32](repeating: 0, count: Self.binCount) }
        var last = -1
        for k in stride(from: 0, to: bins.count, by: 2) {
            guard counts.indices.contains(bins[k]), bins[k] > last else {
                throw DecodingError.dataCorruptedError(
                    forKey: .bins, in: c, debugDescription: "no bin \(bins[k]), or bins out of order")
            }
            guard let n = Int32(exactly: bins[k + 1]), n > 0 else {
                throw DecodingError.dataCorruptedError(
                    forKey: .bins, in: c, debugDescription: "bin \(bins[k]): count \(bins[k + 1]) is impossible")
            }
            counts[bins[k]] = n
            last = bins[k]
        }
        total = try c.decode(Int.self, forKey: .total)
        guard total == counts.reduce(0, { $0 + Int($1) }) else {
            throw DecodingError.dataCorruptedError(forKey: .total, in: c, debugDescription: "bins do not add up")
        }
    }
}

extension MetricSums: Codable {
    /// The fixed keys, then one per entry of `Metric.daily` (its `partialKey`), between `skips`
    /// and `costUnits`.
    struct CodingKeys: CodingKey, Hashable {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ s: String) { stringValue = s }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
        static let pairs = Self("pairs"), scored = Self("scored"), fresh = Self("fresh")
        static let fetchesPerDaySum = Self("fetchesPerDaySum"), contentScored = Self("contentScored")
        static let contentFresh = Self("contentFresh"), staleness = Self("staleness"), leads = Self("leads")
        static let fetches = Self("fetches"), wasted = Self("wasted"), lowBattery = Self("lowBattery")
        static let skips = Self("skips"), costUnits = Self("costUnits"), reliability = Self("reliability")
        static let daily = Metric.daily.map { Self($0.dailySum!.partialKey) }
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(pairs, forKey: .pairs)
        try c.encode(scored, forKey: .scored)
        try c.encode(fresh, forKey: .fresh)
        try c.encode(fetchesPerDaySum, forKey: .fetchesPerDaySum)
        try c.encode(contentScored, forKey: .contentScored)
        try c.encode(contentFresh, forKey: .contentFresh)
        try c.encode(staleness, forKey: .staleness)
        try c.encode(leads, forKey: .leads)
        try c.encode(fetches, forKey: .fetches)
        try c.encode(wasted, forKey: .wasted)
        try c.encode(lowBattery, forKey: .lowBattery)
        try c.encode(skips, forKey: .skips)
        for (sum, key) in zip(daily, CodingKeys.daily) { try c.encode(sum, forKey: key) }
        try c.encode(costUnits, forKey: .costUnits)
        try c.encodeIfPresent(reliability.map(ReliabilityTable.Exact.init), forKey: .reliability)
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        fresh = try c.decode([Int].self, forKey: .fresh)
        pairs = try c.decode(Int.self, forKey: .pairs)
        scored = try c.decode(Int.self, forKey: .scored)
        fetchesPerDaySum = try c.decode(ExactSum.self, forKey: .fetchesPerDaySum)
        contentScored = try c.decode(Int.self, forKey: .contentScored)
        contentFresh = try c.decode(Int.self, forKey: .contentFresh)
        staleness = try c.decode(DurationHistogram.self, forKey: .staleness)
        leads = try c.decode(DurationHistogram.self, forKey: .leads)
        fetches = try c.decode(Int.self, forKey: .fetches)
        wasted = try c.decode(Int.self, forKey: .wasted)
        lowBattery = try c.decode(Int.self, forKey: .lowBattery)
        skips = try c.decode([Int].self, forKey: .skips)
        guard skips.count == SkipReason.allCases.count else {
            throw DecodingError.dataCorruptedError(forKey: .skips, in: c, debugDescription: "skip reasons differ")
        }
        daily = try CodingKeys.daily.map { key in
            guard c.contains(key) else {
                throw DecodingError.dataCorruptedError(
                    forKey: key, in: c,
                    debugDescription: "no \(key.stringValue): written by a FetchLab without that metric")
            }
            return try c.decode(ExactSum.self, forKey: key)
        }
        costUnits = try c.decode(Int.self, forKey: .costUnits)
        reliability = try c.decodeIfPresent(ReliabilityTable.Exact.self, forKey: .reliability)?.table
    }
}

extension SignalCeilingSums: Codable {
    enum CodingKeys: String, CodingKey { case bounds, coverable, targets, scored, free, signalEvents }

    /// Signal events as (kind, count) pairs by kind, so the same sums give the same bytes.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(bounds, forKey: .bounds)
        try c.encode(coverable, forKey: .coverable)
        try c.encode(targets, forKey: .targets)
        try c.encode(scored, forKey: .scored)
        try c.encode(free, forKey: .free)
        try c.encode(
            signalEvents.sorted { $0.key.rawValue < $1.key.rawValue }.flatMap { [$0.key.rawValue, $0.value] },
            forKey: .signalEvents)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        bounds = try c.decode([ClairvoyantBound].self, forKey: .bounds)
        coverable = try c.decode([Int].self, forKey: .coverable)
        guard bounds.count == Self.restricted.count, coverable.count == Self.restricted.count else {
            throw DecodingError.dataCorruptedError(forKey: .bounds, in: c, debugDescription: "signal sets differ")
        }
        targets = try c.decode(Int.self, forKey: .targets)
        scored = try c.decode(Int.self, forKey: .scored)
        free = try c.decode(Int.self, forKey: .free)
        let events = try c.decode([Int].self, forKey: .signalEvents)
        for k in stride(from: 0, to: events.count - 1, by: 2) {
            guard let kind = UsageEventKind(rawValue: events[k]) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .signalEvents, in: c, debugDescription: "no event kind \(events[k])")
            }
            signalEvents[kind] = events[k + 1]
        }
    }
}

// MARK: - Consistency

extension ComparisonPartial {
    /// What makes the partial unfit to merge with the run `policies` make (sums of another shape
    /// than its settings give: a file edited by hand), or nil: the merge reads every sum by index,
    /// so a partial is checked whole before any is merged.
    public func inconsistency(policies: [any FetchPolicy]) -> String? {
        let count = policies.count
        let taus = configuration.evaluation.reportedTaus.count
        let bins = ReliabilityTable().bins.count
        func sums(_ s: [MetricSums], _ what: String) -> String? {
            guard s.count == count else { return "\(what): \(s.count) policies, not \(count)" }
            for m in s {
                if m.fresh.count != taus { return "\(what): \(m.fresh.count) τ, not \(taus)" }
                if let r = m.reliability, r.bins.count != bins { return "\(what): reliability bins differ" }
            }
            return nil
        }
        if let problem = sums(totals, "totals") { return problem }
        if configuration.budgetFigures != (bootstrap != nil) {
            return "bootstrap sums \(bootstrap == nil ? "missing" : "not asked for")"
        }
        if let b = bootstrap, b.resamples != configuration.resamples || b.policies != count {
            return
                "bootstrap sums of \(b.resamples) resamples of \(b.policies) policies, not \(configuration.resamples) of \(count)"
        }
        guard cpuSeconds.count == count else { return "timings: \(cpuSeconds.count) policies, not \(count)" }
        for (app, s) in perApp {
            if let problem = sums(s, "app \(app)") { return problem }
        }
        for (group, s) in perGroup ?? [:] {
            if let problem = sums(s, "group \(group)") { return problem }
        }
        for u in users {
            if let missing = u.apps.first(where: { perApp[$0] == nil }) {
                return "user \(u.name): app \(missing) has no sums"
            }
            if let group = u.group, perGroup?[group] == nil { return "user \(u.name): group \(group) has no sums" }
            if let s = u.sums, let problem = sums(s, "user \(u.name)") { return problem }
            if configuration.budgetFigures != (u.budget != nil) {
                return "user \(u.name): budget sums \(u.budget == nil ? "missing" : "not asked for")"
            }
            guard let b = u.budget else { continue }
            // Per-policy sums go with the days (``ComparisonRun/keepUser(_:)``).
            let perPolicy = b.days == nil && b.fresh.isEmpty && b.fetchesPerDay.isEmpty ? 0 : count
            guard b.fresh.count == perPolicy, b.fetchesPerDay.count == perPolicy else {
                return "user \(u.name): budget sums for other policies"
            }
            if let problem = b.daysInconsistency(policies: count, resampledByDay: users.count < BudgetSettings.fewUsers)
            {
                return "user \(u.name): \(problem)"
            }
            let bounds = [b.bound] + b.ceilings.bounds
            guard b.ceilings.bounds.count == SignalCeilingSums.restricted.count,
                bounds.allSatisfy({ $0.pairs.allSatisfy(\.isConsistent) })
            else { return "user \(u.name): the bound's pairs are inconsistent" }
        }
        return nil
    }
}

extension UserBudgetSums {
    /// What makes the user's days unfit to resample (nil: fit, or not needed): a partial of fewer
    /// than `BudgetSettings.fewUsers` users must keep them (a merge of such partials may resample
    /// them), each day with a figure per policy, adding up to the user's own counts.
    func daysInconsistency(policies: Int, resampledByDay: Bool) -> String? {
        guard let days else { return resampledByDay ? "its scored days are missing" : nil }
        guard days.policies == policies else { return "scored days for \(days.policies) policies, not \(policies)" }
        let totals = days.totals
        guard totals[0] == scored, totals[1] == free, Array(totals[2..<(2 + policies)]) == fresh else {
            return "its scored days do not add up to its sums"
        }
        return nil
    }
}

extension ClairvoyantBound.Pair {
    /// Whether `next` is what a pair's targets can give: empty for a unit pair, else one index per
    /// target, each past its own and at most the count.
    var isConsistent: Bool {
        guard targets >= 0, days >= 0 else { return false }
        if unit { return next.isEmpty }
        return next.count == targets && next.indices.allSatisfy { next[$0] > Int32($0) && Int(next[$0]) <= targets }
    }
}
