import FetchLabCore
import FetchLabResults

/// `fixed(T)` when every fetch asked for happens (`--platform none`), computed in closed form:
/// the last fetch before a launch at t is t0 + ⌊(t − t0)/T⌋·T, the fetches in [S, E] are counted
/// by arithmetic, and energy, cellular data and low-battery fetches come from the stretches over
/// which the device context is constant (all of a user's apps fetch at the same instants, one
/// radio wake-up each). Gives exactly what the event-by-event replay gives (a test checks it), in
/// time proportional to launches and context samples instead of fetches.
enum FixedReplay {
    /// Whether the closed form applies: fetch groups far enough apart that each pays its own
    /// promotion and a whole tail.
    static func applies(interval: Microseconds, user: UserSetup, settings: ReplaySettings) -> Bool {
        guard settings.platform.kind == .none else { return false }
        let cost = settings.cost
        var longest = cost.fetchDuration
        for c in user.fetchCosts { longest = max(longest, c.duration) }
        let radio = max(cost.cellularTail + cost.cellularPromotion, cost.wifiTail + cost.wifiPromotion)
        return interval > longest + radio
    }

    static func outcomes(
        interval: Microseconds, user: UserSetup, settings: ReplaySettings, evaluation: EvaluationProtocol
    ) -> [PairOutcome] {
        let w = user.window
        let t0 = w.firstEvent
        let taus = evaluation.reportedTaus
        let tau = evaluation.primaryTau
        let refreshes = evaluation.launchRefreshes
        let cost = settings.cost
        // Fetch indices k with t0 + k·T in [S, E].
        let first = (w.start - t0 + interval - 1) / interval
        let last = (w.end - t0) / interval
        let inSpan = max(0, last - first + 1)
        // By scored day: the fetch indices in [S + d days, S + (d + 1) days) ∩ [S, E].
        let byDay = (0..<w.scoredDayCount).map { d -> Int32 in
            let from = w.start + .days(Int64(d))
            let to = min(w.end, from + .perDay - 1)
            return Int32(clamping: max(0, (to - t0) / interval - (from - t0 + interval - 1) / interval + 1))
        }
        let zeroSkips = [Int](repeating: 0, count: SkipReason.allCases.count)
        var out = user.pairs.enumerated().map { p, pair -> PairOutcome in
            let launches = pair.launches
            var fresh = [Int](repeating: 0, count: taus.count)
            var scored = 0
            var contentScored = 0
            var contentFresh = 0
            var used = 0
            var leads: [Microseconds] = []
            let staleness = [Microseconds](unsafeUninitializedCapacity: launches.count) { stale, written in
                var n = 0
                launches.withUnsafeBufferPointer { l in
                    user.content[p].withUnsafeBufferPointer { u in
                        user.contentCounts[p].withUnsafeBufferPointer { counts in
                            taus.withUnsafeBufferPointer { x in
                                fresh.withUnsafeMutableBufferPointer { fr in
                                    let hasContent = u.count > 0
                                    var lastK: Int64 = -1
                                    var credited: Int64 = -1
                                    // The fetch index of the last launch and the span [from, to) of
                                    // launch times with that index: the next launch mostly falls in
                                    // it or the next one, so one division per launch is rarely needed.
                                    var k: Int64 = 0
                                    var spanKnown = false
                                    var from = Instant.epoch
                                    var to = Instant.epoch
                                    for i in 0..<l.count {
                                        let t = l[i]
                                        if spanKnown && t >= from && t < to {
                                        } else if spanKnown && t >= to && t - to < interval {
                                            k += 1
                                            from = to
                                            to = from + interval
                                        } else {
                                            k = (t - t0) / interval
                                            // Before t0 the quotient rounds toward zero: no span.
                                            spanKnown = t >= t0
                                            from = t0 + k * interval
                                            to = from + interval
                                        }
                                        let fetch = t0 + k * interval
                                        if k != lastK {
                                            lastK = k
                                            if k >= first && k <= last { used += 1 }
                                        }
                                        guard w.isScored(t) else { continue }
                                        scored += 1
                                        let hasPrevious = refreshes && i > 0
                                        let previous = hasPrevious ? l[i - 1] : fetch
                                        let refreshed = max(fetch, previous)
                                        if hasContent {
                                            let c = Int(counts[i])
                                            contentScored += 1
                                            if c == 0 || refreshed >= u[c - 1] { contentFresh += 1 }
                                        }
                                        let s = t - refreshed
                                        (stale.baseAddress! + n).initialize(to: s)
                                        n += 1
                                        for j in 0..<x.count where s <= x[j] { fr[j] += 1 }
                                        if t - fetch <= tau, k != credited, !hasPrevious || t - previous > tau {
                                            credited = k
                                            leads.append(t - fetch)
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
                written = n
            }
            var o = PairOutcome(
                scored: scored, fresh: fresh, fetches: Int(inSpan), days: w.scoredDays, skips: zeroSkips)
            o.contentScored = contentScored
            o.contentFresh = contentFresh
            o.staleness = staleness
            o.leads = leads
            o.fetchesByDay = byDay
            o.wasted = Int(inSpan) - used
            return o
        }
        guard inSpan > 0 else { return out }
        // Energy, data and low-battery fetches, stretch by stretch of constant context: first the
        // fetches in each stretch (the stretches follow one another, so the next fetch index only
        // moves on), then each pair's sums over the stretches in the same order and with the same
        // products as adding stretch by stretch to every pair.
        let fetchCosts = user.fetchCosts
        let spanStart = t0 + first * interval
        let spanEnd = t0 + last * interval + 1
        var lowFetches = 0
        var cellularCounts: [Double] = []
        var batteryCounts: [(count: Double, cellular: Bool)] = []
        var next = first  // the first fetch index at or after the stretch's start
        var s = user.stretch(at: spanStart)
        while s < user.stretchStarts.count, user.stretchStarts[s] < spanEnd {
            let to = s + 1 < user.stretchStarts.count ? min(spanEnd, user.stretchStarts[s + 1]) : spanEnd
            let state = user.stretchStates[s]
            s += 1
            guard next <= last else { break }
            let nextTime = t0 + next * interval
            guard nextTime < to else { continue }
            let n = min(last - next + 1, (to - 1 - nextTime) / interval + 1)
            next += n
            let count = Double(n)
            if state.isLow(below: cost.lowBatteryPercent) { lowFetches += Int(n) }
            if state.network == .cellular { cellularCounts.append(count) }
            guard !state.charging else { continue }
            batteryCounts.append((count, state.network == .cellular))
        }
        let cellularFetches = Int(cellularCounts.reduce(0, +))
        // One group: the first app pays the promotion, each its transfer, the last the tail.
        let wifi = cost.radio(.wifi)
        let cellular = cost.radio(.cellular)
        func joules(_ r: CostModel.Radio, pair p: Int) -> Double {
            var joules = fetchCosts[p].duration.inSeconds * r.transferWatts
            if p == 0 { joules += r.promotion.inSeconds * r.promotionWatts }
            if p == out.count - 1 { joules += r.tail.inSeconds * r.tailWatts }
            return joules
        }
        for p in out.indices {
            out[p].lowBattery += lowFetches
            let bytes = Double(fetchCosts[p].bytes)
            var cellularBytes = out[p].cellularBytes
            for count in cellularCounts { cellularBytes += count * bytes }
            out[p].cellularBytes = cellularBytes
            out[p].cellularFetches += cellularFetches
            let (onWifi, onCellular) = (joules(wifi, pair: p), joules(cellular, pair: p))
            var batteryJoules = out[p].batteryJoules
            for b in batteryCounts { batteryJoules += b.count * (b.cellular ? onCellular : onWifi) }
            out[p].batteryJoules = batteryJoules
        }
        return out
    }
}
