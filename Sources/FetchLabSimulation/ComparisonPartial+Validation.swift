import FetchLabCore
import FetchLabPredict
import FetchLabResults

/// A value of a partial that cannot be (a partial is input nobody vouches for: its fingerprint
/// says that shards belong together, anyone who edits the file can recompute it): the field, by
/// its JSON path (`totals[3].fresh[1]`, `budget.bound.scored`), and what is wrong with it.
public struct PartialProblem: Error, Sendable, Hashable, CustomStringConvertible {
    public var field: String
    public var problem: String

    public init(_ field: String, _ problem: String) {
        self.field = field
        self.problem = problem
    }

    public var description: String { field.isEmpty ? problem : "\(field): \(problem)" }
}

/// What a partial's values may be. Counts are bounded far above any fleet's (so that no sum of
/// them, checked as it is, comes near 2⁶³), and settings to the ranges the command line accepts.
public enum PartialLimits {
    /// Any count in a partial's sums (launches, pairs, fetches…): 2³⁹, about 5.5 × 10¹¹ (a shard
    /// of 10 million users fetching every 15 minutes for 90 days is 10 times under it).
    public static let count = 1 << 39
    /// Any count of one user's (scored launches, pairs, targets, events): 2³¹ − 1. With at most
    /// ``users`` users, their sums stay below 2⁶².
    public static let userCount = Int(Int32.max)
    /// Users in one merge.
    public static let users = Int(Int32.max)
    /// An exact sum's magnitude (fetches, joules or bytes per day, summed): 2⁵⁶.
    public static let exactSum = Double(1 << 56)
    /// Instants (µs since 1970): the years 1 to 9999.
    public static let instants: ClosedRange<Microseconds> = -62_135_596_800_000_000...253_402_300_799_999_999
    /// A UTC offset, in seconds: ±18 hours.
    public static let offsetSeconds: ClosedRange<Int32> = -64_800...64_800
    /// A user's, app's or group's name, in UTF-8 bytes (as import accepts them).
    public static let nameBytes = 1_024
    /// Bootstrap resamples (as `--resamples` accepts them).
    public static let resamples = 100_000
    /// The policies of one partial.
    public static let policies = 10_000
    /// Fetches a day in one pair: one a second.
    public static let fetchesPerPairDay = 86_400.0
    /// Energy a day in one pair: the highest power the options accept (100 W), all day.
    public static let joulesPerPairDay = 100.0 * 86_400
    /// Days in a user's log, or a pair's scored days: 100 years.
    public static let days = 36_600.0
    /// Launches a day of one user: more than ten a second.
    public static let launchesPerDay = 1_000_000.0
    /// CPU seconds per policy (timings): 30 years.
    public static let cpuSeconds = 1e9
    /// A reliability table's minimum count.
    public static let minimumCount = 1_000_000
}

// MARK: - Field checks

/// The checks every field goes through, naming the field when one fails.
enum Check {
    static func count(_ v: Int, _ field: @autoclosure () -> String, max: Int = PartialLimits.count)
        throws(PartialProblem)
    {
        guard v >= 0 else { throw PartialProblem(field(), "\(v) is negative") }
        guard v <= max else { throw PartialProblem(field(), "\(v) is more than \(max)") }
    }

    static func counts(_ vs: [Int], _ field: @autoclosure () -> String, max: Int = PartialLimits.count)
        throws(PartialProblem)
    {
        for (i, v) in vs.enumerated() { try count(v, "\(field())[\(i)]", max: max) }
    }

    /// A count no larger than `bound` (fresh ≤ scored), named `boundName` in the message.
    static func atMost(_ v: Int, _ bound: Int, _ field: @autoclosure () -> String, _ boundName: String)
        throws(PartialProblem)
    {
        guard v <= bound else { throw PartialProblem(field(), "\(v) is more than \(boundName) (\(bound))") }
    }

