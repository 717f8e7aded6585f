import FetchLabResults

extension CompareRenderer {
    /// The per-signal ceilings as a short table: per signal set, its fresh rate at each budget and
    /// with no budget; a set whose signals the logs do not hold says so instead of repeating the
    /// row above. Empty without ceilings.
    static func ceilingsTable(_ c: SignalCeilings?) -> [String] {
        guard let c, !c.sets.isEmpty else { return [] }
        let head =
            ["ceiling, fresh@\(minutes(c.tau.inMinutes)), fetching only at"] + c.budgets.map(budgetText) + ["unlimited"]
        var table = [head]
        for s in c.sets {
            table.append(
                s.signalsPresent
                    ? [s.set.label] + s.fresh.map(pct) + [pct(s.unlimited)]
                    : [s.set.label, "none in these logs (as the row above)"])
        }
        let widths = head.indices.map { i in table.filter { $0.count == head.count }.map { $0[i].count }.max() ?? 0 }
        let lines = table.map { cells in
            cells.count == head.count
                ? cells.enumerated().map { i, c in TextFormat.pad(c, widths[i], right: i != 0) }.joined(separator: "  ")
                : TextFormat.pad(cells[0], widths[0]) + "  " + cells[1...].joined(separator: "  ")
        }
        let note =
            "(the clairvoyant bound restricted to these moments, each set adding to the one above: what a scheduler "
            + "that acts only on them could reach at most; over all scored launches, launch refreshes "
            + (c.launchRefreshes ? "on)" : "off)")
        return lines + [note]
    }
}
