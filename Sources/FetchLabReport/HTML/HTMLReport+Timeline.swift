import FetchLabCore
import FetchLabResults
import Foundation

extension HTMLReport {
    /// Above this many fetches a policy's fetches are drawn as one path per app and outcome (one
    /// tooltip each) rather than one element each, to keep the file small.
    static let fetchMarksWithTooltips = 400

    // MARK: - (6) One user's day

    static func timeline(_ r: ComparisonReport, _ picks: Picks) -> String {
        guard let trace = r.timeline, !trace.policies.isEmpty else {
            return """
                <section id="timeline-section"><h2>One user's day</h2><p class="caption">No timeline was recorded for this comparison.</p></section>
                """
        }
        let shown = trace.policies.firstIndex { $0.name == picks.recommended?.name } ?? 0
        let n = SVGChart.n
        let width = 960.0
        let left = labelMargin(trace.apps, least: 150, most: 300)
        let right = 16.0
        let contextTop = 8.0
        let batteryHeight = 36.0
        let networkTop = contextTop + batteryHeight + 4
        let rowsTop = networkTop + 14
        let row = 24.0
        let rowsBottom = rowsTop + Double(trace.apps.count) * row
        let legend = timelineLegend(y: rowsBottom + 34, x: 30, width: width - right - 30)
        let height = rowsBottom + 34 + legend.height + 14
        let hours = Double(max(trace.end - trace.start, Microseconds.perHour)) / Double(Microseconds.perHour)
        let x = LinearScale(domain: 0...hours, from: left, to: width - right)
        func px(_ t: Instant) -> Double {
            x.position(min(max(Double(t - trace.start) / Double(Microseconds.perHour), 0), hours))
        }
        func clock(_ t: Instant) -> String {
            let minutes = Int((t - trace.start) / Microseconds.perMinute)
            return TextFormat.two(minutes / 60) + ":" + TextFormat.two(minutes % 60)
        }
        func app(_ i: Int) -> String { trace.apps.indices.contains(i) ? trace.apps[i] : "app \(i)" }
        func centre(_ i: Int) -> Double { rowsTop + (Double(i) + 0.5) * row }

        var body = ""
        // Hour grid and labels.
        for h in stride(from: 0, through: Int(hours), by: 3) {
            let gx = n(x.position(Double(h)))
            body +=
                "<line class=\"grid\" x1=\"\(gx)\" x2=\"\(gx)\" y1=\"\(n(contextTop))\" y2=\"\(n(rowsBottom))\"/>"
                + "<text class=\"tick\" x=\"\(gx)\" y=\"\(n(rowsBottom + 14))\" text-anchor=\"middle\">\(TextFormat.two(h % 24)):00</text>"
        }
        // The context strip: charging shading, battery level, network band.
        let battery = LinearScale(domain: 0...100, from: contextTop + batteryHeight, to: contextTop)
        var level: [(x: Double, y: Double)] = []
        body += "<g class=\"context\">"
        for s in trace.context where s.end > trace.start && s.start < trace.end {
            let x0 = px(s.start)
            let x1 = px(s.end)
            let tip =
                (trace.assumedContext ? "assumed (no context samples) " : "")
                + "\(clock(max(s.start, trace.start)))–\(clock(min(s.end, trace.end))): battery \(String(format: "%.0f", s.battery)) %"
                + (s.charging ? ", charging" : "") + ", network \(networkLabel(s.network))"
                + (s.lowPower ? ", Low Power Mode" : "")
            if s.charging {
                body +=
                    "<rect class=\"charging\" x=\"\(n(x0))\" y=\"\(n(contextTop))\" width=\"\(n(x1 - x0))\" height=\"\(n(batteryHeight))\"/>"
            }
            body +=
                "<rect class=\"net-\(networkClass(s.network))\" x=\"\(n(x0))\" y=\"\(n(networkTop))\" width=\"\(n(x1 - x0))\" height=\"8\">"
                + "<title>\(HTML.escape(tip))</title></rect>"
            level.append((x0, battery.position(s.battery)))
            level.append((x1, battery.position(s.battery)))
        }
        body += "<polyline class=\"battery\" points=\"\(SVGChart.points(level))\"/>"
        body +=
            "<text class=\"label\" x=\"\(n(left - 6))\" y=\"\(n(contextTop + batteryHeight / 2))\" dy=\"0.32em\" text-anchor=\"end\">battery</text>"
            + "<text class=\"label\" x=\"\(n(left - 6))\" y=\"\(n(networkTop + 4))\" dy=\"0.32em\" text-anchor=\"end\">network</text>"
            + "<rect class=\"frame\" x=\"\(n(left))\" y=\"\(n(contextTop))\" width=\"\(n(width - right - left))\" height=\"\(n(batteryHeight))\"/>"
        if trace.assumedContext {
            // Not observed: the defaults, hatched over the strip and labelled.
            let label = assumedContextText(r.settings.contextDefaults)
            body +=
                "<defs><pattern id=\"hatch-assumed\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
                + "patternTransform=\"rotate(45)\"><line class=\"hatch\" x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\"/></pattern></defs>"
                + "<rect class=\"assumed\" fill=\"url(#hatch-assumed)\" x=\"\(n(left))\" y=\"\(n(contextTop))\" "
                + "width=\"\(n(width - right - left))\" height=\"\(n(networkTop + 8 - contextTop))\"><title>\(HTML.escape(label))</title></rect>"
                + "<text class=\"assumed-label\" x=\"\(n(left + 8))\" y=\"\(n(contextTop + 14))\">"
                + "\(HTML.escape(HTML.fit(label, width: width - right - left - 16)))</text>"
        }
        body += "</g>"
        // App rows.
        for (i, name) in trace.apps.enumerated() {
            body +=
                "<line class=\"row\" x1=\"\(n(left))\" x2=\"\(n(width - right))\" y1=\"\(n(centre(i)))\" y2=\"\(n(centre(i)))\"/>"
                + "<text class=\"label\" x=\"\(n(left - 6))\" y=\"\(n(centre(i)))\" dy=\"0.32em\" text-anchor=\"end\"><title>\(HTML.escape(name))</title>\(HTML.escape(HTML.fit(name, width: left - 12)))</text>"
        }
        // One group per policy, all but one hidden.
        for (k, day) in trace.policies.enumerated() {
            body +=
                "<g class=\"day\" data-policy=\"\(HTML.escape(day.name))\" data-launches=\"\(day.launches.count)\" "
                + "data-fetches=\"\(day.fetches.count)\" data-skips=\"\(day.skips.count)\" display=\"\(k == shown ? "inline" : "none")\">"
            let tooltips = day.fetches.count <= fetchMarksWithTooltips
            var merged: [String: String] = [:]
            var mergedCount: [String: Int] = [:]
            for f in day.fetches {
                let cx = px(f.time)
                let cy = centre(f.app) - 7
                let shape = fetchShape(f.outcome, cx, cy)
                let cls = "fetch o-\(outcomeClass(f.outcome))"
                if tooltips {
                    body +=
                        "<path class=\"\(cls)\" d=\"\(shape)\"><title>\(HTML.escape("\(app(f.app)) \(clock(f.time)): fetch, \(f.outcome)"))</title></path>"
                } else {
                    let key = "\(f.app) \(outcomeClass(f.outcome))"
                    merged[key, default: ""] += shape
                    mergedCount[key, default: 0] += 1
                }
            }
            for key in merged.keys.sorted() {
                let parts = key.split(separator: " ")
                let a = Int(parts[0]) ?? 0
                let outcome = String(parts[1])
                body +=
                    "<path class=\"fetch o-\(outcome)\" d=\"\(merged[key] ?? "")\"><title>"
                    + HTML.escape("\(app(a)): \(mergedCount[key] ?? 0) fetches, \(outcome)") + "</title></path>"
            }
            for s in day.skips {
                let cx = n(px(s.time))
                let cy = centre(s.app) + 7
                body +=
                    "<path class=\"skip\" d=\"M\(cx) \(n(cy - 3))v6\"><title>\(HTML.escape("\(app(s.app)) \(clock(s.time)): fetch refused, \(s.reason.label)"))</title></path>"
            }
            for l in day.launches {
                let stale =
                    l.stalenessMinutes.map { "\(CompareRenderer.minutes(($0 * 10).rounded() / 10)) stale" }
                    ?? "never refreshed"
                body +=
                    "<circle class=\"launch \(l.fresh ? "fresh" : "stale")\" cx=\"\(n(px(l.time)))\" cy=\"\(n(centre(l.app)))\" r=\"4\">"
                    + "<title>\(HTML.escape("\(app(l.app)) \(clock(l.time)): launch, \(l.fresh ? "fresh" : "not fresh") (\(stale))"))</title></circle>"
            }
            body += "</g>"
        }
        body += legend.svg
        let chart = svg(
            id: "timeline", width: width, height: height,
            data: [
                ("policies", trace.policies.count), ("apps", trace.apps.count), ("shown", shown),
                ("assumed-context", trace.assumedContext ? 1 : 0),
            ],
            title: "User \(trace.user)'s day \(trace.day) under each policy", body)
        var options = ""
        for (k, day) in trace.policies.enumerated() {
            options += "<option value=\"\(k)\"\(k == shown ? " selected" : "")>\(HTML.escape(day.name))</option>"
        }
        let first = trace.policies[shown]
        let fresh = first.launches.filter(\.fresh).count
        let caption =
            "User \(trace.user) on \(trace.day) (UTC\(TextFormat.offset(Int(trace.utcOffset)))), "
            + "\(trace.choice == "chosen" ? "the day asked for" : "picked as \(trace.choice)"): one row per app, "
            + "launches as circles (filled: fresh at τ, hollow: stale), fetches above them by outcome, refused fetches "
            + "below (the reason in the tooltip); above, the battery level, charging (shaded) and the network"
            + (trace.assumedContext
                ? " — hatched: this user has no context samples, so they are the assumed defaults, not observed. "
                : ". ")
            + "Under \(first.name) \(fresh) of \(first.launches.count) launches were fresh with \(first.fetches.count) fetches"
            + (first.skips.isEmpty ? "." : " and \(first.skips.count) refused.")
        return """
            <section id="timeline-section"><h2>One user's day</h2>
            <p class="controls"><label for="timeline-policy">Policy: </label><select id="timeline-policy">\(options)</select></p>
            \(figure(chart, caption: caption))</section>
            """
    }

