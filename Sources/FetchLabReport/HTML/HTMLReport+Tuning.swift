import FetchLabResults
import Foundation

extension HTMLReport {
    // MARK: - (9) Tuning

    /// The `tuning-section` of a tuning run: the settings tried on the last fold's training part as
    /// `svg#tuning-scatter` (fresh@15m against J/day; `data-points` = settings tried, `data-front`
    /// = settings on the two-way Pareto front joined by the line, `data-chosen`, `data-best-fixed`
    /// = 1 when drawn; each point a `circle.tried` with `data-name`, the chosen one also `.chosen`,
    /// the best fixed interval `.best-fixed`, or a `rect.best-fixed` when it was not among the
    /// settings), the held-out comparison `table#tuning-heldout` (`data-rows`), the platform
    /// settings (`div#tuning-platform`, snippets in `pre`) and captions computed from the numbers.
    ///
    /// With the `comparison` of the same page the section presents its choice as the tuning's
    /// result (`p.tuned#tuning-headline`, "Tuned setting: …"), not as a second recommendation, and
    /// says in one line why it differs from the comparison's recommendation; alone (`tune --format
    /// html`) that sentence is the page's headline.
    public static func tuning(
        _ r: TuningResult, platform: [PlatformOutcome], comparison: ComparisonReport? = nil
    ) -> String {
        guard let fold = r.folds.last else {
            return """
                <section id="tuning-section"><h2>Tuning</h2><p class="caption">The tuning run has no fold.</p></section>
                """
        }
        let subject = r.constraints.isEmpty ? "" : " subject to \(r.constraints.joined(separator: ", "))"
        let intro =
            "\(r.family) tuned by \(r.method) search to \(r.objective)\(subject); "
            + TextFormat.counted(fold.tried.count, "setting") + " tried on the training part"
            + (r.folds.count > 1 ? " of the last of \(r.folds.count) folds" : "") + " (\(fold.label))"
            + (r.ranking != nil && r.folds.count > 1
                ? "; the choice is the best by the mean over all \(r.folds.count) training parts." : ".")
        return """
            <section id="tuning-section"><h2>Tuning</h2>
            <p class="\(comparison == nil ? "headline" : "tuned")" id="tuning-headline">\(HTML.escape(tuningHeadline(r, fold)))\(comparison.flatMap { whyBoth(r, fold, $0) }.map { " " + HTML.escape($0) } ?? "")</p>
            <p class="caption">\(HTML.escape(intro))</p>
            \(tuningPromise(r))
            \(figure(tuningScatter(fold), caption: tuningScatterCaption(fold)))
            \(tuningHeldOut(r))
            \(tuningFolds(r))
            \(tuningGroups(fold))
            \(tuningPlatform(platform))</section>
            """
    }

    /// The chosen setting's promise (`p#tuning-promise`: fresh rate and gain over the fixed
    /// baseline, training → held out, with their intervals and what they resample; the warnings are
    /// under "How it was tested"); empty for a run stored before it.
    static func tuningPromise(_ r: TuningResult) -> String {
        var out = ""
        if let p = r.promise {
            let chosen = r.chosen ?? r.folds.last?.chosen ?? ""
            let lines = TuningRenderer.promiseLines(p, indent: "").map(HTML.escape).joined(separator: "<br>")
            out +=
                "<p class=\"caption\" id=\"tuning-promise\" data-interval-over=\"\(p.intervalOver.rawValue)\">"
                + "\(HTML.escape("What \(chosen) promised and kept (\(TuningRenderer.promiseIntervalWords(p))):"))<br>"
                + lines + "</p>"
        }
        return out
    }

