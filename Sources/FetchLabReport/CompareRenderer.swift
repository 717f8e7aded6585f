import FetchLabCore
import FetchLabSimulation
import Foundation

/// `compare`'s output: a header line with the protocol and the population, then the policies
/// ranked by gap closed (those without one — never and the clairvoyant oracles — after, in their
/// given order).
public enum CompareRenderer {
    public static func text(_ r: ComparisonReport) -> String {
        let lines = ([columns(r)] + rows(r)).map { cells in
            cells.enumerated().map { i, cell in
                let width = [0: 3, 1: 20, cells.count - 2: 16, cells.count - 1: 11][i] ?? 10
                return TextFormat.pad(cell, width, right: i != 1)
            }.joined(separator: " ")
        }
        return ([summary(r), ""] + lines).joined(separator: "\n")
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

    /// The table's column titles: rank, policy, fresh@τ per τ, fetches/app/day, gap closed.
    static func columns(_ r: ComparisonReport) -> [String] {
        ["#", "policy"] + r.settings.tausMinutes.map { "fresh@\(minutes($0))" } + ["fetches/app/day", "gap closed"]
    }

    /// The table's cells, policies ranked (a rank only for those with a gap closed).
    static func rows(_ r: ComparisonReport) -> [[String]] {
        ranked(r.policies).enumerated().map { rank, p in
            [p.metrics.gapClosed == nil ? "" : "\(rank + 1)", p.name]
                + p.metrics.fresh.map { String(format: "%.1f%%", $0 * 100) }
                + [
                    String(format: "%.2f", p.metrics.fetchesPerAppDay),
                    p.metrics.gapClosed.map { String(format: "%.2f", $0) } ?? "–",
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
