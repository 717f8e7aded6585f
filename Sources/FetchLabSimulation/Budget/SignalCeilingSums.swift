import FetchLabCore
import FetchLabResults

/// What one user (or many, merged) adds to the per-signal ceilings (`SignalCeilings`): per
/// restricted signal set (launches, + device, + notifications), the bound's pairs with fetches
/// only at that set's moments, the targets those moments can cover, and the signal events counted.
///
/// Per pair, a fetch whose earliest covered target is t is best at the latest moment m of the set
/// with t − τ ≤ m ≤ t (and m ≥ S): it covers every target it could from an earlier moment and more.
/// So the pair's c(k) comes from the same pass as the bound's, over the coverable targets with
/// `next[i]` the first target after mᵢ + τ, and the same Lagrangian over pairs gives the ceiling at
/// each budget: a fractional relaxation, so no policy fetching only at those moments beats it.
public struct SignalCeilingSums: Sendable {
    /// The restricted sets, in order (`anywhere` is the bound itself).
    static let restricted: [SignalSet] = [.launches, .device, .notifications]

    /// Per restricted set: the pairs (empty unless kept).
    var bounds = [ClairvoyantBound](repeating: ClairvoyantBound(), count: 3)
    /// Per restricted set: the targets some moment of the set can cover.
    var coverable = [Int](repeating: 0, count: 3)
    var targets = 0
    var scored = 0
    var free = 0
    /// Signal events in the scored spans, by kind.
    var signalEvents: [UsageEventKind: Int] = [:]

    public init() {}

    /// The sums of one user's history under `evaluation` (its window, evaluated apps, primary τ and
    /// launch refreshes); `keepPairs` keeps the pairs the ceilings at a budget need (without, only
    /// the unlimited ceilings can be read).
    public init(_ history: UserHistory, evaluation: EvaluationProtocol = EvaluationProtocol(), keepPairs: Bool = false)
    {
        guard let window = evaluation.window(of: history) else {
            self.init()
            return
        }
        let apps = evaluation.evaluatedApps(of: history)
        guard !apps.isEmpty else {
            self.init()
            return
        }
        var byApp = [[Instant]](repeating: [], count: history.apps.count)
        for l in history.launches where Int(l.app) < byApp.count { byApp[Int(l.app)].append(l.time) }
        self.init(
            history: history, window: window, pairs: apps.map { ($0, byApp[Int($0)]) }, tau: evaluation.primaryTau,
            launchRefreshes: evaluation.launchRefreshes, keepPairs: keepPairs)
    }

    /// The sums of one user's evaluated pairs (app, its launch times ascending).
    init(
        history: UserHistory, window: UserWindow, pairs: [(app: Int32, launches: [Instant])], tau: Microseconds,
        launchRefreshes: Bool, keepPairs: Bool
    ) {
        var device: [Instant] = []
        var notifications = [[Instant]](repeating: [], count: history.apps.count)
        for e in history.events where e.kind.isSignal {
            if window.isScored(e.time) { signalEvents[e.kind, default: 0] += 1 }
            if e.kind == .notification {
                if Int(e.app) < notifications.count { notifications[Int(e.app)].append(e.time) }
            } else {
                device.append(e.time)
            }
        }
        let launches = history.launches
        let days = window.scoredDays
        for (app, appLaunches) in pairs {
            let (targets, scored) = ClairvoyantBound.targets(
                launches: appLaunches, window: window, tau: tau, launchRefreshes: launchRefreshes)
            self.scored += scored
            self.targets += targets.count
            free += scored - targets.count
            let notes = Int(app) < notifications.count ? notifications[Int(app)] : []
            // Per set, the coverable targets and the latest moment of the set at or before each.
            var kept = [[Instant]](repeating: [], count: 3)
            var moments = [[Instant]](repeating: [], count: 3)
            var (j, d, n) = (0, 0, 0)
            var latest = [Instant](repeating: .distantPast, count: 3)
            for t in targets {
                while j < launches.count, launches[j].time <= t {
                    if launches[j].app != app { latest[0] = launches[j].time }
                    j += 1
                }
                while d < device.count, device[d] <= t {
                    latest[1] = device[d]
                    d += 1
                }
                while n < notes.count, notes[n] <= t {
                    latest[2] = notes[n]
                    n += 1
                }
                let earliest = max(window.start, t - tau)
                var m = Instant.distantPast
                for s in 0..<3 {
                    m = max(m, latest[s])
                    if m >= earliest {
                        kept[s].append(t)
                        moments[s].append(m)
                    }
                }
            }
            for s in 0..<3 { coverable[s] += kept[s].count }
            guard keepPairs else { continue }
            var pair = ClairvoyantBound.Pair(targets: kept[0], fetchMoments: moments[0], days: days, tau: tau)
            for s in 0..<3 {
                // A set that adds no moment to this pair shares the pair of the set before (no copy).
                if s > 0, moments[s] != moments[s - 1] {
                    pair = ClairvoyantBound.Pair(targets: kept[s], fetchMoments: moments[s], days: days, tau: tau)
                }
                bounds[s].add(pair, scored: scored, freeFresh: scored - targets.count)
            }
        }
    }