    /// fresh@15m against energy of the settings tried (train), the front, the choice and the best fixed interval.
    static func tuningScatter(_ fold: TuningFold) -> String {
        let tried = fold.tried
        let fixedTrain = fold.bestFixedTrain
        let fixedInTried = tried.contains { $0.name == fold.bestFixed }
        let extra = fixedInTried ? [] : fixedTrain.map { [$0] } ?? []
        let frame = PlotFrame(width: 760, height: 400)
        let x = LinearScale(
            covering: (tried.map(\.train) + extra).map(\.energyJoulesPerDay), including: [0], from: frame.x0,
            to: frame.x1)
        let y = LinearScale(
            covering: (tried.map(\.train) + extra).map(\.fresh15), including: [0, 1], from: frame.y0, to: frame.y1)
        let n = SVGChart.n
        let front = SVGChart.paretoFront(tried.map { (x: $0.train.energyJoulesPerDay, y: $0.train.fresh15) })
        var body = frame.axes(
            x: x, y: y, xTitle: "energy per user per day (J), training part", yTitle: "fresh@15m", xLabel: tick,
            yLabel: percentTick)
        let line = front.map {
            (x: x.position(tried[$0].train.energyJoulesPerDay), y: y.position(tried[$0].train.fresh15))
        }
        body += "<polyline class=\"front\" points=\"\(SVGChart.points(line))\"/>"
        for (i, t) in tried.enumerated() {
            let chosen = t.name == fold.chosen
            let isFixed = t.name == fold.bestFixed
            var classes = "pt tried f\(t.feasible ? 0 : 6)"
            if front.contains(i) { classes += " on-front" }
            if chosen { classes += " chosen" }
            if isFixed { classes += " best-fixed" }
            let tip =
                "\(t.name)\(t.values.isEmpty ? "" : " (\(t.values))"): fresh@15m \(percent(t.train.fresh15)), "
                + "\(fixed(t.train.energyJoulesPerDay, 1)) J/day, \(fixed(t.train.fetchesPerAppDay, 2)) fetches/app/day"
                + (t.feasible ? "" : "; breaks a constraint") + (chosen ? "; chosen" : "")
                + (isFixed ? "; the best fixed interval" : "")
            body +=
                "<circle class=\"\(classes)\" data-name=\"\(HTML.escape(t.name))\" cx=\"\(n(x.position(t.train.energyJoulesPerDay)))\" "
                + "cy=\"\(n(y.position(t.train.fresh15)))\" r=\"\(chosen || isFixed ? 7 : 4.5)\"><title>\(HTML.escape(tip))</title></circle>"
        }
        if let name = fold.bestFixed, let s = extra.first {
            let px = x.position(s.energyJoulesPerDay)
            let py = y.position(s.fresh15)
            let tip =
                "\(name), the best fixed interval: fresh@15m \(percent(s.fresh15)), \(fixed(s.energyJoulesPerDay, 1)) J/day"
            body +=
                "<rect class=\"best-fixed\" data-name=\"\(HTML.escape(name))\" x=\"\(n(px - 6))\" y=\"\(n(py - 6))\" "
                + "width=\"12\" height=\"12\"><title>\(HTML.escape(tip))</title></rect>"
        }
        // Names of the chosen setting and of the best fixed interval, inside the chart and clear
        // of the points and of each other.
        var placer = LabelPlacer(width: frame.width, height: frame.height)
        for t in tried {
            let big = t.name == fold.chosen || t.name == fold.bestFixed
            placer.avoid(x: x.position(t.train.energyJoulesPerDay), y: y.position(t.train.fresh15), r: big ? 7 : 4.5)
        }
        for s in extra { placer.avoid(x: x.position(s.energyJoulesPerDay), y: y.position(s.fresh15), r: 7) }
        for (name, s) in [(fold.chosen, fold.chosenTrain)]
            + (fold.bestFixed.flatMap { b in fixedTrain.map { [(b, $0)] } } ?? [])
        {
            body +=
                placer.place(
                    name, x: x.position(s.energyJoulesPerDay), y: y.position(s.fresh15), r: 7, force: true) ?? ""
        }
        return svg(
            id: "tuning-scatter", width: frame.width, height: frame.height,
            data: [
                ("points", tried.count), ("front", front.count), ("chosen", 1),
                ("best-fixed", fold.bestFixed == nil ? 0 : 1),
            ],
            title: "fresh@15m against energy per day of every setting tried, on the training part", body)
    }