    static func outcomeClass(_ outcome: String) -> String {
        ["useful", "wasted", "used", "expired"].contains(outcome) ? outcome : "other"
    }

    /// A mark per outcome: useful ▲, wasted ✕, used ◆, expired □ (others •).
    static func fetchShape(_ outcome: String, _ x: Double, _ y: Double) -> String {
        let n = SVGChart.n
        switch outcome {
        case "useful": return "M\(n(x)) \(n(y - 4))l4 7h-8z"
        case "wasted": return "M\(n(x - 3)) \(n(y - 3))l6 6m0-6l-6 6"
        case "used": return "M\(n(x)) \(n(y - 4))l4 4-4 4-4-4z"
        case "expired": return "M\(n(x - 3)) \(n(y - 3))h6v6h-6z"
        default: return "M\(n(x - 1.5)) \(n(y))h3"
        }
    }

    static func networkClass(_ network: NetworkType) -> String { network.name }

    static func networkLabel(_ network: NetworkType) -> String {
        switch network {
        case .wifi: "Wi-Fi"
        case .cellular: "cellular"
        case .none: "none"
        }
    }

    /// What the timeline's strip shows for a user without context samples:
    /// "assumed: no context samples (Wi-Fi, 80 %, not charging)".
    static func assumedContextText(_ d: ContextDefaults) -> String {
        "assumed: no context samples (\(networkLabel(d.network)), \(TextFormat.decimal(d.battery)) %, "
            + "\(d.charging ? "charging" : "not charging")\(d.lowPower ? ", Low Power Mode" : ""))"
    }

