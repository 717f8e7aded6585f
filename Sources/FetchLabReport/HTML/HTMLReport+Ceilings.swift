import FetchLabResults

extension HTMLReport {
    /// The per-signal ceilings: one sentence at the headline budget, then a small table (per signal
    /// set, each budget and no budget). Empty without ceilings.
    static func ceilings(_ r: ComparisonReport) -> String {
        guard let c = r.ceilings, !c.sets.isEmpty else { return "" }
        let tau = "fresh@" + CompareRenderer.minutes(c.tau.inMinutes)
        let budget = r.budget?.headlineBudget ?? BudgetSettings.defaultHeadline
        var sentence = ""
        if let only = c.fresh(.launches, atBudget: budget) {
            let fetches = CompareRenderer.budgetText(budget)
            sentence =
                "On these users a scheduler that sees only launches can reach at most \(percent(only)) \(tau) at "
                + "\(fetches) fetch\(budget == 1 ? "" : "es") a day"
            if let device = c[.device], device.signalsPresent, let y = c.fresh(.device, atBudget: budget) {
                sentence += "; with unlock, screen-on and system-UI events \(percent(y))"
            } else {
                sentence +=
                    "; the logs hold no unlock, screen-on or system-UI event, so what refreshing on them "
                    + "would add cannot be read here"
            }
            if let notes = c[.notifications], notes.signalsPresent, let z = c.fresh(.notifications, atBudget: budget) {
                sentence += "; with notifications too \(percent(z))"
            }
            if let bound = c.fresh(.anywhere, atBudget: budget) {
                sentence += "; fetching anywhere (the clairvoyant bound) \(percent(bound))"
            }
            sentence += "."
        }
        var head = "<tr><th>\(HTML.escape(tau)), fetching only at</th>"
        for b in c.budgets { head += "<th>\(HTML.escape(CompareRenderer.budgetText(b)))/app/day</th>" }
        head += "<th>unlimited</th></tr>"
        var body = ""
        for s in c.sets {
            body += "<tr data-set=\"\(s.set.rawValue)\"><th scope=\"row\">\(HTML.escape(s.set.label))</th>"
            if s.signalsPresent {
                body += (s.fresh + [s.unlimited]).map { "<td>\(percent($0))</td>" }.joined()
            } else {
                body += "<td colspan=\"\(c.budgets.count + 1)\">none in these logs (as the row above)</td>"
            }
            body += "</tr>"
        }
        let note =
            "The clairvoyant bound restricted to the moments each set offers (each adding to the one above): what a "
            + "scheduler acting only on them could reach at most, over all scored launches, launch refreshes "
            + (c.launchRefreshes ? "on." : "off.")
        return "<p id=\"ceilings\">\(HTML.escape(sentence))</p>"
            + scrollHint
            + "<div class=\"scroll\"><table id=\"ceilings-table\" data-sets=\"\(c.sets.count)\"><thead>\(head)</thead>"
            + "<tbody>\(body)</tbody></table></div><p class=\"caption\">\(HTML.escape(note))</p>"
    }
}
