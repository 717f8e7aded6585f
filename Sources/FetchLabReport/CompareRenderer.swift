import FetchLabCore
import FetchLabResults
import Foundation

/// How `compare` orders its table.
public enum CompareSort: String, Sendable, CaseIterable {
    /// By fresh@τ within budget bands (policies spending up to each budget together), cheapest band first.
    case band
    /// By fresh@τ, highest first.
    case fresh
    /// By the share of the possible gain at the policy's own fetches/app/day, highest first.
    case share
    /// By fetches/app/day, fewest first.
    case fetches
    /// By energy per day, least first.
    case energy
    /// In the order the policies were given.
    case given
}

/// `compare`'s output: a header line with the protocol and the population, the headline at the
/// chosen budget, the policies (causal ones ranked, by fresh@τ within budget bands unless sorted
/// otherwise; the clairvoyant ones after, unranked), and freshness at each budget.
public enum CompareRenderer {
    /// The text output; by default it keeps to 120 columns (``TextFormat/terminalWidth``): the
    /// table's main columns (`narrowColumns(_:)`), long policy names cut, the prose around it
    /// wrapped, a key under the table; `wide` shows every column as the table always had.
    public static func text(_ r: ComparisonReport, sort: CompareSort = .band, wide: Bool = false) -> String {
        let table = wide ? [columns(r)] + rows(r, sort: sort) : narrowTable(r, sort: sort)
        let widths = table[0].indices.map { i in table.filter { $0.count > 1 }.map { $0[i].count }.max() ?? 0 }
        let lines = table.map { cells in
            if cells.count == 1 { return cells[0] }
            var line = cells.enumerated().map { i, cell in TextFormat.pad(cell, widths[i], right: i != 1 && i != 2) }
                .joined(separator: "  ")
            while line.hasSuffix(" ") { line.removeLast() }
            return line
        }
        let wrap = { (lines: [String]) in TextFormat.wrap(lines: lines) }
        var out = wrap([summary(r), context(r)])
        if let h = headline(r) { out += wrap([h]) }
        out += wrap((r.budget?.warnings ?? []).map { "warning: \($0)" })
        out += [""] + lines
        if !wide { out += key(r) }
        let budget = budgetTable(r)
        if !budget.isEmpty { out += [""] + wrap(budget) }
        let ceilings = ceilingsTable(r.ceilings)
        if !ceilings.isEmpty { out += [""] + wrap(ceilings) }
        out += systemLine(r.settings.platformRules).map { [""] + wrap([$0]) } ?? []
        out += assumedContextNote(r.settings).map { wrap([$0]) } ?? []
        out += assumedCostNote(r.settings).map { wrap([$0]) } ?? []
        return (out + wrap(skipLines(r, wide: wide))).joined(separator: "\n")
    }

    /// The three lines under the default table: what fresh@τ, share and the bound are.
    public static func key(_ r: ComparisonReport) -> [String] {
        let tau = minutes(r.settings.tau.inMinutes)
        return [
            "fresh@\(tau): the share of launches that found their app's content at most \(tau) old "
                + "[95 % interval \(r.budget?.intervalOver == .days ? "over days" : "over users")].",
            "share: the share of the possible gain, (fresh − fixed interval) / (bound − fixed interval), "
                + "at the same cost.",
            "bound: the clairvoyant bound, the freshest a policy could be at the same fetches/app/day if it knew "
                + "each launch.",
        ]
    }

    /// The default table's column titles: rank, policy, scope, fresh@τ with its 95 % interval,
    /// fetches/app/day, energy, the gain over fixed intervals and the share of the possible gain.
    static func narrowColumns(_ r: ComparisonReport) -> [String] {
        [
            "#", "policy", "scope", "fresh@\(minutes(r.settings.tau.inMinutes)) [95% CI]", "fetches/app/day",
            costColumns(r.settings)[0],
            "vs fixed", "share",
        ]
    }