    static func tuningScatterCaption(_ fold: TuningFold) -> String {
        let tried = fold.tried
        guard !tried.isEmpty else { return "No setting was tried." }
        let front = SVGChart.paretoFront(tried.map { (x: $0.train.energyJoulesPerDay, y: $0.train.fresh15) })
        let infeasible = tried.filter { !$0.feasible }.count
        var out =
            "Each point is a setting: fresh@15m (up) against the energy its fetches draw per user per day (right), "
            + "on the training part. The line joins the \(TextFormat.counted(front.count, "setting")) no other beats on both: "
            + front.map { tried[$0].name }.joined(separator: ", ") + "."
        if infeasible > 0 { out += " \(TextFormat.counted(infeasible, "setting")) break a constraint (dark)." }
        let c = fold.chosenTrain
        out += " Chosen: \(fold.chosen), \(percent(c.fresh15)) at \(fixed(c.energyJoulesPerDay, 1)) J/day"
        if let i = tried.firstIndex(where: { $0.name == fold.chosen }), front.contains(i) {
            out += ", on the front."
        } else {
            out += ", off the two-way front (the objective or a constraint ranks it first)."
        }
        if let name = fold.bestFixed, let b = fold.bestFixedTrain {
            out +=
                " Best fixed interval (square or ringed): \(name), \(percent(b.fresh15)) at \(fixed(b.energyJoulesPerDay, 1)) J/day."
        } else {
            out += " No fixed interval meets the constraints."
        }
        return out
    }

    /// Why a page shows the comparison's recommendation and a different tuned setting (nil when
    /// they are the same policy).
    static func whyBoth(_ r: TuningResult, _ fold: TuningFold, _ comparison: ComparisonReport) -> String? {
        let recommended = comparison.recommended?.name
        guard recommended != fold.chosen else { return nil }
        let subject = r.constraints.isEmpty ? "" : " subject to \(r.constraints.joined(separator: ", "))"
        let question =
            "this tuning searched only the \(r.family) family, by \(TuningRenderer.objectiveName(r))\(subject), "
            + "and measured its choice on held-out data"
        guard let recommended, let rec = comparison.recommendation else {
            return "It is the tuning's result, not a recommendation: the comparison above recommends no policy, and "
                + question + "."
        }
        return
            "It differs from the page's recommendation, \(recommended), because that is the freshest app-scope setting "
            + "of every family compared within \(CompareRenderer.budgetText(rec.point.budget)) fetches/app/day, while "
            + question + "."
    }

    /// One sentence: the tuned setting against the best fixed interval on held-out data.
    static func tuningHeadline(_ r: TuningResult, _ fold: TuningFold) -> String {
        let t = fold.chosenTest
        var out =
            "Tuned setting: \(fold.chosen). On held-out data it keeps \(percent(t.fresh15)) of launches fresh within 15 min "
            + "at \(fixed(t.energyJoulesPerDay, 1)) J/day and \(fixed(t.fetchesPerAppDay, 2)) fetches/app/day"
        guard let name = fold.bestFixed, let b = fold.bestFixedTest else {
            return out + "; no fixed interval meets the constraints on the training part."
        }
        let points = (t.fresh15 - b.fresh15) * 100
        out +=
            ", against \(percent(b.fresh15)) at \(fixed(b.energyJoulesPerDay, 1)) J/day for \(name), the best fixed "
            + "interval chosen the same way: "
            + (abs(points) < 0.05
                ? "as fresh" : String(format: "%.1f points %@", abs(points), points > 0 ? "fresher" : "less fresh"))
        if b.energyJoulesPerDay > 0 {
            let change = (t.energyJoulesPerDay - b.energyJoulesPerDay) / b.energyJoulesPerDay * 100
            out +=
                abs(change) < 0.5
                ? " for the same energy"
                : String(format: " for %.0f%% %@ energy", abs(change), change < 0 ? "less" : "more")
        }
        if r.folds.count > 1 { out += " (the last of \(r.folds.count) folds)" }
        return out + "."
    }

