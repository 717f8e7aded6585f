import FetchLabCore
import FetchLabResults
import Foundation

/// Describing a population: the statistics computed.
extension UsageDescription {
    /// The description of `histories` pooled (users without launches are left out).
    public static func describe(_ histories: [UserHistory]) -> UsageDescription {
        var tally = Tally()
        for part in ParallelMap.map(histories, { Tally($0) }) { tally.merge(part) }
        return tally.description
    }

    /// The q-th percentile (0 ≤ q ≤ 1) of `sorted` (ascending), by linear interpolation between
    /// order statistics (numpy's default); nil when empty.
    public static func percentile(_ sorted: [Double], _ q: Double) -> Double? {
        guard let first = sorted.first else { return nil }
        if sorted.count == 1 { return first }
        let h = q * Double(sorted.count - 1)
        let lo = Int(h.rounded(.down))
        let hi = min(lo + 1, sorted.count - 1)
        return sorted[lo] + (h - Double(lo)) * (sorted[hi] - sorted[lo])
    }

    /// Shannon entropy in bits of a histogram (nil when it is empty).
    public static func entropyBits(_ counts: [Int]) -> Double? {
        let total = counts.reduce(0, +)
        guard total > 0 else { return nil }
        return counts.reduce(0.0) { h, c in
            guard c > 0 else { return h }
            let p = Double(c) / Double(total)
            return h - p * log2(p)
        }
    }

    /// The total-variation distance between two histograms, each normalised (nil when one is empty).
    public static func totalVariation(_ a: [Int], _ b: [Int]) -> Double? {
        let (ta, tb) = (a.reduce(0, +), b.reduce(0, +))
        guard ta > 0, tb > 0 else { return nil }
        return zip(a, b).reduce(0.0) { $0 + abs(Double($1.0) / Double(ta) - Double($1.1) / Double(tb)) } / 2
    }

    /// How many of `minutes` (local minutes of the day) fall inside `k` greedy one-hour windows:
    /// each window (centre c, minutes c − 30 … c + 30, circular over midnight) is the one holding
    /// most of the launches not yet covered (the earliest centre on ties); its launches are then
    /// covered.
    public static func coveredByUsualWindows(_ minutes: [Int], windows k: Int) -> Int {
        var remaining = [Int](repeating: 0, count: 1440)
        for m in minutes { remaining[((m % 1440) + 1440) % 1440] += 1 }
        let half = usualWindowHalfWidth
        var covered = 0
        for _ in 0..<k {
            // Window sums for every centre, sliding around the circle.
            var sum = 0
            for d in -half...half { sum += remaining[(d + 1440) % 1440] }
            var (best, bestCentre) = (sum, 0)
            for c in 1..<1440 {
                sum += remaining[(c + half) % 1440] - remaining[(c - half - 1 + 1440) % 1440]
                if sum > best { (best, bestCentre) = (sum, c) }
            }
            guard best > 0 else { break }
            covered += best
            for d in -half...half { remaining[(bestCentre + d + 1440) % 1440] = 0 }
        }
        return covered
    }

    /// The number of usual-time windows of an app: its median launches per active day, rounded
    /// (halves up), at least 1 and at most `UsageDescription.maximumUsualWindows`.
    public static func usualWindowCount(launchesPerActiveDay: [Int]) -> Int {
        let median = percentile(launchesPerActiveDay.map(Double.init).sorted(), 0.5) ?? 1
        return min(maximumUsualWindows, max(1, Int(median.rounded(.toNearestOrAwayFromZero))))
    }
}

extension UsageDescription {
    /// The parts of a description that add up over users: one user's by ``init(_:)``, several by
    /// ``merge(_:)``. For describing users loaded in batches without holding them all.
    public struct Tally: Sendable {
        var users = 0
        var launches = 0
        var apps = 0
        var userDays = 0
        var cold = 0
        var sameApp = 0
        var afterOther = 0
        var gaps: [Double] = []
        var sessionApps: [Double] = []
        var sessionLaunches: [Double] = []
        var sessionLengths: [Double] = []
        var appDayRates: [Double] = []
        var regularLaunches = 0
        var regularCovered = 0
        var regularShares: [Double] = []
        var appEntropies: [Double] = []
        var weekdays = 0
        var weekendDays = 0
        var weekdayHours = [Int](repeating: 0, count: 24)
        var weekendHours = [Int](repeating: 0, count: 24)
        var pairs = 0
        var top1 = 0
        var top3 = 0