    /// A finite number from 0 to `max`.
    static func real(_ v: Double, _ field: @autoclosure () -> String, max: Double) throws(PartialProblem) {
        guard v.isFinite else { throw PartialProblem(field(), "\(v) is not a number") }
        guard v >= 0 else { throw PartialProblem(field(), "\(v) is negative") }
        guard v <= max else { throw PartialProblem(field(), "\(v) is more than \(max)") }
    }

    /// An exact sum from 0 to `max` (and ``PartialLimits/exactSum``).
    static func exact(_ v: ExactSum, _ field: @autoclosure () -> String, max: Double) throws(PartialProblem) {
        guard !v.isNegative else { throw PartialProblem(field(), "\(v.value) is negative") }
        let limit = Swift.min(max, PartialLimits.exactSum)
        guard v.value <= limit else { throw PartialProblem(field(), "\(v.value) is more than \(limit)") }
    }

    /// A name as import accepts one: not empty, at most ``PartialLimits/nameBytes`` bytes, no
    /// control character.
    static func name(_ name: String, _ field: @autoclosure () -> String) throws(PartialProblem) {
        guard !name.isEmpty else { throw PartialProblem(field(), "an empty name") }
        guard name.utf8.count <= PartialLimits.nameBytes else {
            throw PartialProblem(field(), "a name longer than \(PartialLimits.nameBytes) bytes")
        }
        guard !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f }) else {
            throw PartialProblem(field(), "a name with a control character")
        }
    }

    static func within<T: Comparable>(
        _ v: T, _ range: ClosedRange<T>, _ field: @autoclosure () -> String, _ text: (T) -> String = { "\($0)" }
    ) throws(PartialProblem) {
        guard range.contains(v) else {
            throw PartialProblem(
                field(), "\(text(v)) is out of range: expected \(text(range.lowerBound)) to \(text(range.upperBound))")
        }
    }

    static func duration(_ v: Microseconds, _ range: ClosedRange<Microseconds>, _ field: @autoclosure () -> String)
        throws(PartialProblem)
    {
        try within(v, range, field(), { Quantity.format(duration: $0) })
    }

    /// `a + b`, refused when it overflows.
    static func sum(_ a: Int, _ b: Int, _ field: @autoclosure () -> String) throws(PartialProblem) -> Int {
        let (s, overflow) = a.addingReportingOverflow(b)
        guard !overflow else { throw PartialProblem(field(), "the sum overflows") }
        return s
    }
}

// MARK: - Settings

extension ComparisonPartial.Configuration {
    /// Refuses settings the command line would refuse (the ranges of `compare`'s options).
    public func check() throws(PartialProblem) {
        let f = "configuration"
        guard !policies.isEmpty, policies.count <= PartialLimits.policies else {
            throw PartialProblem("\(f).policies", "\(policies.count) policies")
        }
        for (i, p) in policies.enumerated() where p.isEmpty || p.utf8.count > PartialLimits.nameBytes {
            throw PartialProblem("\(f).policies[\(i)]", "not a policy's name")
        }
        try Check.within(warmUpDays, SettingRanges.warmUpDays, "\(f).warmUpDays")
        try Check.within(minLaunches, SettingRanges.minLaunches, "\(f).minLaunches")
        try Check.duration(primaryTau, SettingRanges.tau, "\(f).primaryTau")
        guard taus.count <= 100 else { throw PartialProblem("\(f).taus", "\(taus.count) τ") }
        for (i, t) in taus.enumerated() { try Check.duration(t, SettingRanges.tau, "\(f).taus[\(i)]") }
        for (i, app) in (apps ?? []).enumerated() { try Check.name(app, "\(f).apps[\(i)]") }
        if let from = scoredFrom, let through = scoredThrough, through < from {
            throw PartialProblem("\(f).scoredThrough", "\(through) is before scoredFrom \(from)")
        }
        guard budgets.count <= 100 else {
            throw PartialProblem("\(f).budgets", "\(budgets.count) budgets")
        }
        for (i, b) in budgets.enumerated() {
            try Check.within(b, SettingRanges.budget, "\(f).budgets[\(i)]")
        }
        try Check.within(headlineBudget, SettingRanges.budget, "\(f).headlineBudget")
        if resamples != 0 { try Check.within(resamples, SettingRanges.resamples, "\(f).resamples") }
        try settings.check("\(f).settings")
    }
}

