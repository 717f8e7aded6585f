import FetchLabResults

extension TuningRenderer {
    /// `tune --format markdown`: what the table shows, each table a GitHub table (numbers
    /// right-aligned), each line a paragraph, the platform settings a list with fenced snippets.
    public static func markdown(_ r: TuningResult, platform: [PlatformOutcome]) -> String {
        var parts: [String] = []
        for block in blocks(r, platform: platform) {
            switch block {
            case .line(let s) where s.isEmpty: continue
            case .line(let s): parts.append(CompareRenderer.cell(s))
            case .table(let header, let rows):
                func line(_ cells: [String]) -> String {
                    "| " + cells.map(CompareRenderer.cell).joined(separator: " | ") + " |"
                }
                let alignment =
                    "|"
                    + header.indices.map { $0 == 1 || ($0 == 0 && header[0] != "rank") ? " --- |" : " ---: |" }.joined()
                parts.append(([line(header), alignment] + rows.map(line)).joined(separator: "\n"))
            case .item(let s):
                parts.append("- " + CompareRenderer.cell(s))
            case .code(let lines, let platform):
                let code = platform == .android ? "kotlin" : "swift"
                // A fence longer than any run of backticks in the snippet.
                let longest = lines.map(longestBacktickRun).max() ?? 0
                let fence = String(repeating: "`", count: max(3, longest + 1))
                parts.append((["  " + fence + code] + lines.map { "  " + $0 } + ["  " + fence]).joined(separator: "\n"))
            case .note(let s): parts.append("  (" + CompareRenderer.cell(s) + ")")
            }
        }
        return parts.joined(separator: "\n\n")
    }

    static func longestBacktickRun(_ s: String) -> Int {
        var best = 0
        var run = 0
        for c in s {
            run = c == "`" ? run + 1 : 0
            best = max(best, run)
        }
        return best
    }
}