        public init() {}

        /// One user's tally (empty when the user has no launches).
        public init(_ history: UserHistory) {
            let launches = history.launches
            guard !launches.isEmpty else { return }
            let window = UsageDescription.window
            users = 1
            self.launches = launches.count
            let days = launches.map(\.localDay)
            let (firstDay, lastDay) = (days.min() ?? 0, days.max() ?? 0)
            let span = lastDay - firstDay + 1
            userDays = span
            for day in firstDay...lastDay {
                if LocalCalendar.isWeekend(day) { weekendDays += 1 } else { weekdays += 1 }
            }

            // Classes, gaps and sessions in one pass.
            var byApp: [Int32: [Int]] = [:]  // launch indices per app
            var sessionStart = 0
            var sessionAppSet: Set<Int32> = []
            func closeSession(_ end: Int) {
                sessionApps.append(Double(sessionAppSet.count))
                sessionLaunches.append(Double(end - sessionStart))
                sessionLengths.append(
                    Double(launches[end - 1].time - launches[sessionStart].time) / Double(Microseconds.perMinute))
            }
            for (i, launch) in launches.enumerated() {
                let previousOfApp = byApp[launch.app]?.last.map { launches[$0].time }
                if let previousOfApp {
                    gaps.append(Double(launch.time - previousOfApp) / Double(Microseconds.perMinute))
                }
                if i == 0 || launch.time - launches[i - 1].time > window {
                    cold += 1
                    if i > 0 { closeSession(i) }
                    sessionStart = i
                    sessionAppSet = []
                } else if let previousOfApp, launch.time - previousOfApp <= window {
                    sameApp += 1
                } else {
                    afterOther += 1
                }
                sessionAppSet.insert(launch.app)
                byApp[launch.app, default: []].append(i)
                let hour = launch.localMinute / 60
                if LocalCalendar.isWeekend(days[i]) { weekendHours[hour] += 1 } else { weekdayHours[hour] += 1 }
            }
            closeSession(launches.count)
            apps = byApp.count

            // Regular apps: rate per user-day, usual-time windows, own hour profile.
            for app in byApp.keys.sorted() {
                let indices = byApp[app] ?? []
                guard indices.count >= UsageDescription.regularMinimumLaunches else { continue }
                appDayRates.append(Double(indices.count) / Double(span))
                var perDay: [Int: Int] = [:]
                var hours = [Int](repeating: 0, count: 24)
                var minutes: [Int] = []
                for i in indices {
                    perDay[days[i], default: 0] += 1
                    let minute = launches[i].localMinute
                    minutes.append(minute)
                    hours[minute / 60] += 1
                }
                let k = UsageDescription.usualWindowCount(launchesPerActiveDay: Array(perDay.values))
                let covered = UsageDescription.coveredByUsualWindows(minutes, windows: k)
                regularLaunches += indices.count
                regularCovered += covered
                regularShares.append(Double(covered) / Double(indices.count))
                if let h = UsageDescription.entropyBits(hours) { appEntropies.append(h) }
            }

            // Transitions inside sessions; a's successors ranked by count, then by first appearance.
            var successors: [Int32: [(app: Int32, count: Int)]] = [:]
            var observed: [(Int32, Int32)] = []
            for i in launches.indices.dropFirst() where launches[i].time - launches[i - 1].time <= window {
                let (a, b) = (launches[i - 1].app, launches[i].app)
                observed.append((a, b))
                if let j = successors[a]?.firstIndex(where: { $0.app == b }) {
                    successors[a]![j].count += 1
                } else {
                    successors[a, default: []].append((b, 1))
                }
            }
            var ranked: [Int32: [Int32]] = [:]
            for (a, list) in successors {
                // Stable sort: equal counts keep their order of first appearance.
                ranked[a] = list.enumerated().sorted { ($1.element.count, $0.offset) < ($0.element.count, $1.offset) }
                    .prefix(3).map(\.element.app)
            }
            pairs = observed.count
            for (a, b) in observed {
                let top = ranked[a] ?? []
                if top.first == b { top1 += 1 }
                if top.contains(b) { top3 += 1 }
            }
        }