    /// The default table, titles first: `rows(_:sort:bandLines:)`'s cells cut to
    /// `narrowColumns(_:)`, a policy name longer than the width leaves cut with `…`.
    static func narrowTable(_ r: ComparisonReport, sort: CompareSort) -> [[String]] {
        let taus = r.settings.taus.map(\.inMinutes)
        let primary = r.primaryTauIndex
        let (ci, fetches, energy) = (3 + taus.count, 5 + taus.count, 7 + taus.count)
        var table = [narrowColumns(r)]
        for cells in rows(r, sort: sort) {
            guard cells.count > 1 else {
                table.append(cells)
                continue
            }
            let interval = cells[ci] == "–" ? "" : " [\(cells[ci])]"
            table.append(
                [cells[0], cells[1], cells[2], cells[3 + primary] + interval, cells[fetches], cells[energy]]
                    + cells.suffix(2))
        }
        // The policy column gets what the others leave of the width.
        let others = table[0].indices.filter { $0 != 1 }.map { i in
            table.filter { $0.count > 1 }.map { $0[i].count }.max() ?? 0
        }
        let room = max(12, TextFormat.terminalWidth - others.reduce(0, +) - 2 * (table[0].count - 1))
        return table.map { cells in
            guard cells.count > 1 else { return [TextFormat.truncate(cells[0], TextFormat.terminalWidth)] }
            var cut = cells
            cut[1] = TextFormat.truncate(cells[1], room)
            return cut
        }
    }

    /// The headline at the headline budget, for its two audiences: the best single app-scope
    /// setting (what an app team can ship) with one line per platform it was replayed on, and the
    /// best single setting of any scope (what a system scheduler could do), each with that
    /// setting's own figures; or, when no app-scope setting beats the baseline by more than its
    /// interval, that said plainly with the biggest lever that does (nil without budget figures).
    public static func headline(_ r: ComparisonReport) -> String? {
        headlineLines(r).map { $0.joined(separator: "\n") }
    }

    /// ``headline(_:)`` line by line.
    public static func headlineLines(_ r: ComparisonReport) -> [String]? {
        guard let point = r.headlinePoint, let h = r.effectiveHeadline else { return nil }
        let tau = "fresh@\(minutes(r.settings.tau.inMinutes))"
        var out = [
            "At \(budgetText(point.budget)) fetches/app/day (\(tau); fixed-interval baseline \(pct(point.fixed)), "
                + "clairvoyant bound \(pct(point.bound)), never \(pct(point.never))):"
        ]
        if let app = h.app {
            out.append("  For an app team: \(setting(app, scope: daysScope(r)))")
            for line in h.platforms {
                let name = line.platform == .ios ? "iOS" : "Android"
                out.append(
                    "    on \(name): \(line.setting) (replayed as \(line.policy)): \(pct(line.fresh))"
                        + "\(interval(line.freshInterval, scope: daysScope(r))), \(points(line.gainVsFixed))\(interval(line.gainInterval, points: true)), "
                        + String(format: "%.2f fetches/app/day", line.fetchesPerAppDay)
                        + (line.refused > 0 ? ", \(TextFormat.count(line.refused)) requests refused" : ""))
            }
            if !app.beatsBaseline {
                out.append(
                    "    No app-scope setting at this budget beats the baseline by more than its interval"
                        + (h.lever.map { "; the biggest lever that does: \($0)." } ?? ", and nothing in this run does.")
                )
            }
        } else {
            out.append("  For an app team: no app-scope setting at or under this budget in the run.")
        }
        if let os = h.os {
            out.append(
                "  For a system scheduler: \(setting(os, scope: daysScope(r)))"
                    + (os.scope == .os ? " — OS scope: reads other apps' launches or device signals" : ""))
        }
        return out
    }