extension ReplaySettings {
    /// Refuses settings the command line would refuse (the ranges of the platform, cost and
    /// context options).
    func check(_ f: String) throws(PartialProblem) {
        let p = platform
        let r = SettingRanges.self
        try Check.duration(p.fetchBudget, r.fetchBudget, "\(f).platform.fetch_budget_s")
        try Check.duration(p.iosMinimumInterval, r.iosMinimumInterval, "\(f).platform.ios_minimum_interval_min")
        try Check.within(p.pushesPerHour, r.pushRate, "\(f).platform.pushes_per_hour")
        try Check.within(p.dailyFetchBudget, r.dailyFetchBudget, "\(f).platform.daily_fetch_budget")
        try Check.within(p.iosWakeBudgetPerLaunch, r.iosWakeBudgetPerLaunch, "\(f).platform.ios_wake_budget_per_launch")
        try Check.within(p.iosWakeBudgetMax, r.iosWakeBudgetMax, "\(f).platform.ios_wake_budget_max")
        try Check.within(p.iosWakeBudgetMin, 0...max(p.iosWakeBudgetMax, 1), "\(f).platform.ios_wake_budget_min")
        try Check.duration(p.iosWakeBudgetWindow, r.iosWakeBudgetWindow, "\(f).platform.ios_wake_budget_window_d")
        try Check.duration(p.iosSystemLead, r.iosSystemLead, "\(f).platform.ios_system_lead_min")
        try Check.duration(p.androidMinimumPeriod, r.androidMinimumPeriod, "\(f).platform.android_minimum_period_min")
        for (name, d) in [
            ("working_set_deferral_h", p.workingSetDeferral), ("frequent_deferral_h", p.frequentDeferral),
            ("rare_deferral_h", p.rareDeferral),
        ] {
            try Check.duration(d, r.standbyDeferral, "\(f).platform.\(name)")
        }
        try Check.within(p.lowBatteryPercent, r.percent, "\(f).platform.low_battery_pct")
        let c = cost
        try Check.duration(c.fetchDuration, r.fetchDuration, "\(f).cost.fetch_seconds")
        try Check.within(c.fetchBytes, r.fetchBytes, "\(f).cost.fetch_bytes")
        for (name, w) in [
            ("cellular_transfer_w", c.cellularTransferWatts), ("cellular_promotion_w", c.cellularPromotionWatts),
            ("cellular_tail_w", c.cellularTailWatts), ("wifi_transfer_w", c.wifiTransferWatts),
            ("wifi_promotion_w", c.wifiPromotionWatts), ("wifi_tail_w", c.wifiTailWatts),
        ] {
            try Check.within(w, r.watts, "\(f).cost.\(name)")
        }
        for (name, d) in [
            ("cellular_promotion_s", c.cellularPromotion), ("cellular_tail_s", c.cellularTail),
            ("wifi_promotion_s", c.wifiPromotion), ("wifi_tail_s", c.wifiTail),
        ] {
            try Check.duration(d, r.radioState, "\(f).cost.\(name)")
        }
        try Check.within(c.batteryWattHours, r.batteryWattHours, "\(f).cost.battery_wh")
        try Check.within(c.lowBatteryPercent, r.percent, "\(f).cost.low_battery_pct")
        for (app, a) in c.perApp {
            try Check.name(app, "\(f).cost.per_app")
            try Check.duration(a.duration, r.fetchDuration, "\(f).cost.per_app.\(app)")
            try Check.within(a.bytes, r.fetchBytes, "\(f).cost.per_app.\(app)")
        }
        try Check.duration(context.hold, r.contextHold, "\(f).context.hold_minutes")
        try Check.within(context.battery, r.percent, "\(f).context.battery_pct")
    }
}