        /// Adds another tally's users.
        public mutating func merge(_ other: Tally) {
            users += other.users
            launches += other.launches
            apps += other.apps
            userDays += other.userDays
            cold += other.cold
            sameApp += other.sameApp
            afterOther += other.afterOther
            gaps += other.gaps
            sessionApps += other.sessionApps
            sessionLaunches += other.sessionLaunches
            sessionLengths += other.sessionLengths
            appDayRates += other.appDayRates
            regularLaunches += other.regularLaunches
            regularCovered += other.regularCovered
            regularShares += other.regularShares
            appEntropies += other.appEntropies
            weekdays += other.weekdays
            weekendDays += other.weekendDays
            for h in 0..<24 {
                weekdayHours[h] += other.weekdayHours[h]
                weekendHours[h] += other.weekendHours[h]
            }
            pairs += other.pairs
            top1 += other.top1
            top3 += other.top3
        }

        /// The statistics of the users tallied.
        public var description: UsageDescription {
            func share(_ part: Int, _ whole: Int) -> Double? { whole > 0 ? Double(part) / Double(whole) : nil }
            func mean(_ xs: [Double]) -> Double? { xs.isEmpty ? nil : xs.reduce(0, +) / Double(xs.count) }
            let gaps = gaps.sorted()
            let sessionApps = sessionApps.sorted()
            let lengths = sessionLengths.sorted()
            let weekdayLaunches = weekdayHours.reduce(0, +)
            let weekendLaunches = weekendHours.reduce(0, +)
            let perWeekday = weekdays > 0 ? Double(weekdayLaunches) / Double(weekdays) : nil
            let perWeekend = weekendDays > 0 ? Double(weekendLaunches) / Double(weekendDays) : nil
            let ratio = perWeekday.flatMap { wd in perWeekend.flatMap { we in wd > 0 ? we / wd : nil } }
            return UsageDescription(
                users: users, launches: launches, apps: apps, userDays: userDays,
                classes: LaunchClasses(
                    cold: cold, sameApp: sameApp, afterOtherApp: afterOther, coldShare: share(cold, launches),
                    sameAppShare: share(sameApp, launches), afterOtherAppShare: share(afterOther, launches)),
                sameAppGaps: GapPercentiles(
                    count: gaps.count, p10: percentile(gaps, 0.1), p25: percentile(gaps, 0.25),
                    median: percentile(gaps, 0.5), p75: percentile(gaps, 0.75), p90: percentile(gaps, 0.9)),
                sessions: SessionSummary(
                    count: sessionApps.count, appsMean: mean(sessionApps), appsP90: percentile(sessionApps, 0.9),
                    launchesMean: mean(sessionLaunches), lengthMedianMinutes: percentile(lengths, 0.5),
                    lengthP90Minutes: percentile(lengths, 0.9)),
                rates: LaunchRates(
                    regularApps: appDayRates.count, perAppDayMedian: percentile(appDayRates.sorted(), 0.5),
                    perUserDay: userDays > 0 ? Double(launches) / Double(userDays) : nil),
                regularity: Regularity(
                    regularApps: regularShares.count, pooledShare: share(regularCovered, regularLaunches),
                    medianShare: percentile(regularShares.sorted(), 0.5)),
                weekdayWeekend: WeekdayWeekend(
                    weekdayLaunches: weekdayLaunches, weekendLaunches: weekendLaunches, weekdays: weekdays,
                    weekendDays: weekendDays, perWeekday: perWeekday, perWeekendDay: perWeekend,
                    weekendToWeekdayRatio: ratio, hourProfileDistance: totalVariation(weekdayHours, weekendHours)),
                hourEntropy: HourEntropy(
                    pooledBits: entropyBits(zip(weekdayHours, weekendHours).map { $0 + $1 }),
                    regularAppMedianBits: percentile(appEntropies.sorted(), 0.5)),
                transitions: Transitions(pairs: pairs, top1Share: share(top1, pairs), top3Share: share(top3, pairs)))
        }
    }
}