    /// A setting's own figures: "learned-app(2): 32.4% [28.7–38.6 %], +1.5 points [−0.3, +2.3] over
    /// the baseline, 1.92 fetches/app/day".
    static func setting(_ s: HeadlineSetting, scope: String? = nil) -> String {
        "\(s.policy): \(pct(s.fresh))\(interval(s.freshInterval, scope: scope)), \(points(s.gainVsFixed))"
            + "\(interval(s.gainInterval, points: true)) over the baseline, "
            + String(format: "%.2f fetches/app/day", s.fetchesPerAppDay)
    }

    /// Freshness at each budget: the bound, each family's front, fixed intervals, never; a family's
    /// share of the possible gain in brackets.
    static func budgetTable(_ r: ComparisonReport) -> [String] {
        guard !r.budgetCurve.isEmpty else { return [] }
        let curve = r.budgetCurve
        let families = Array(Set(curve.flatMap { $0.families.keys })).sorted()
        var table = [["fresh@\(minutes(r.settings.tau.inMinutes)) at a budget"] + curve.map { budgetText($0.budget) }]
        table.append(["clairvoyant bound"] + curve.map { pct($0.bound) })
        for f in families {
            table.append(
                [f]
                    + curve.map { p in
                        guard let v = p.families[f] else { return "–" }
                        return pct(v.fresh) + (v.shareOfPossible.map { String(format: " (%.2f)", $0) } ?? "")
                    })
        }
        table.append(["fixed interval"] + curve.map { pct($0.fixed) })
        table.append(["never"] + curve.map { pct($0.never) })
        let widths = table[0].indices.map { i in table.map { $0[i].count }.max() ?? 0 }
        let lines = table.map { cells in
            cells.enumerated().map { i, c in TextFormat.pad(c, widths[i], right: i != 0) }.joined(separator: "  ")
        }
        let b = r.budget
        let note =
            "(fetches/app/day averaged over pairs; a family's best setting at or under each budget, mixed with never "
            + "across apps below its cheapest; in brackets its share of the possible gain, (family − fixed) / "
            + "(bound − fixed), where the bound is ≥ 2 points above fixed"
            + (b.map {
                $0.resamples > 0
                    ? "; 95 % intervals in --format json, bootstrap \(r.intervalScope), \(TextFormat.count($0.resamples)) resamples, "
                        + "seed \($0.seed))"
                    : ")"
            } ?? ")")
        let platform =
            r.settings.platform == .none
            ? ""
            : "The bound and the fixed-interval baseline are the protocol's (every fetch asked for happens): "
                + "the \(r.settings.platform.rawValue) platform model applies to the policies only."
        return lines + [note] + (platform.isEmpty ? [] : [platform])
    }

    static func budgetText(_ b: Double) -> String {
        b == b.rounded() ? "\(Int(b))" : TextFormat.decimal(b)
    }

    static func pct(_ x: Double) -> String { String(format: "%.1f%%", x * 100) }

    static func points(_ x: Double) -> String { String(format: "%+.1f points", x * 100) }

    /// ` [low–high %]` (or in points), with `scope` inside the brackets when given.
    static func interval(_ i: ConfidenceInterval?, points: Bool = false, scope: String? = nil) -> String {
        guard let i else { return "" }
        let range =
            points
            ? String(format: "%+.1f, %+.1f", i.low * 100, i.high * 100)
            : String(format: "%.1f–%.1f %%", i.low * 100, i.high * 100)
        return " [" + range + (scope.map { " " + $0 } ?? "") + "]"
    }

    /// What the intervals are over when that is not the users (nil: over users, as everywhere unless said).
    static func daysScope(_ r: ComparisonReport) -> String? {
        r.budget?.intervalOver == .days ? r.intervalScope : nil
    }

