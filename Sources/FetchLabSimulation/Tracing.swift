import FetchLabCore
import FetchLabResults

extension Simulator {
    /// One user's local day under each policy (see `DayTrace`): `day` or, when nil, the user's
    /// scored day with the most launches of evaluated apps. Nil when the user has no scored pair
    /// or the day is not scored.
    public func trace(
        _ history: UserHistory, day: CivilDate? = nil, policies: [any FetchPolicy], choice: String
    ) -> DayTrace? {
        guard let window = evaluation.window(of: history) else { return nil }
        let user = UserSetup(
            history: history, window: window, evaluation: evaluation, context: settings.context, cost: settings.cost)
        guard !user.pairs.isEmpty else { return nil }
        let offset = window.offset
        let chosen: Int
        if let day {
            chosen = day.daysSince1970
        } else {
            var counts: [Int: Int] = [:]
            for pair in user.pairs {
                for t in pair.launches where window.isScored(t) {
                    counts[LocalCalendar.day(t, offset: offset), default: 0] += 1
                }
            }
            guard let busiest = counts.max(by: { $0.value != $1.value ? $0.value < $1.value : $0.key > $1.key }) else {
                return nil
            }
            chosen = busiest.key
        }
        let start = max(LocalCalendar.midnight(of: chosen, offset: offset), window.start)
        let end = min(LocalCalendar.midnight(of: chosen + 1, offset: offset), window.end + 1)
        guard start < end else { return nil }
        let tau = evaluation.primaryTau
        let refreshes = evaluation.launchRefreshes

        var context: [ContextStretch] = []
        var s = user.stretch(at: start)
        while s < user.stretchStarts.count, user.stretchStarts[s] < end {
            let state = user.stretchStates[s]
            let to = s + 1 < user.stretchStarts.count ? min(end, user.stretchStarts[s + 1]) : end
            context.append(
                ContextStretch(
                    start: max(start, user.stretchStarts[s]), end: to, battery: state.battery, charging: state.charging,
                    network: state.network, lowPower: state.lowPower))
            s += 1
        }

        let days = policies.map { policy -> PolicyDay in
            var launches: [TracedLaunch] = []
            var fetches: [TracedFetch] = []
            var skips: [TracedSkip] = []
            let runs = PolicyRunner.runAll(policy, user: user, settings: settings, logSkips: true)
            for p in user.pairs.indices {
                let run = runs[p]
                let ls = user.pairs[p].launches
                let ran = run.fetches.filter { !$0.expired }.map(\.time)
                // Launches of the day: fresh at τ from the last refresh.
                var j = 0
                for (i, t) in ls.enumerated() {
                    while j < ran.count, ran[j] <= t { j += 1 }
                    guard t >= start, t < end else { continue }
                    var last: Instant? = j > 0 ? ran[j - 1] : nil
                    if refreshes, i > 0, ls[i - 1] > (last ?? .distantPast) { last = ls[i - 1] }
                    let staleness = last.map { t - $0 }
                    launches.append(
                        TracedLaunch(
                            time: t, app: p, fresh: staleness.map { $0 <= tau } ?? false,
                            stalenessMinutes: staleness.map(\.inMinutes)))
                }
                // Fetches of the day and what became of them.
                for (k, f) in run.fetches.enumerated() where f.time >= start && f.time < end {
                    guard !f.expired else {
                        fetches.append(TracedFetch(time: f.time, app: p, outcome: "expired"))
                        continue
                    }
                    let li = ls.count(upTo: f.time, inclusive: false)
                    let laterFetch = run.fetches[(k + 1)...].first { !$0.expired }?.time
                    let outcome: String
                    if li == ls.count || (laterFetch.map { $0 <= ls[li] } ?? false) {
                        outcome = "wasted"
                    } else if ls[li] - f.time <= tau, !(refreshes && li > 0 && ls[li] - ls[li - 1] <= tau) {
                        outcome = "useful"
                    } else {
                        outcome = "used"
                    }
                    fetches.append(TracedFetch(time: f.time, app: p, outcome: outcome))
                }
                for skip in run.skipLog where skip.time >= start && skip.time < end {
                    skips.append(TracedSkip(time: skip.time, app: p, reason: skip.reason))
                }
            }
            return PolicyDay(
                name: policy.name, launches: launches.sorted { ($0.time, $0.app) < ($1.time, $1.app) },
                fetches: fetches.sorted { ($0.time, $0.app) < ($1.time, $1.app) },
                skips: skips.sorted { ($0.time, $0.app) < ($1.time, $1.app) })
        }
        return DayTrace(
            user: history.user.name, day: CivilDate(daysSince1970: chosen).description, utcOffset: offset, start: start,
            end: end, choice: choice, apps: user.pairs.map { history.apps[Int($0.app)].name }, context: context,
            policies: days, assumedContext: user.timeline.isEmpty)
    }
}
