import FetchLabCore
import Foundation

/// The observed frequencies a predictive scheduler decides on, learned from what it was shown.
struct UseSignals {
    let app: Int32
    let tau: Microseconds
    let lead: Microseconds
    let launchRefreshes: Bool
    let offset: Int32

    // Sequence: per other app (indexed by app), its launches and those followed by a cold launch
    // of this app within `lead`.
    var launchesOf: [Int]
    var followedBy: [Int]
    /// Recent launches of other apps (time, app), the last `lead`, not yet credited: in time
    /// order, each app at most once.
    var recent: [(time: Instant, app: Int32)] = []

    // Time since last use: counts of the gaps after τ in bins of `lead`; the last bin is "later".
    var gapBins: [Int]
    /// The sum of ``gapBins``.
    var gapTotal = 0
    /// The gap bins holding a gap, ascending, and each bin's hazard (its gaps over those in it and
    /// later, + 1; 0 for an empty bin), kept as the gaps are learned, indexed like ``gapBins``:
    /// the bins a threshold above 0 can pass.
    private(set) var heldGapBins: [Int] = []
    private(set) var heldHazards: [Double]
    var lastLaunch: Instant? = nil

    // Time of day, weekdays and weekends apart: the (local day, 5-minute bin) of every cold launch.
    var coldBins: [(day: Int, bin: Int)] = []
    var firstDay: Int? = nil

    static let binMinutes = 5
    static let bins = 1_440 / binMinutes
    /// Days weigh half as much every this many days (habits drift).
    static let halfLifeDays = 14.0

    init(app: Int32, tau: Microseconds, lead: Microseconds, launchRefreshes: Bool, offset: Int32, appCount: Int = 0) {
        self.app = app
        self.tau = tau
        self.lead = lead
        self.launchRefreshes = launchRefreshes
        self.offset = offset
        gapBins = [Int](repeating: 0, count: max(2, Int(Microseconds.perDay / lead) + 1))
        heldHazards = [Double](repeating: 0, count: gapBins.count)
        launchesOf = [Int](repeating: 0, count: max(appCount, Int(app) + 1))
        followedBy = launchesOf
    }

    /// The first gap bin the replay can act on: after τ when launches refresh.
    var gapStart: Microseconds { launchRefreshes ? tau : 0 }

    mutating func learn(_ e: UsageEvent) {
        guard e.kind == .launch else { return }
        let t = e.time
        if firstDay == nil { firstDay = LocalCalendar.day(t, offset: offset) }
        if let first = recent.first, t - first.time > lead {
            // In time order: the stale ones are a prefix.
            recent.removeFirst(recent.firstIndex { t - $0.time <= lead } ?? recent.count)
        }
        if e.app == app {
            let cold = !launchRefreshes || lastLaunch.map { t - $0 > tau } ?? true
            if let last = lastLaunch, t - last > gapStart {
                let bin = min(gapBins.count - 1, Int((t - last - gapStart) / lead))
                if gapBins[bin] == 0 { heldGapBins.insert(bin, at: Self.firstIndex(in: heldGapBins, atLeast: bin)) }
                gapBins[bin] += 1
                gapTotal += 1
                // Every held bin's hazard: its gaps over those in it and later (+ 1).
                var atOrAfter = gapTotal
                for b in heldGapBins {
                    heldHazards[b] = hazard(b, atOrAfter: atOrAfter)
                    atOrAfter -= gapBins[b]
                }
            }
            lastLaunch = t
            if cold {
                // Credit the other apps launched just before; mark the slot's day.
                for r in recent { followedBy[Int(r.app)] += 1 }
                recent.removeAll()
                let local = LocalCalendar.localSeconds(t, offset: offset)
                let day = LocalCalendar.day(localSeconds: local)
                let bin = Int((local - Int64(day) * Seconds.perDay) / Seconds.perMinute) / Self.binMinutes
                if coldBins.last.map({ $0.day != day || $0.bin != bin }) ?? true { coldBins.append((day, bin)) }
            }
        } else if isCold(at: t) {
            // Only launches of B while this app would need a fetch count: the others cannot be followed by a cold launch.
            if Int(e.app) >= launchesOf.count {
                launchesOf += [Int](repeating: 0, count: Int(e.app) + 1 - launchesOf.count)
                followedBy += [Int](repeating: 0, count: Int(e.app) + 1 - followedBy.count)
            }
            launchesOf[Int(e.app)] += 1
            recent.removeAll { $0.app == e.app }
            recent.append((t, e.app))
        }
    }

    /// Whether a launch of this app at `t` would be cold.
    func isCold(at t: Instant) -> Bool { !launchRefreshes || lastLaunch.map { t - $0 > tau } ?? true }

    /// P(a cold launch of this app within `lead` after a launch of `other`, this app not used within τ).
    func follow(_ other: Int32) -> Double {
        guard Int(other) < launchesOf.count else { return 0 }
        return Double(followedBy[Int(other)]) / Double(launchesOf[Int(other)] + 1)
    }

    /// ``follow(_:)`` of a launch of another app that came when this app's launch would be cold
    /// (learned already), what a predictive decider's sequence estimate reads; 0 for any other event.
    func follow(_ event: UsageEvent, cold: Bool) -> Double {
        cold && event.kind == .launch && event.app != app ? follow(event.app) : 0
    }