// MARK: - Sums

extension MetricSums {
    /// Refuses sums that cannot be: a negative count or one past the limit, fresh launches above
    /// the scored ones, wasted fetches above the fetches, a rate that is not a number.
    func check(_ f: @autoclosure () -> String, maxFetchBytes: Int64) throws(PartialProblem) {
        try Check.count(pairs, "\(f()).pairs")
        try Check.count(scored, "\(f()).scored")
        for (k, n) in fresh.enumerated() {
            try Check.count(n, "\(f()).fresh[\(k)]")
            try Check.atMost(n, scored, "\(f()).fresh[\(k)]", "scored")
        }
        try Check.count(contentScored, "\(f()).contentScored")
        try Check.count(contentFresh, "\(f()).contentFresh")
        try Check.atMost(contentFresh, contentScored, "\(f()).contentFresh", "contentScored")
        try Check.count(fetches, "\(f()).fetches")
        try Check.count(wasted, "\(f()).wasted")
        try Check.atMost(wasted, fetches, "\(f()).wasted", "fetches")
        try Check.count(lowBattery, "\(f()).lowBattery")
        try Check.counts(skips, "\(f()).skips")
        try Check.count(costUnits, "\(f()).costUnits")
        try Check.count(staleness.total, "\(f()).staleness.total")
        try Check.count(leads.total, "\(f()).leads.total")
        // Rates summed over pairs (or users, each of whose pairs adds at most as much).
        let pairs = Double(self.pairs)
        try Check.exact(fetchesPerDaySum, "\(f()).fetchesPerDaySum", max: pairs * PartialLimits.fetchesPerPairDay)
        for (sum, metric) in zip(daily, Metric.daily) {
            guard let d = metric.dailySum else { continue }
            let perPairDay =
                switch d.limit {
                case .energy: PartialLimits.joulesPerPairDay
                case .fetchBytes: PartialLimits.fetchesPerPairDay * Double(maxFetchBytes)
                case .fetches: PartialLimits.fetchesPerPairDay
                }
            try Check.exact(sum, "\(f()).\(d.partialKey)", max: pairs * perPairDay)
        }
        if let r = reliability {
            if let problem = r.problem(maxCount: PartialLimits.count, maxMinimum: PartialLimits.minimumCount) {
                throw PartialProblem("\(f()).reliability", problem)
            }
            // A stated probability is recorded for a fetch that ran.
            try Check.atMost(r.count, fetches, "\(f()).reliability.count", "fetches")
        }
    }

    /// The first field (by its JSON name) that ``add(_:)`` of `t` would overflow, nil when none:
    /// a merge adds sums read from files, and checks each addition.
    func overflowOnAdding(_ t: MetricSums) -> String? {
        func over(_ a: Int, _ b: Int) -> Bool { a.addingReportingOverflow(b).overflow }
        if over(pairs, t.pairs) { return "pairs" }
        if over(scored, t.scored) { return "scored" }
        for k in fresh.indices where over(fresh[k], t.fresh[k]) { return "fresh[\(k)]" }
        if over(contentScored, t.contentScored) { return "contentScored" }
        if over(contentFresh, t.contentFresh) { return "contentFresh" }
        if over(fetches, t.fetches) { return "fetches" }
        if over(wasted, t.wasted) { return "wasted" }
        if over(lowBattery, t.lowBattery) { return "lowBattery" }
        for k in skips.indices where over(skips[k], t.skips[k]) { return "skips[\(k)]" }
        if over(costUnits, t.costUnits) { return "costUnits" }
        if staleness.overflowsAdding(t.staleness) { return "staleness" }
        if leads.overflowsAdding(t.leads) { return "leads" }
        if fetchesPerDaySum.overflowsAdding(t.fetchesPerDaySum) { return "fetchesPerDaySum" }
        for (k, metric) in Metric.daily.enumerated() where daily[k].overflowsAdding(t.daily[k]) {
            return metric.dailySum?.partialKey ?? metric.key
        }
        if let a = reliability, let b = t.reliability, a.overflowsMerging(b) { return "reliability" }
        return nil
    }
}