    static func timelineLegend(y: Double, x: Double, width: Double) -> (svg: String, height: Double) {
        let n = SVGChart.n
        let items: [(String, String)] = [
            ("<circle class=\"lkey fresh\" cx=\"X\" cy=\"Y\" r=\"4\"/>", "fresh launch"),
            ("<circle class=\"lkey stale\" cx=\"X\" cy=\"Y\" r=\"4\"/>", "stale launch"),
            (
                "<path class=\"fetch o-useful\" d=\"\(fetchShape("useful", 0, 0))\" transform=\"translate(X Y)\"/>",
                "useful fetch"
            ),
            (
                "<path class=\"fetch o-wasted\" d=\"\(fetchShape("wasted", 0, 0))\" transform=\"translate(X Y)\"/>",
                "wasted"
            ),
            ("<path class=\"fetch o-used\" d=\"\(fetchShape("used", 0, 0))\" transform=\"translate(X Y)\"/>", "used"),
            (
                "<path class=\"fetch o-expired\" d=\"\(fetchShape("expired", 0, 0))\" transform=\"translate(X Y)\"/>",
                "expired"
            ),
            ("<path class=\"skip\" d=\"M0 -3v6\" transform=\"translate(X Y)\"/>", "refused"),
            (
                "<rect class=\"charging\" x=\"X\" y=\"Y\" width=\"10\" height=\"8\" transform=\"translate(-5 -4)\"/>",
                "charging"
            ),
            (
                "<rect class=\"net-wifi\" x=\"X\" y=\"Y\" width=\"10\" height=\"8\" transform=\"translate(-5 -4)\"/>",
                "Wi-Fi"
            ),
            (
                "<rect class=\"net-cellular\" x=\"X\" y=\"Y\" width=\"10\" height=\"8\" transform=\"translate(-5 -4)\"/>",
                "cellular"
            ),
            (
                "<rect class=\"net-none\" x=\"X\" y=\"Y\" width=\"10\" height=\"8\" transform=\"translate(-5 -4)\"/>",
                "no network"
            ),
        ]
        return flowLegend(
            items.map { (mark, label) in
                (
                    mark: { (cx: Double, cy: Double) in
                        mark.replacingOccurrences(of: "\"X\"", with: "\"\(n(cx))\"")
                            .replacingOccurrences(of: "\"Y\"", with: "\"\(n(cy))\"")
                            .replacingOccurrences(of: "translate(X Y)", with: "translate(\(n(cx)) \(n(cy)))")
                    }, label: label
                )
            }, x: x, y: y, width: width)
    }
}
