import FetchLabCore
import FetchLabReport
import FetchLabResults
import FetchLabSimulation
import Foundation
import Testing

/// `compare`'s text output keeps to 120 columns by default: the main columns only, long policy
/// names cut, the prose around the table wrapped, a key under it; `wide` shows every column.
@Suite struct TerminalTableTests {
    /// CompareRendererTests' report with a policy name far longer than a terminal, many skips and
    /// users without context samples under iOS (the long lines around the table).
    static func report() -> ComparisonReport {
        var r = CompareRendererTests.report()
        r.policies[1].name =
            "per-app(" + String(repeating: "com.example.app=predictive(15m,0.3);", count: 6) + "*=never)"
        r.policies[1].metrics.skips = [.systemBudget: 1_266]
        r.settings.platform = .ios
        r.settings.platformRules = PlatformModel(kind: .ios)
        r.settings.usersWithoutContext = 1_266
        r.settings.users = 2_000
        return r
    }

    static func width(_ text: String) -> Int { text.split(separator: "\n").map(\.count).max() ?? 0 }

    @Test func theDefaultTableKeepsTo120ColumnsWithTheMainColumnsAndAKey() throws {
        let text = CompareRenderer.text(Self.report())
        #expect(Self.width(text) <= 120, "\(text)")
        let lines = text.split(separator: "\n").map(String.init)
        let head = try #require(lines.firstIndex { $0.trimmingCharacters(in: .whitespaces).hasPrefix("#  policy") })
        #expect(
            lines[head].split(separator: "  ").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                == ["#", "policy", "scope", "fresh@15 min [95% CI]", "fetches/app/day", "J/day*", "vs fixed", "share"])
        // The long name is cut, with a mark that it was.
        #expect(lines.contains { $0.contains("per-app(com.example.app") && $0.contains("…") })
        // The key: three lines after the table.
        let key = try #require(lines.firstIndex { $0.hasPrefix("fresh@15 min: the share of launches") })
        #expect(lines[key + 1].hasPrefix("share: the share of the possible gain"))
        #expect(lines[key + 2].hasPrefix("bound: the clairvoyant bound"))
        for column in ["stale p50", "wasted", "battery/day", "cell MB/day", "fresh@5 min", "fresh@60 min"] {
            #expect(!lines[head].contains(column), "\(column)")
        }
        // The prose around the table is wrapped, not cut: the skips and the note on context are whole.
        #expect(text.contains("daily wake budget 1,266"))
        #expect(text.contains("for 1,266 of 2,000 users"), "\(text)")
    }

    @Test func wideShowsEveryColumnAndTheWholeName() throws {
        let r = Self.report()
        let text = CompareRenderer.text(r, wide: true)
        let lines = text.split(separator: "\n").map(String.init)
        let head = try #require(lines.first { $0.trimmingCharacters(in: .whitespaces).hasPrefix("#  policy") })
        for column in [
            "fresh@5 min", "fresh@15 min", "fresh@60 min", "95% CI", "stale p50", "wasted", "battery/day",
            "cell MB/day", "skipped", "vs fixed", "share",
        ] {
            #expect(head.contains(column), "\(column)")
        }
        #expect(text.contains(r.policies[1].name))
        #expect(!text.contains("fresh@15 min: the share of launches"))
        // Counts grouped as everywhere else: the skipped column says 1,266 as the skips line does.
        #expect(lines.contains { $0.contains(r.policies[1].name) && $0.contains(" 1,266 ") })
    }

    /// The sample's names fit whole: only a name longer than what the other columns leave is cut.
    @Test func namesThatFitAreNotCut() {
        let text = CompareRenderer.text(CompareRendererTests.report())
        #expect(text.contains(#"odd, "quoted" | name"#))
        #expect(!text.contains("…"))
    }

    @Test func wrapBreaksAtSpacesAndIndentsTheRest() {
        let line = "  " + Array(repeating: "word", count: 40).joined(separator: " ")
        let wrapped = TextFormat.wrap(line, width: 30)
        #expect(wrapped.allSatisfy { $0.count <= 30 })
        #expect(wrapped[0].hasPrefix("  word") && wrapped.dropFirst().allSatisfy { $0.hasPrefix("    word") })
        #expect(wrapped.joined(separator: " ").split(separator: " ") == line.split(separator: " "))
        #expect(TextFormat.wrap("short") == ["short"])
        // A word longer than the width stays whole.
        let path = "/" + String(repeating: "p", count: 50)
        #expect(TextFormat.wrap("at \(path) here", width: 20) == ["at", "  \(path)", "  here"])
        #expect(TextFormat.truncate("abcdef", 4) == "abc…" && TextFormat.truncate("abc", 4) == "abc")
    }
}