extension DurationHistogram {
    /// Whether ``add(_:)`` of `other` would overflow a bin (32 bits) or the total.
    func overflowsAdding(_ other: DurationHistogram) -> Bool {
        if total.addingReportingOverflow(other.total).overflow { return true }
        guard !counts.isEmpty else { return false }
        return other.counts.indices.contains { counts[$0].addingReportingOverflow(other.counts[$0]).overflow }
    }
}

extension ClairvoyantBound {
    /// Refuses a bound that cannot be one user's: counts past a user's, fresh-without-fetch above
    /// the scored launches, a pair's days that are not a number of days.
    func check(_ f: @autoclosure () -> String) throws(PartialProblem) {
        try Check.count(scored, "\(f()).scored", max: PartialLimits.userCount)
        try Check.count(freeFresh, "\(f()).freeFresh", max: PartialLimits.userCount)
        try Check.atMost(freeFresh, scored, "\(f()).freeFresh", "scored")
        guard pairs.count <= PartialLimits.userCount else { throw PartialProblem("\(f()).pairs", "too many pairs") }
        for (i, p) in pairs.enumerated() {
            try Check.count(p.targets, "\(f()).pairs[\(i)].targets", max: PartialLimits.userCount)
            try Check.real(p.days, "\(f()).pairs[\(i)].days", max: PartialLimits.days)
            guard p.isConsistent else { throw PartialProblem("\(f()).pairs[\(i)]", "its targets are inconsistent") }
        }
    }
}

extension SignalCeilingSums {
    func check(_ f: @autoclosure () -> String) throws(PartialProblem) {
        for (i, b) in bounds.enumerated() { try b.check("\(f()).bounds[\(i)]") }
        try Check.counts(coverable, "\(f()).coverable", max: PartialLimits.userCount)
        try Check.count(targets, "\(f()).targets", max: PartialLimits.userCount)
        try Check.count(scored, "\(f()).scored", max: PartialLimits.userCount)
        try Check.count(free, "\(f()).free", max: PartialLimits.userCount)
        for (kind, n) in signalEvents {
            try Check.count(n, "\(f()).signalEvents[\(kind.rawValue)]", max: PartialLimits.userCount)
        }
    }
}

extension UserBudgetSums {
    func check(_ f: @autoclosure () -> String) throws(PartialProblem) {
        try Check.count(scored, "\(f()).scored", max: PartialLimits.userCount)
        try Check.count(free, "\(f()).free", max: PartialLimits.userCount)
        try Check.atMost(free, scored, "\(f()).free", "scored")
        try Check.count(pairs, "\(f()).pairs", max: PartialLimits.userCount)
        for (i, n) in fresh.enumerated() {
            try Check.count(n, "\(f()).fresh[\(i)]", max: PartialLimits.userCount)
            try Check.atMost(n, scored, "\(f()).fresh[\(i)]", "scored")
        }
        for (i, x) in fetchesPerDay.enumerated() {
            try Check.real(x, "\(f()).fetchesPerDay[\(i)]", max: Double(pairs) * PartialLimits.fetchesPerPairDay)
        }
        if let days, let problem = days.problem { throw PartialProblem("\(f()).days", problem) }
        try bound.check("\(f()).bound")
        try ceilings.check("\(f()).ceilings")
    }
}

