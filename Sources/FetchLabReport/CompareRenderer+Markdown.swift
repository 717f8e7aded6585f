import FetchLabResults

extension CompareRenderer {
    /// `compare --format markdown`: the summary line, then a GitHub table with the text table's
    /// columns (numbers right-aligned).
    public static func markdown(_ r: ComparisonReport, sort: CompareSort = .band) -> String {
        let columns = columns(r)
        func line(_ cells: [String]) -> String { "| " + cells.map(cell).joined(separator: " | ") + " |" }
        let alignment = "|" + columns.map { ["policy", "scope"].contains($0) ? " --- |" : " ---: |" }.joined()
        var out = [cell(summary(r))]
        if let h = headline(r) { out += ["", cell(h)] }
        out += ["", line(columns), alignment] + rows(r, sort: sort, bandLines: false).map(line)
        let budget = budgetTable(r)
        if budget.count > 1 {
            let curve = r.budgetCurve
            let families = Array(Set(curve.flatMap { $0.families.keys })).sorted()
            out += [
                "", line(["fresh@\(minutes(r.settings.tau.inMinutes)) at a budget"] + curve.map { budgetText($0.budget) }),
            ]
            out.append("| --- |" + String(repeating: " ---: |", count: curve.count))
            out.append(line(["clairvoyant bound"] + curve.map { pct($0.bound) }))
            for f in families {
                out.append(
                    line(
                        [f]
                            + curve.map { p in
                                p.families[f].map {
                                    pct($0.fresh) + ($0.shareOfPossible.map { String(format: " (%.2f)", $0) } ?? "")
                                } ?? "–"
                            }))
            }
            out.append(line(["fixed interval"] + curve.map { pct($0.fixed) }))
            out.append(line(["never"] + curve.map { pct($0.never) }))
        }
        out += systemLine(r.settings.platformRules).map { ["", cell($0)] } ?? []
        out += assumedContextNote(r.settings).map { ["", cell($0)] } ?? []
        out += assumedCostNote(r.settings).map { ["", cell($0)] } ?? []
        return out.joined(separator: "\n")
    }

    /// Text safe in a Markdown table cell: one line, `|` and the characters Markdown would read
    /// as emphasis, code or links escaped.
    static func cell(_ text: String) -> String {
        var out = ""
        for c in TextFormat.escaped(text) {
            if "|\\*_`[]<>".contains(c) { out.append("\\") }
            out.append(c)
        }
        return out
    }
}
