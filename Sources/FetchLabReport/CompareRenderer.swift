import FetchLabCore
import FetchLabSimulation
import Foundation

/// `compare`'s output: a header line with the protocol and the population, then the policies
/// ranked by gap closed (those without one — never and the clairvoyant oracles — after, in their
/// given order).
public enum CompareRenderer {
    public static func text(_ r: ComparisonReport) -> String {
        let table = [columns(r)] + rows(r)
        let widths = table[0].indices.map { i in table.map { $0[i].count }.max() ?? 0 }
        let lines = table.map { cells in
            cells.enumerated().map { i, cell in TextFormat.pad(cell, widths[i], right: i != 1) }.joined(separator: "  ")
        }
        let system = systemLine(r.settings.platformRules).map { ["", $0] } ?? []
        return ([summary(r), context(r), ""] + lines + system + skipLines(r)).joined(separator: "\n")
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
            : "\(TextFormat.counted(s.usersWithoutContext, "user")) without context samples"
        let hold = Quantity.format(duration: d.hold)
        return "context: \(without); without a sample (or one older than \(hold)): \(defaults); "
            + "cost: \(Quantity.format(duration: s.cost.fetchDuration)) and "
            + "\(TextFormat.bytes(s.cost.fetchBytes)) a fetch, battery \(TextFormat.decimal(s.cost.batteryWattHours)) Wh"
    }

    /// One line per policy with refused or expired fetches: the counts by reason.
    static func skipLines(_ r: ComparisonReport) -> [String] {
        let with = ranked(r.policies).filter { $0.metrics.skipped > 0 }
        guard !with.isEmpty else { return [] }
        return ["", "skipped fetches by reason:"]
            + with.map { p in
                "  \(p.name): "
                    + p.metrics.skips.sorted { $0.key < $1.key }.map { "\($0.key.label) \(TextFormat.count($0.value))" }
                    .joined(separator: ", ")
            }
    }

    /// The line above the table: the protocol and the population.
    public static func summary(_ r: ComparisonReport) -> String {
        let s = r.settings
        var span = "warm-up \(s.warmUpDays) d"
        if let a = s.firstScoredDay, let b = s.lastScoredDay { span += ", scored \(a) to \(b)" }
        return "τ = \(minutes(s.tauMinutes)), launch refreshes \(s.launchRefreshes ? "on" : "off"), \(span); "
            + "\(TextFormat.counted(s.users, "user")), \(TextFormat.counted(s.pairs, "pair")) "
            + "(apps with ≥ \(s.minLaunches) launches), \(TextFormat.counted(s.scoredLaunches, "scored launch", plural: "scored launches")); "
            + "platform \(s.platform)"
    }

    /// The table's column titles: rank, policy, fresh@τ per τ, median staleness, fetches/app/day,
    /// wasted share, energy, battery, cellular data, skipped fetches, gap closed.
    static func columns(_ r: ComparisonReport) -> [String] {
        ["#", "policy"] + r.settings.tausMinutes.map { "fresh@\(minutes($0))" }
            + ["stale p50", "fetches/app/day", "wasted", "J/day", "battery/day", "cell MB/day", "skipped", "gap closed"]
    }

    /// The table's cells, policies ranked (a rank only for those with a gap closed).
    static func rows(_ r: ComparisonReport) -> [[String]] {
        ranked(r.policies).enumerated().map { rank, p in
            [p.metrics.gapClosed == nil ? "" : "\(rank + 1)", p.name]
                + p.metrics.fresh.map { String(format: "%.1f%%", $0 * 100) }
                + [
                    p.metrics.stalenessMedianMinutes.map { minutes($0) } ?? "never",
                    String(format: "%.2f", p.metrics.fetchesPerAppDay),
                    String(format: "%.0f%%", p.metrics.wastedShare * 100),
                    String(format: "%.1f", p.metrics.energyJoulesPerDay),
                    String(format: "%.2f%%", p.metrics.batteryPercentPerDay),
                    String(format: "%.2f", p.metrics.cellularMBPerDay),
                    "\(p.metrics.skipped)",
                    p.metrics.gapClosed.map { String(format: "%.2f", abs($0) < 0.005 ? 0 : $0) } ?? "–",
                ]
        }
    }

    /// Policies with a gap closed first, highest first (ties in the given order), then the others
    /// in the given order.
    public static func ranked(_ policies: [PolicyResult]) -> [PolicyResult] {
        let with = policies.enumerated().filter { $0.element.metrics.gapClosed != nil }
            .sorted { a, b in
                let x = a.element.metrics.gapClosed!
                let y = b.element.metrics.gapClosed!
                return x != y ? x > y : a.offset < b.offset
            }.map(\.element)
        return with + policies.filter { $0.metrics.gapClosed == nil }
    }

    static func minutes(_ m: Double) -> String {
        m == m.rounded() ? "\(Int(m)) min" : String(format: "%.1f min", m)
    }
}
