import FetchLabCore
import FetchLabSimulation
import Foundation
import Plot
import Testing
import _FetchLabTestSupport

@testable import FetchLabReport

/// Issue 24's trial of Plot on the ranking section: the Plot section and the string section it
/// replaces write the same bytes (but for an empty attribute value). `FETCHLAB_HTML_BENCH=N` also times both (N renders each) and
/// prints one JSON line, read by `Benchmarks/html-builder-benchmark.sh`; the timing asserts nothing.
@Suite struct HTMLBuilderTrialTests {
    static func reports() -> [(String, ComparisonReport)] {
        var hostile = HTMLReportTests.report()
        hostile.policies[0].name = "never\u{2067}isolate"
        hostile.policies[1].name = "<script>alert(1)</script>\"&'&amp;"
        hostile.policies[1].family = "x\" onmouseover=\"alert(1)"
        hostile.policies[2].family = ""
        let empty = ComparisonReport(
            settings: ComparisonSettings(
                tauMinutes: 15, tausMinutes: [15], launchRefreshes: false, warmUpDays: 7, minLaunches: 20,
                platform: "none", users: 0, pairs: 0, scoredLaunches: 0),
            policies: [])
        return [
            ("small", HTMLReportTests.report()), ("sample-sized", HTMLReportSizeTests.large()), ("hostile", hostile),
            ("empty", empty),
        ]
    }

    @Test func thePlotSectionWritesTheBytesTheStringSectionWrote() {
        for (name, r) in Self.reports() {
            let picks = HTMLReport.Picks(r)
            let plot = HTMLReport.ranking(r, picks)
            // The one markup difference: Plot writes an empty attribute value bare (`data-family`,
            // which a browser reads as ""), the strings wrote `data-family=""`.
            let strings = HTMLReport.rankingFromStrings(r, picks).replacingOccurrences(of: "=\"\"", with: "")
            let same = zip(plot, strings).prefix { $0 == $1 }.count
            #expect(
                plot == strings,
                "\(name): Plot \(plot.dropFirst(same).prefix(60)) / strings \(strings.dropFirst(same).prefix(60))")
        }
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["FETCHLAB_HTML_BENCH"] != nil))
    func timeBothSections() throws {
        let n = Int(ProcessInfo.processInfo.environment["FETCHLAB_HTML_BENCH"] ?? "") ?? 200
        let r = HTMLReportSizeTests.large()
        let picks = HTMLReport.Picks(r)
        func seconds(_ body: () -> String) -> (Double, Int) {
            var bytes = 0
            let clock = ContinuousClock()
            let elapsed = clock.measure { for _ in 0..<n { bytes = body().utf8.count } }
            let c = elapsed.components
            return ((Double(c.seconds) + Double(c.attoseconds) / 1e18) / Double(n), bytes)
        }
        _ = HTMLReport.ranking(r, picks)
        let strings = seconds { HTMLReport.rankingFromStrings(r, picks) }
        let plot = seconds { HTMLReport.ranking(r, picks) }
        let page = seconds { HTMLReport.render(r, source: "Datasets/sample") }
        print(
            "html-builder-section: {\"renders\": \(n), \"rows\": \(r.policies.count), "
                + "\"strings_seconds\": \(strings.0), \"plot_seconds\": \(plot.0), "
                + "\"strings_bytes\": \(strings.1), \"plot_bytes\": \(plot.1), "
                + "\"page_seconds_with_plot\": \(page.0), \"page_bytes\": \(page.1)}")
    }
}

/// Why the Plot section escapes through ``HTML/escape`` (`Node.escaped`, `Node.attribute(_:_:)`)
/// rather than Plot's own `.text` and attributes: what Plot 0.14.0 writes for a hostile name.
@Suite struct PlotEscapingTests {
    @Test func plotEscapesTextPartlyAndAttributeValuesNotAtAll() {
        let name = "<b>\"&'&amp;\u{202E}x"
        let node = Node<Plot.HTML.TableRowContext>.td(.data(named: "v", value: name), .text(name))
        // Text: <, > and & only; `&amp;` kept as an entity (so a browser shows "&", not "&amp;");
        // the right-to-left override obeyed. Attribute: as given, so its quote ends the value.
        #expect(node.render() == "<td data-v=\"<b>\"&'&amp;\u{202E}x\">&lt;b&gt;\"&amp;'&amp;\u{202E}x</td>")
        let ours = Node<Plot.HTML.TableRowContext>.td(.attribute("data-v", name), .escaped(name))
        let escaped = "&lt;b&gt;&quot;&amp;&#39;&amp;amp;⟨U+202E⟩x"
        #expect(ours.render() == "<td data-v=\"\(escaped)\">\(escaped)</td>")
    }
}
