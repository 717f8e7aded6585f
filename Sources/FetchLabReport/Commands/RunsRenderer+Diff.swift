import FetchLabResults
import Foundation

extension RunsRenderer {
    /// `fetchlab runs diff A B` as text: one row per policy in both runs (A, B and B − A of fresh@τ,
    /// fetches per app per day and energy), each difference's interval or why there is none, then
    /// the policies of one run only.
    public static func diff(_ d: RunDiff) -> String {
        let pad = TextFormat.pad
        func minutes(_ m: Double) -> String { m == m.rounded() ? "\(Int(m)) min" : String(format: "%.1f min", m) }
        let tau =
            d.tauA == d.tauB
            ? "fresh@\(minutes(d.tauA.inMinutes))"
            : "fresh@τ (\(minutes(d.tauA.inMinutes)) vs \(minutes(d.tauB.inMinutes)))"
        let names = d.policies.map { TextFormat.escaped($0.name) }
        let width = max(8, names.map(\.count).max() ?? 0)
        func pct(_ x: Double) -> String { String(format: "%.1f %%", x * 100) }
        func pts(_ x: Double) -> String { String(format: "%+.1f", x * 100) }
        func num(_ x: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", x) }
        func signed(_ x: Double, _ digits: Int) -> String { String(format: "%+.\(digits)f", x) }
        var lines = [
            "run \(d.runB) (B) against run \(d.runA) (A), B − A; \(tau) in %, its difference in points"
                + (d.intervalNote == nil ? "; 95 % intervals over users" : ""),
            [
                pad("policy", width, false), pad("fresh A", 8, true), pad("fresh B", 8, true),
                pad("B − A", 6, true), pad(d.intervalNote == nil ? "95 % interval" : "", 16, false),
                pad("fetches/app/day A", 17, true), pad("B", 6, true), pad("B − A", 6, true),
                pad(d.intervalNote == nil ? "95 % interval" : "", 16, false),
                pad("energy J/day A", 14, true), pad("B", 7, true), pad("B − A", 7, true),
                d.intervalNote == nil ? "95 % interval" : "",
            ].joined(separator: "  ").trimmingSpacesAtEnd,
        ]
        for (row, name) in zip(d.policies, names) {
            let interval = row.freshDifferenceInterval.map { "[\(pts($0.low)), \(pts($0.high))]" } ?? ""
            let between = { (i: ConfidenceInterval?, digits: Int) in
                i.map { "[\(signed($0.low, digits)), \(signed($0.high, digits))]" } ?? ""
            }
            lines.append(
                [
                    pad(name, width, false), pad(pct(row.a.fresh), 8, true), pad(pct(row.b.fresh), 8, true),
                    pad(pts(row.difference.fresh), 6, true), pad(interval, 16, false),
                    pad(num(row.a.fetchesPerAppDay, 2), 17, true), pad(num(row.b.fetchesPerAppDay, 2), 6, true),
                    pad(signed(row.difference.fetchesPerAppDay, 2), 6, true),
                    pad(between(row.fetchesDifferenceInterval, 2), 16, false),
                    pad(num(row.a.energyJoulesPerDay, 1), 14, true), pad(num(row.b.energyJoulesPerDay, 1), 7, true),
                    pad(signed(row.difference.energyJoulesPerDay, 1), 7, true),
                    between(row.energyDifferenceInterval, 1),
                ].joined(separator: "  ").trimmingSpacesAtEnd)
        }
        if d.policies.isEmpty { lines.append("no policy is in both runs") }
        if let note = d.intervalNote { lines.append(note) }
        if !d.onlyInA.isEmpty {
            lines.append("only in run \(d.runA): " + d.onlyInA.map(TextFormat.escaped).joined(separator: ", "))
        }
        if !d.onlyInB.isEmpty {
            lines.append("only in run \(d.runB): " + d.onlyInB.map(TextFormat.escaped).joined(separator: ", "))
        }
        return lines.joined(separator: "\n")
    }
}

extension String {
    /// The text without the spaces a last empty column leaves at the end of a row.
    fileprivate var trimmingSpacesAtEnd: String {
        var s = Substring(self)
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}