extension DayFigures {
    /// What makes the days impossible (nil: possible): a shape other than their policies give, a
    /// negative figure, a span that is not a number of days.
    var problem: String? {
        guard policies >= 0, policies <= PartialLimits.policies else { return "\(policies) policies" }
        guard figures.count % stride == 0 else { return "figures not whole days" }
        guard span.isFinite, span >= 0, span <= PartialLimits.days else { return "a span of \(span) days" }
        guard !figures.contains(where: { $0 < 0 }) else { return "a negative figure" }
        return nil
    }
}

extension CostModel {
    /// The most bytes any fetch moves under this model (the default or an app's own).
    var maxFetchBytes: Int64 { perApp.values.map(\.bytes).reduce(fetchBytes, max) }
}

extension PlatformInputs {
    func check() throws(PartialProblem) {
        try Check.count(users, "platformInputs.users", max: PartialLimits.users)
        try Check.count(usersWithContext, "platformInputs.users_with_context", max: PartialLimits.users)
        try Check.atMost(usersWithContext, users, "platformInputs.users_with_context", "users")
        try Check.count(forceQuits, "platformInputs.force_quits")
        try Check.count(refreshSwitches, "platformInputs.refresh_switches")
    }
}

extension ComparisonPartial.User {
    /// Refuses a user line that cannot be: a name import would refuse, instants outside the
    /// years 1 to 9999 or in the wrong order, counts past a user's.
    func check(policies: Int, maxFetchBytes: Int64) throws(PartialProblem) {
        try Check.name(name, "name")
        guard apps.count <= PartialLimits.userCount else { throw PartialProblem("apps", "too many apps") }
        for (i, app) in apps.enumerated() { try Check.name(app, "apps[\(i)]") }
        guard Set(apps).count == apps.count else { throw PartialProblem("apps", "an app listed twice") }
        try Check.within(start.sinceEpoch, PartialLimits.instants, "start")
        try Check.within(end.sinceEpoch, PartialLimits.instants, "end")
        guard start <= end else { throw PartialProblem("end", "\(end.sinceEpoch) is before start \(start.sinceEpoch)") }
        try Check.within(offset, PartialLimits.offsetSeconds, "offset")
        try Check.count(pairsWithContent, "pairsWithContent", max: PartialLimits.userCount)
        try Check.atMost(pairsWithContent, apps.count, "pairsWithContent", "the user's pairs")
        try Check.real(launchesPerDay, "launchesPerDay", max: PartialLimits.launchesPerDay)
        try budget?.check("budget")
        for (i, s) in (sums ?? []).enumerated() { try s.check("sums[\(i)]", maxFetchBytes: maxFetchBytes) }
        if let group { try Check.name(group, "group") }
        if let scored { try Check.count(scored, "scored", max: PartialLimits.userCount) }
        if let b = budget, b.pairs != apps.count {
            throw PartialProblem("budget.pairs", "\(b.pairs), not the user's \(apps.count) pairs")
        }
    }
}

// MARK: - The partial

extension ComparisonPartial {
    /// Refuses a header (``init(headerLine:)``) whose values cannot be: settings the command line
    /// refuses, a malformed shard, counts past their limits or inconsistent, more users than the
    /// users it says it read.
    public func checkHeader() throws(PartialProblem) {
        try configuration.check()
        if let shard {
            guard let s = UserShard(shard), s.description == shard else {
                throw PartialProblem("shard", "'\(shard)' is not I/N with 1 ≤ I ≤ N")
            }
        }
        guard source.utf8.count <= 4_096 else { throw PartialProblem("source", "longer than 4,096 bytes") }
        try platformInputs.check()
        let bytes = configuration.settings.cost.maxFetchBytes
        for (i, s) in totals.enumerated() { try s.check("totals[\(i)]", maxFetchBytes: bytes) }
        for (group, sums) in perGroup ?? [:] {
            try Check.name(group, "perGroup")
            for (i, s) in sums.enumerated() { try s.check("perGroup.\(group)[\(i)]", maxFetchBytes: bytes) }
        }
        for (i, t) in cpuSeconds.enumerated() { try Check.real(t, "cpuSeconds[\(i)]", max: PartialLimits.cpuSeconds) }
        try Check.count(launchesReplayed, "launchesReplayed")
        try Check.count(appLines ?? 0, "appLines", max: PartialLimits.users)
        try Check.count(userLines ?? 0, "userLines", max: PartialLimits.users)
        // A comparison's partial counts the users it read (a tune's folds carry no platform inputs).
        if platformInputs != PlatformInputs() {
            try Check.atMost(
                userLines ?? 0, platformInputs.users, "userLines", "the users it read (platformInputs.users)")
        }
    }

