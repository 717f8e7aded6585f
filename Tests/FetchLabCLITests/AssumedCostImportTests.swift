import Foundation
import Testing
import _FetchLabTestSupport

/// Issue 46: the cost columns (J/day, battery/day, cell MB/day) are marked "*" with a footnote
/// when some users' context is assumed, in the text table and the HTML report; unmarked when every
/// user's context was observed.
@Suite struct AssumedCostImportTests {
    let dir = TemporaryDirectory()

    @Test func costColumnsAreMarkedWhenContextIsAssumed() throws {
        let out = dir.path("pop")
        let generated = try dir.fetchlab([
            "generate", "--users", "3", "--days", "14", "--seed", "7", "--output", out,
        ])
        #expect(generated.status == 0, "\(generated.err)")
        let policies = "never,fixed(1h),predictive(15m,0.3)"

        let assumed = dir.path("assumed.sqlite")
        #expect(
            try dir.fetchlab(["import", "--db", assumed, out + "/usage.csv.gz", out + "/content.csv.gz"]).status == 0)
        let text = try dir.fetchlab(["compare", "--db", assumed, "--no-store", "--wide", "--policies", policies])
        #expect(text.status == 0, "\(text.err)")
        // The default table's one cost column carries the mark too.
        let narrow = try dir.fetchlab(["compare", "--db", assumed, "--no-store", "--policies", policies])
        #expect(narrow.out.contains("  J/day*  "), "\(narrow.out)")
        #expect(text.out.contains("  J/day*  battery/day*  cell MB/day*  "), "\(text.out)")
        let note =
            "* cost assumed for 3 of 3 users: J/day, battery/day and cell MB/day cost their fetches on the context "
            + "defaults (no context samples: assumed Wi-Fi, 80 %, not charging), not on observed context"
        // The note wraps at 120 columns, continuation lines indented two spaces.
        #expect(text.out.replacingOccurrences(of: "\n  ", with: " ").contains(note), "\(text.out)")
        let html = dir.path("assumed.html")
        let report = try dir.fetchlab([
            "compare", "--db", assumed, "--no-store", "--policies", policies, "--format", "html", "--output", html,
        ])
        #expect(report.status == 0, "\(report.err)")
        let page = try String(contentsOfFile: html, encoding: .utf8)
        #expect(page.contains(">J/day*</th>") && page.contains("* cost assumed for 3 of 3 users"))

        let observed = dir.path("observed.sqlite")
        let all = [out + "/usage.csv.gz", out + "/content.csv.gz", out + "/context.csv.gz"]
        #expect(try dir.fetchlab(["import", "--db", observed] + all).status == 0)
        let plain = try dir.fetchlab(["compare", "--db", observed, "--no-store", "--wide", "--policies", policies])
        #expect(plain.status == 0, "\(plain.err)")
        #expect(
            plain.out.contains("  J/day  battery/day  cell MB/day  ") && !plain.out.contains("cost assumed"),
            "\(plain.out)")
    }
}