    /// What the replay assumed about devices: the defaults, and how many users had no samples.
    public static func context(_ r: ComparisonReport) -> String {
        let s = r.settings
        let d = s.contextDefaults
        let defaults =
            "battery \(Int(d.battery)) %, \(d.network == .wifi ? "Wi-Fi" : d.network.name), "
            + "\(d.charging ? "charging" : "not charging"), Low Power Mode \(d.lowPower ? "on" : "off")"
        let without =
            s.usersWithoutContext == 0
            ? "every user has context samples"
            : "\(TextFormat.counted(s.usersWithoutContext, "user")) without context samples "
                + "(\(PredictionRenderer.assumedContext(d)) for them)"
        let hold = Quantity.format(duration: d.hold)
        return "context: \(without); without a sample (or one older than \(hold)): \(defaults); "
            + "cost: \(Quantity.format(duration: s.cost.fetchDuration)) and "
            + "\(TextFormat.bytes(s.cost.fetchBytes)) a fetch, battery \(TextFormat.decimal(s.cost.batteryWattHours)) Wh"
    }

    /// One line per policy with refused or expired fetches: the counts by reason.
    static func skipLines(_ r: ComparisonReport, wide: Bool = true) -> [String] {
        let with = ranked(r.policies, by: .given).filter { $0.metrics.skipped > 0 }
        guard !with.isEmpty else { return [] }
        return ["", "skipped fetches by reason:"]
            + with.map { p in
                "  \(wide ? p.name : TextFormat.truncate(p.name, TextFormat.terminalWidth / 2)): "
                    + p.metrics.skips.sorted { $0.key < $1.key }.map { "\($0.key.label) \(TextFormat.count($0.value))" }
                    .joined(separator: ", ")
            }
    }

    /// The line above the table: the protocol and the population.
    public static func summary(_ r: ComparisonReport) -> String {
        let s = r.settings
        var span = "warm-up \(s.warmUpDays) d"
        if let a = s.firstScoredDay, let b = s.lastScoredDay { span += ", scored \(a) to \(b)" }
        return "τ = \(minutes(s.tau.inMinutes)), launch refreshes \(s.launchRefreshes ? "on" : "off"), \(span); "
            + "\(TextFormat.counted(s.users, "user"))\(s.shard.map { " (shard \($0))" } ?? ""), \(TextFormat.counted(s.pairs, "pair")) "
            + "(apps with ≥ \(s.minLaunches) launches), \(TextFormat.counted(s.scoredLaunches, "scored launch", plural: "scored launches")); "
            + "platform \(s.platform.rawValue)"
    }

    /// The table's column titles: rank, policy, its scope (who can run it: app, OS, clairvoyant), fresh@τ per τ, the primary one's 95 % interval,
    /// median staleness, fetches/app/day, wasted share, energy, battery, cellular data, skipped
    /// fetches, the gain over fixed intervals and the share of the possible gain.
    static func columns(_ r: ComparisonReport) -> [String] {
        ["#", "policy", "scope"] + r.settings.taus.map(\.inMinutes).map { "fresh@\(minutes($0))" }
            + [
                r.budget?.intervalColumn ?? "95% CI", "stale p50", "fetches/app/day", "wasted",
            ] + costColumns(r.settings) + [
                "skipped", "vs fixed", "share",
            ]
    }