    /// Refuses a whole partial whose sums do not add up: the totals against the apps' and the
    /// groups' sums, and against what the user lines give (their pairs, scored and fresh launches).
    public func checkSums() throws(PartialProblem) {
        let policies = totals.count
        let primary = configuration.evaluation.reportedTaus.firstIndex(of: configuration.primaryTau)
        for (app, sums) in perApp {
            try Check.name(app, "app")
            for (i, s) in sums.enumerated() {
                try s.check("app \(app): sums[\(i)]", maxFetchBytes: configuration.settings.cost.maxFetchBytes)
            }
        }
        func against(_ parts: [String: [MetricSums]], _ what: String) throws(PartialProblem) {
            guard !parts.isEmpty else { return }
            for i in 0..<policies {
                var pairs = 0
                var scored = 0
                var fetches = 0
                for (_, sums) in parts where sums.indices.contains(i) {
                    pairs = try Check.sum(pairs, sums[i].pairs, "totals[\(i)].pairs")
                    scored = try Check.sum(scored, sums[i].scored, "totals[\(i)].scored")
                    fetches = try Check.sum(fetches, sums[i].fetches, "totals[\(i)].fetches")
                }
                for (name, total, sum) in [
                    ("pairs", totals[i].pairs, pairs), ("scored", totals[i].scored, scored),
                    ("fetches", totals[i].fetches, fetches),
                ] where total != sum {
                    throw PartialProblem("totals[\(i)].\(name)", "\(total), not the \(sum) its \(what) add up to")
                }
            }
        }
        try against(perApp, "apps' sums")
        if let perGroup { try against(perGroup, "groups' sums") }
        // What the user lines give.
        var pairs = 0
        for u in users { pairs = try Check.sum(pairs, u.apps.count, "users' pairs") }
        if !users.isEmpty || (userLines ?? 0) > 0 {
            for i in 0..<policies where totals[i].pairs != pairs {
                throw PartialProblem("totals[\(i)].pairs", "\(totals[i].pairs), not the \(pairs) its users' apps give")
            }
        }
        guard configuration.budgetFigures, let primary else { return }
        // The users' scored launches, and the bootstrap's point sums (every user weighing 1).
        var scored = 0
        for u in users {
            guard let b = u.budget else { continue }
            scored = try Check.sum(scored, b.scored, "users' scored launches")
        }
        let point = bootstrap.map { b in (Int(b.counts[0]), (0..<b.policies).map { Int(b.fresh[$0]) }) }
        for i in 0..<policies {
            for (total, what) in [(scored, "its users' lines add up to"), (point?.0 ?? 0, "its bootstrap's sums give")]
            where totals[i].scored != total {
                throw PartialProblem("totals[\(i)].scored", "\(totals[i].scored), not the \(total) \(what)")
            }
            let fresh = point?.1.indices.contains(i) == true ? point!.1[i] : 0
            if totals[i].fresh.indices.contains(primary), totals[i].fresh[primary] != fresh {
                throw PartialProblem(
                    "totals[\(i)].fresh[\(primary)]",
                    "\(totals[i].fresh[primary]), not the \(fresh) its bootstrap's sums give")
            }
        }
    }
}