    /// P(the next launch falls in gap bin k | none before it).
    /// Kept as the gaps are learned (``heldHazards``; an empty bin's is 0).
    func hazard(_ k: Int) -> Double {
        guard k < gapBins.count - 1 else { return 0 }
        return heldHazards[k]
    }

    /// ``hazard(_:)`` of a bin before the last, given ``launches(inGapBinsFrom:)`` of it.
    @inline(__always) func hazard(_ k: Int, atOrAfter: Int) -> Double {
        Double(gapBins[k]) / Double(atOrAfter + 1)
    }

    /// The first gap bin from `k` on, before the last ("later"), whose hazard is at least
    /// `threshold` (above 0: an empty bin's hazard is 0), nil when none is.
    func firstGapBin(from k: Int, hazardAtLeast threshold: Double) -> Int? {
        let last = gapBins.count - 1
        var i = Self.firstIndex(in: heldGapBins, atLeast: k)
        while i < heldGapBins.count, heldGapBins[i] < last {
            if heldHazards[heldGapBins[i]] >= threshold { return heldGapBins[i] }
            i += 1
        }
        return nil
    }

    /// The index of the first element of ascending `a` at least `k` (`a.count` when none is).
    static func firstIndex(in a: [Int], atLeast k: Int) -> Int {
        var lo = 0
        var hi = a.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if a[mid] < k { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// The gaps counted in bin `k` and the later ones.
    func launches(inGapBinsFrom k: Int) -> Int {
        var n = 0
        if k < gapBins.count / 2 {
            // The total less the bins before k: the shorter sum.
            for j in 0..<k { n += gapBins[j] }
            return gapTotal - n
        }
        for j in k..<gapBins.count { n += gapBins[j] }
        return n
    }

    /// The weight of a day `age` days back, 0.5^(age / ``halfLifeDays``) (a table for the first 4,096 days).
    @inline(__always) static func weight(age: Int) -> Double {
        age >= 0 && age < weights.count ? weights[age] : pow(0.5, Double(age) / halfLifeDays)
    }
    static let weights: [Double] = (0..<4_096).map { pow(0.5, Double($0) / halfLifeDays) }

    /// Saturday or Sunday (local day 0, 1970-01-01, was a Thursday).
    static func isWeekend(_ day: Int) -> Bool { ((day % 7) + 7 + 3) % 7 >= 5 }

    /// The time-of-day fetches of local day `day`: (minute of the day, probability). The expected
    /// cold launches per 5-minute bin are the shares of past days of the same kind (weekday or
    /// weekend) with a cold launch in that bin, recent days weighing more; then, greedily, the
    /// `lead`-long window holding the most expected cold launches gets a fetch at its start while
    /// it holds at least `threshold` (its bins are then spent).
    func plan(day: Int, threshold: Double) -> [(minute: Int, p: Double)] {
        guard let first = firstDay, day > first else { return [] }
        let weekend = Self.isWeekend(day)
        func weight(_ d: Int) -> Double { Self.weight(age: day - d) }
        var days = 0.0
        for d in first..<day where Self.isWeekend(d) == weekend { days += weight(d) }
        guard days > 0 else { return [] }
        var q = [Double](repeating: 0, count: Self.bins)
        for c in coldBins where c.day < day && Self.isWeekend(c.day) == weekend { q[c.bin] += weight(c.day) / days }
        let w = max(
            1,
            Int(
                (lead + Microseconds.perMinute * Int64(Self.binMinutes) - 1)
                    / (Microseconds.perMinute * Int64(Self.binMinutes))))
        return Self.greedyWindows(q, width: w, threshold: threshold).map { ($0.start * Self.binMinutes, $0.p) }
            .sorted { $0.minute < $1.minute }
    }

    /// Greedily, the `width`-bin window of `q` with the largest sum (the first of equal ones) while
    /// that sum is at least `threshold`, its bins then spent: (first bin, min(1, sum)), in the order
    /// found. The window sum is kept as a running sum over the bins, as a scan of every bin would
    /// (the same additions in the same order, so the same rounding), but only at the bins where it
    /// changes — where a nonzero bin enters or leaves the window — and at the first window's end:
    /// between them it is constant, and a constant sum can only beat the best at its first bin.
    static func greedyWindows(_ q: [Double], width w: Int, threshold: Double) -> [(start: Int, p: Double)] {
        var q = q
        var nonzero = q.indices.filter { q[$0] != 0 }
        var out: [(start: Int, p: Double)] = []
        while out.count < q.count {
            var best = 0.0
            var start = 0
            var sum = 0.0
            var i = 0  // the next bin to enter: nonzero[i]
            var j = 0  // the next to leave: nonzero[j], at bin nonzero[j] + w
            var firstChecked = false
            while true {
                let enter = i < nonzero.count ? nonzero[i] : Int.max
                let leave = j < nonzero.count ? nonzero[j] + w : Int.max
                var b = min(enter, leave)
                if !firstChecked, w - 1 < b { b = w - 1 }
                guard b < q.count else { break }
                if b == enter {
                    sum += q[b]
                    i += 1
                }
                if b == leave {
                    sum -= q[b - w]
                    j += 1
                }
                if b == w - 1 { firstChecked = true }
                if b >= w - 1, sum > best + 1e-12 {
                    best = sum
                    start = b - w + 1
                }
            }
            guard best >= threshold else { break }
            out.append((start, min(1, best)))
            for b in start..<(start + w) { q[b] = 0 }
            nonzero.removeAll { $0 >= start && $0 < start + w }
        }
        return out
    }
}
