import FetchLabCore
import FetchLabSimulation
import Foundation

/// `compare`'s output: a header line with the protocol and the population, then the policies
/// ranked by gap closed (those without one — never and the clairvoyant oracles — after, in their
/// given order).
public enum CompareRenderer {
    public static func text(_ r: ComparisonReport) -> String {
        let s = r.settings
        let pad = TextFormat.pad
        var lines: [String] = []
        var span = "warm-up \(s.warmUpDays) d"
        if let a = s.firstScoredDay, let b = s.lastScoredDay { span += ", scored \(a) to \(b)" }
        lines.append(
            "τ = \(minutes(s.tauMinutes)), launch refreshes \(s.launchRefreshes ? "on" : "off"), \(span); "
                + "\(TextFormat.counted(s.users, "user")), \(TextFormat.counted(s.pairs, "pair")) "
                + "(apps with ≥ \(s.minLaunches) launches), \(TextFormat.counted(s.scoredLaunches, "scored launch", plural: "scored launches")); "
                + "platform \(s.platform)")
        lines.append("")
        var header = [pad("#", 3, true), pad("policy", 20, false)]
        header += s.tausMinutes.map { pad("fresh@\(minutes($0))", 10, true) }
        header += [pad("fetches/app/day", 16, true), pad("gap closed", 11, true)]
        lines.append(header.joined(separator: " "))
        for (rank, p) in ranked(r.policies).enumerated() {
            var cells = [pad(p.metrics.gapClosed == nil ? "" : "\(rank + 1)", 3, true), pad(p.name, 20, false)]
            cells += p.metrics.fresh.map { pad(String(format: "%.1f%%", $0 * 100), 10, true) }
            cells.append(pad(String(format: "%.2f", p.metrics.fetchesPerAppDay), 16, true))
            cells.append(pad(p.metrics.gapClosed.map { String(format: "%.2f", $0) } ?? "–", 11, true))
            lines.append(cells.joined(separator: " "))
        }
        return lines.joined(separator: "\n")
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