    /// The held-out figures of the tuned setting and the best fixed interval, per fold.
    static func tuningHeldOut(_ r: TuningResult) -> String {
        let objective = TuningRenderer.objectiveName(r)
        let extra = objective == "fresh@15m" ? [] : [objective]
        let folds = r.folds.count > 1 ? ["fold"] : []
        let columns =
            folds + ["held out", "setting"] + extra + [
                "fresh@15m", "J/day", "cell MB/day", "fetches/app/day", "scored launches",
            ]
        var rows = 0
        var body = ""
        for (f, fold) in r.folds.enumerated() {
            for (role, name, s) in TuningRenderer.heldOut(fold) {
                rows += 1
                let cells =
                    (folds.isEmpty ? [] : ["\(f + 1)"]) + [role, name]
                    + (extra.isEmpty ? [] : [TuningRenderer.number(s.objective)]) + [
                        percent(s.fresh15), fixed(s.energyJoulesPerDay, 1), fixed(s.cellularMBPerDay, 2),
                        fixed(s.fetchesPerAppDay, 2), TextFormat.count(s.scoredLaunches),
                    ]
                body +=
                    "<tr\(role == "tuned" ? " class=\"tuned\"" : "")>"
                    + cells.map { "<td>\(HTML.escape($0))</td>" }.joined() + "</tr>"
            }
        }
        let head = columns.map { "<th>\(HTML.escape($0))</th>" }.joined()
        var caption =
            "The tuned setting and the best fixed interval measured on the held-out part, which neither choice saw."
        if r.folds.count > 1 {
            let c = r.chosenTest
            caption +=
                " Over \(r.folds.count) folds the tuned \(objective) averages \(TuningRenderer.number(c.mean))"
                + (r.bestFixedTest.map { ", the best fixed interval's \(TuningRenderer.number($0.mean))" } ?? "") + "."
        }
        return """
            <h3>Held out</h3><p class="caption">\(HTML.escape(caption))</p>
            \(scrollHint)<div class="scroll"><table id="tuning-heldout" data-rows="\(rows)"><thead><tr>\(head)</tr></thead><tbody>\(body)</tbody></table></div>
            """
    }

    /// How the choice was tested (`div#tuning-tested`; empty for a run stored before the test
    /// parts were counted): the split, per fold the training and test users and scored launches,
    /// the chosen setting's test fresh rate with its interval and each constraint checked there
    /// (`table#tuning-folds`, `data-rows`; a row `data-one-user="1"` when its test part holds one
    /// user), then how often each constraint held, the pooled held-out interval and the warnings.
    static func tuningFolds(_ r: TuningResult) -> String {
        guard r.folds.contains(where: { $0.testUsers != nil }) else { return "" }
        let checks = r.folds.first?.constraintsOnTest ?? []
        let columns =
            [
                "fold", "train users", "train launches", "test users", "test launches", "tuned test fresh",
                "95 % interval",
            ]
            + checks.map(\.constraint)
        var body = ""
        for (f, fold) in r.folds.enumerated() {
            let interval = fold.testInterval
            let range: String =
                interval.flatMap { i in
                    guard let low = i.low, let high = i.high else { return nil }
                    return "\(percent(low)) to \(percent(high))"
                } ?? "one test user: none"
            let names = fold.testUserNames.map { " (\($0.joined(separator: ", ")))" } ?? ""
            let cells =
                [
                    "\(f + 1)", fold.trainUsers.map { TextFormat.count($0) } ?? "–",
                    TextFormat.count(fold.chosenTrain.scoredLaunches),
                    (fold.testUsers.map { TextFormat.count($0) } ?? "–") + names,
                    TextFormat.count(fold.chosenTest.scoredLaunches), percent(interval?.fresh), range,
                ]
                + (fold.constraintsOnTest ?? []).map { c in
                    "\(c.held ? "held" : "missed") (\(fixed(c.value, 2)))"
                }
            body +=
                "<tr\(fold.testUsers == 1 ? " data-one-user=\"1\"" : "")>"
                + cells.map { "<td>\(HTML.escape($0))</td>" }.joined() + "</tr>"
        }
        var caption =
            (r.split.map { "Split: \($0). " } ?? "")
            + "Objective: \(r.objective)"
            + (r.constraints.isEmpty ? "" : " subject to \(r.constraints.joined(separator: ", "))") + "."
        if let widened = r.widened { caption += " The grid was widened: \(widened)." }
        let lines = TuningRenderer.summaryLines(r).filter { !$0.hasPrefix("warning: ") }
        if !lines.isEmpty {
            caption += " " + lines.map { $0.prefix(1).uppercased() + $0.dropFirst() + "." }.joined(separator: " ")
        }
        for (f, fold) in r.folds.enumerated() where fold.testUsers == 1 {
            let name = fold.testUserNames?.first.map { " (\($0))" } ?? ""
            caption +=
                " \(r.folds.count > 1 ? "Fold \(f + 1)'s test part" : "The test part") holds one user\(name): its "
                + "figures are that user's alone, not other users'."
        }
        let warnings = (r.warnings ?? []).map {
            "<p class=\"caption warning\">Warning: \(HTML.escape($0)).</p>"
        }.joined()
        let head = columns.map { "<th>\(HTML.escape($0))</th>" }.joined()
        return """
            <div id="tuning-tested"><h3>How it was tested</h3><p class="caption">\(HTML.escape(caption))</p>\(warnings)
            \(scrollHint)<div class="scroll"><table id="tuning-folds" data-rows="\(r.folds.count)"><thead><tr>\(head)</tr></thead><tbody>\(body)</tbody></table></div></div>
            """
    }

    /// The per-app recommendation and the groups of users (`table#tuning-groups`, `data-rows`; a row
    /// per app and per group, `data-kind` app or users), held out against the overall choice; empty
    /// when the fold has neither.
    static func tuningGroups(_ fold: TuningFold) -> String {
        guard !fold.groups.isEmpty else { return "" }
        let columns = ["app or users", "setting", "held out: fresh@15m", "overall's", "J/day", "overall's", "gain"]
        var body = ""
        for g in fold.groups {
            let cells = [
                g.group, g.chosen, percent(g.chosenTest.fresh15), percent(g.globalTest.fresh15),
                fixed(g.chosenTest.energyJoulesPerDay, 1), fixed(g.globalTest.energyJoulesPerDay, 1),
                TuningRenderer.number(g.gain),
            ]
            body +=
                "<tr data-kind=\"\(g.kind.rawValue)\"\(g.chosen != fold.chosen ? " class=\"differs\"" : "")>"
                + cells.map { "<td>\(HTML.escape($0))</td>" }.joined() + "</tr>"
        }
        var caption =
            "Each app's setting, chosen together with the others under the constraints, and each group of users' "
            + "own best setting (terciles of launches per day), measured on their held-out launches against \(fold.chosen) "
            + "on the same launches; gain in the objective's better direction."
        if let p = fold.perApp {
            caption +=
                " Replayed as one policy, the per-app settings keep \(percent(p.test.fresh15)) of held-out launches fresh "
                + "at \(fixed(p.test.energyJoulesPerDay, 1)) J/day, against \(percent(fold.chosenTest.fresh15)) at "
                + "\(fixed(fold.chosenTest.energyJoulesPerDay, 1)) J/day for \(fold.chosen)"
                + (p.feasibleOnTrain ? "." : " (the combination misses the constraints on the training part).")
        }
        let head = columns.map { "<th>\(HTML.escape($0))</th>" }.joined()
        return """
            <h3>Per app and per group of users</h3><p class="caption">\(HTML.escape(caption))</p>
            \(scrollHint)<div class="scroll"><table id="tuning-groups" data-rows="\(fold.groups.count)"><thead><tr>\(head)</tr></thead><tbody>\(body)</tbody></table></div>
            """
    }

    /// The platform settings that carry the choice to iOS and Android, with their snippets.
    static func tuningPlatform(_ platform: [PlatformOutcome]) -> String {
        guard !platform.isEmpty else {
            return
                "<div id=\"tuning-platform\" data-settings=\"0\"><h3>Platform settings</h3><p class=\"caption\">No platform setting carries this family.</p></div>"
        }
        var out =
            "<div id=\"tuning-platform\" data-settings=\"\(platform.count)\"><h3>Platform settings</h3>"
            + "<p class=\"caption\">The choice and the best fixed interval as what an app can set, each replayed under its "
            + "platform's rules (\(HTML.escape(TuningRenderer.platformPart(platform)))).</p>"
            + (platform.first?.inputs.flatMap(TuningRenderer.platformNote)
                .map { "<p class=\"caption\">\(HTML.escape($0.prefix(1).uppercased() + $0.dropFirst())).</p>" } ?? "")
        for o in platform {
            out +=
                "<div class=\"platform-setting\" data-platform=\"\(HTML.escape(o.setting.platform.rawValue))\">"
                + "<p>\(HTML.escape(TuningRenderer.platformLine(o)))</p>"
                + "<pre class=\"snippet\"><code>\(HTML.escape(o.setting.snippet))</code></pre>"
                + (o.setting.note.map { "<p class=\"caption\">\(HTML.escape($0))</p>" } ?? "") + "</div>"
        }
        return out + "</div>"
    }
}