    /// The table's cells, policies ranked (clairvoyant ones unranked, after); with `.band`, a
    /// one-cell line before each budget band.
    static func rows(_ r: ComparisonReport, sort: CompareSort = .band, bandLines: Bool = true) -> [[String]] {
        let budgets = r.budget?.budgets ?? BudgetSettings.standardBudgets
        var out: [[String]] = []
        var lastBand: Int? = nil
        for (rank, p) in ranked(r.policies, by: sort, budgets: budgets, tau: r.settings.tau)
            .enumerated()
        {
            let clairvoyant = p.isClairvoyant
            if sort == .band, bandLines {
                let band = clairvoyant ? budgets.count + 1 : Self.band(p.metrics.fetchesPerAppDay, budgets)
                if band != lastBand {
                    lastBand = band
                    out.append([bandTitle(band, budgets)])
                }
            }
            let m = p.metrics
            var cells: [String] = [clairvoyant ? "" : "\(rank + 1)", p.name, p.scope.label]
            cells += m.fresh.map { String(format: "%.1f%%", $0 * 100) }
            let ci: String = m.freshInterval.map { String(format: "%.1f–%.1f", $0.low * 100, $0.high * 100) } ?? "–"
            let stale: String = m.stalenessMedianMinutes.map { minutes($0) } ?? "never"
            cells += [
                ci, stale, String(format: "%.2f", m.fetchesPerAppDay), String(format: "%.0f%%", m.wastedShare * 100),
            ]
            cells += [
                String(format: "%.1f", m.energyJoulesPerDay), String(format: "%.2f%%", m.batteryPercentPerDay),
                String(format: "%.2f", m.cellularMBPerDay), TextFormat.count(m.skipped),
            ]
            let gain: String = m.gainVsFixed.map { String(format: "%+.1f", abs($0) < 0.0005 ? 0 : $0 * 100) } ?? "–"
            let share: String = m.shareOfPossible.map { String(format: "%.2f", abs($0) < 0.005 ? 0 : $0) } ?? "–"
            out.append(cells + [gain, share])
        }
        return out
    }

    /// The band of a policy spending `x`: the index of the first budget it stays within.
    static func band(_ x: Double, _ budgets: [Double]) -> Int {
        budgets.firstIndex { x <= $0 + 1e-9 } ?? budgets.count
    }

    static func bandTitle(_ band: Int, _ budgets: [Double]) -> String {
        if band > budgets.count { return "clairvoyant (they know the future; not ranked):" }
        if band == budgets.count { return "above \(budgetText(budgets.last ?? 0)) fetches/app/day:" }
        let low = band == 0 ? "" : "over \(budgetText(budgets[band - 1])), "
        return "\(low)up to \(budgetText(budgets[band])) fetches/app/day:"
    }

    /// The causal policies sorted (ties in the given order), then the clairvoyant ones as given.
    public static func ranked(
        _ policies: [PolicyResult], by sort: CompareSort = .band, budgets: [Double] = BudgetSettings.standardBudgets,
        tau: Microseconds = 15 * .perMinute
    ) -> [PolicyResult] {
        let causal = policies.enumerated().filter { !$0.element.isClairvoyant }
        func fresh(_ p: PolicyResult) -> Double { p.metrics.fresh(tau: tau) ?? 0 }
        let sorted = causal.sorted { a, b in
            let (x, y) = (a.element.metrics, b.element.metrics)
            func by(_ u: Double, _ v: Double, descending: Bool) -> Bool? {
                u == v ? nil : (descending ? u > v : u < v)
            }
            let decided: Bool?
            switch sort {
            case .band:
                let (bx, by2) = (band(x.fetchesPerAppDay, budgets), band(y.fetchesPerAppDay, budgets))
                decided = bx != by2 ? bx < by2 : by(fresh(a.element), fresh(b.element), descending: true)
            case .fresh: decided = by(fresh(a.element), fresh(b.element), descending: true)
            case .share:
                decided = by(x.shareOfPossible ?? -.infinity, y.shareOfPossible ?? -.infinity, descending: true)
            case .fetches: decided = by(x.fetchesPerAppDay, y.fetchesPerAppDay, descending: false)
            case .energy: decided = by(x.energyJoulesPerDay, y.energyJoulesPerDay, descending: false)
            case .given: decided = nil
            }
            return decided ?? (a.offset < b.offset)
        }
        return sorted.map(\.element) + policies.filter(\.isClairvoyant)
    }

    static func minutes(_ m: Double) -> String {
        m == m.rounded() ? "\(Int(m)) min" : String(format: "%.1f min", m)
    }
}
