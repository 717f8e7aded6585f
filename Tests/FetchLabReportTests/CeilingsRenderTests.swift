import FetchLabCore
import FetchLabReport
import FetchLabResults
import Foundation
import Testing

/// The per-signal ceilings in the HTML report and compare's table: the sentence at the headline
/// budget, the small table, and absent signals said to be absent.
@Suite struct CeilingsRenderTests {
    static func ceilings(devicePresent: Bool) -> SignalCeilings {
        let launches = [0.30, 0.40, 0.50, 0.55, 0.55]
        let device = devicePresent ? [0.35, 0.48, 0.61, 0.70, 0.70] : launches
        return SignalCeilings(
            tau: 15 * .perMinute, launchRefreshes: true, budgets: [0.5, 1, 2, 5, 10],
            signalEvents: [.unlock: devicePresent ? 40 : 0],
            sets: [
                .init(set: .launches, signalsPresent: true, fresh: launches, unlimited: 0.55),
                .init(set: .device, signalsPresent: devicePresent, fresh: device, unlimited: device[4]),
                .init(set: .notifications, signalsPresent: false, fresh: device, unlimited: device[4]),
                .init(set: .anywhere, signalsPresent: true, fresh: [0.4, 0.6, 0.9, 1, 1], unlimited: 1),
            ])
    }

    @Test func theReportSaysWhatEachSignalCanBuy() throws {
        var r = HTMLReportTests.report()
        r.budget?.headlineBudget = 2  // the sentence is read at the headline budget
        r.ceilings = Self.ceilings(devicePresent: true)
        let html = HTMLReport.render(r, source: "x")
        let start = try #require(html.range(of: "<p id=\"ceilings\">")).upperBound
        let sentence = String(html[start...].prefix { $0 != "<" })
        #expect(
            sentence
                == "On these users a scheduler that sees only launches can reach at most 50.0% fresh@15 min at 2 "
                + "fetches a day; with unlock, screen-on and system-UI events 61.0%; fetching anywhere (the "
                + "clairvoyant bound) 90.0%.")
        #expect(html.contains("<table id=\"ceilings-table\" data-sets=\"4\">"))
        #expect(
            html.contains(
                "<tr data-set=\"notifications\"><th scope=\"row\">+ notifications for the app</th><td colspan=\"6\">none in these logs"
            ))

        r.ceilings = Self.ceilings(devicePresent: false)
        let without = HTMLReport.render(r, source: "x")
        #expect(without.contains("the logs hold no unlock, screen-on or system-UI event"))
        r.ceilings = nil
        #expect(!HTMLReport.render(r, source: "x").contains("ceilings-table"))
    }

    @Test func compareTableShowsTheCeilings() {
        var r = HTMLReportTests.report()
        r.ceilings = Self.ceilings(devicePresent: true)
        let lines = CompareRenderer.text(r).split(separator: "\n").map(String.init)
        let head = lines.firstIndex { $0.hasPrefix("ceiling, fresh@15 min, fetching only at") }
        #expect(head != nil)
        guard let head else { return }
        #expect(lines[head + 1].hasPrefix("launches of other apps") && lines[head + 1].hasSuffix("55.0%"))
        #expect(lines[head + 2].contains("48.0%  61.0%"))
        #expect(lines[head + 3] == "+ notifications for the app              none in these logs (as the row above)")
        r.ceilings = nil
        #expect(!CompareRenderer.text(r).contains("ceiling, fresh@"))
    }
}