    /// Adds another user's (or group's) sums.
    public mutating func merge(_ other: SignalCeilingSums) {
        for s in 0..<3 {
            bounds[s].add(other.bounds[s])
            coverable[s] += other.coverable[s]
        }
        targets += other.targets
        scored += other.scored
        free += other.free
        for (k, v) in other.signalEvents { signalEvents[k, default: 0] += v }
    }

    /// The ceilings at `budgets` (the pairs must have been kept) and with no budget.
    /// - Parameters:
    ///   - budgets: fetches per app per day (averaged over pairs); empty for the unlimited ceilings only.
    ///   - anywhere: the clairvoyant bound's fresh rate at each of `budgets` (the run's own figures,
    ///   so that the `anywhere` ceiling repeats them exactly).
    ///   - tau: the τ the sums were made at (only reported).
    ///   - launchRefreshes: whether launches refreshed when the sums were made (only reported).
    public func ceilings(
        budgets: [Double] = [], anywhere: [Double] = [], tau: Microseconds, launchRefreshes: Bool
    ) -> SignalCeilings {
        ceilings(budgets: budgets, anywhere: anywhere, tau: tau, launchRefreshes: launchRefreshes, covered: nil)
    }

    /// ``ceilings(budgets:anywhere:tau:launchRefreshes:)``, with `covered` giving the targets
    /// restricted set `s` covers at each budget where its pairs are kept elsewhere (a run's, on
    /// disk); nil: from ``bounds``.
    func ceilings(
        budgets: [Double], anywhere: [Double], tau: Microseconds, launchRefreshes: Bool,
        covered: ((_ set: Int, _ budgets: [Double]) -> [Double])?
    ) -> SignalCeilings {
        precondition(anywhere.count == budgets.count, "the bound at every budget")
        func rate(_ covered: Double) -> Double { scored > 0 ? (Double(free) + covered) / Double(scored) : 0 }
        var sets: [SignalCeilings.Ceiling] = []
        for set in SignalSet.allCases {
            let present = set.addedSignals.isEmpty || set.addedSignals.contains { signalEvents[$0, default: 0] > 0 }
            if !present, let before = sets.last {
                sets.append(.init(set: set, signalsPresent: false, fresh: before.fresh, unlimited: before.unlimited))
                continue
            }
            let fresh: [Double]
            let unlimited: Double
            if let s = Self.restricted.firstIndex(of: set) {
                fresh =
                    budgets.isEmpty
                    ? [] : (covered?(s, budgets) ?? bounds[s].coveredTargets(atBudgets: budgets)).map(rate)
                unlimited = rate(Double(coverable[s]))
            } else {
                fresh = anywhere
                unlimited = rate(Double(targets))
            }
            sets.append(.init(set: set, signalsPresent: true, fresh: fresh, unlimited: unlimited))
        }
        return SignalCeilings(
            tau: tau, launchRefreshes: launchRefreshes, budgets: budgets,
            signalEvents: signalEvents, sets: sets)
    }
}
