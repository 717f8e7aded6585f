import FetchLabSimulation

extension CompareRenderer {
    /// `compare --format markdown`: the summary line, then a GitHub table with the text table's
    /// columns (numbers right-aligned).
    public static func markdown(_ r: ComparisonReport) -> String {
        let columns = columns(r)
        func line(_ cells: [String]) -> String { "| " + cells.map(cell).joined(separator: " | ") + " |" }
        let alignment = "|" + columns.indices.map { $0 == 1 ? " --- |" : " ---: |" }.joined()
        let system = systemLine(r.settings.platformRules).map { ["", cell($0)] } ?? []
        return ([cell(summary(r)), "", line(columns), alignment] + rows(r).map(line) + system)
            .joined(separator: "\n")
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
