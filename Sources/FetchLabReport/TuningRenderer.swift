import FetchLabResults
import Foundation

/// `fetchlab tune` as a table, Markdown, JSON or CSV (the HTML section is ``HTMLReport``'s).
public enum TuningRenderer {
    /// Per fold: the settings tried ranked on train (feasibility, Pareto front), the chosen
    /// setting and the best fixed interval on held-out data; then the replays the search used.
    /// ``text(_:)`` followed by the platform settings, each with what it gives under its platform.
    public static func text(_ r: TuningResult, platform: [PlatformOutcome]) -> String {
        text(blocks(r, platform: platform))
    }

    /// ``json(_:)`` with a `platform_settings` array, `run_id` when the run is stored and
    /// `platform_inputs` (what the logs the settings were replayed on held for the platforms'
    /// device rules) when known.
    public static func json(_ r: TuningResult, platform: [PlatformOutcome], runID: Int64? = nil) -> String {
        let base = json(r)
        guard var object = (try? JSONSerialization.jsonObject(with: Data(base.utf8))) as? [String: Any] else {
            return base
        }
        if let runID { object["run_id"] = runID }
        if let platformInputs = platform.first?.inputs {
            object["platform_inputs"] = [
                "users": platformInputs.users, "users_with_context": platformInputs.usersWithContext,
                "force_quits": platformInputs.forceQuits, "refresh_switches": platformInputs.refreshSwitches,
                "inert": platformInputs.isInert,
            ]
        }
        object["platform_settings"] = platform.map { o -> [String: Any] in
            [
                "platform": o.setting.platform.rawValue, "setting": o.setting.setting, "model": o.setting.model,
                "snippet": o.setting.snippet, "note": o.setting.note ?? NSNull(), "fresh": o.fresh,
                "fetches_per_app_day": o.fetchesPerAppDay, "energy_j_per_day": o.joulesPerDay, "skipped": o.skipped,
                "part": o.part ?? NSNull(), "users": o.users ?? NSNull(),
                "replayed_as": o.setting.replayedAs ?? NSNull(), "skips": o.skips ?? NSNull(),
            ]
        }
        guard
            let data = try? JSONSerialization.data(
                withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        else { return base }
        return String(decoding: data, as: UTF8.self)
    }

    public static func text(_ r: TuningResult) -> String { text(blocks(r, platform: [])) }

    /// A piece of the report, rendered as plain text (``text(_:)``) or Markdown.
    enum Block: Equatable {
        /// A line of prose (empty: a blank line).
        case line(String)
        /// Columns: the first two left-aligned (the first right-aligned when it is `rank`), the rest right-aligned.
        case table([String], [[String]])
        /// An indented item of a list.
        case item(String)
        /// Code, indented further: a snippet for `platform` (Swift for iOS, Kotlin for Android).
        case code([String], platform: PlatformKind)
        /// A remark on the item above, in parentheses.
        case note(String)
    }

    /// The report as blocks: the heading, per fold the settings tried and the held-out comparison,
    /// the spread over folds, the replays, then the platform settings.
    static func blocks(_ r: TuningResult, platform: [PlatformOutcome]) -> [Block] {
        var out: [Block] = []
        let subject = r.constraints.isEmpty ? "" : " subject to \(r.constraints.joined(separator: ","))"
        out.append(.line("tune \(r.family) (\(r.method) search): \(r.objective)\(subject)"))
        if let split = r.split { out.append(.line("split: \(split)")) }
        if r.rankedBy == .gainVsFixed, let p = r.promise {
            out.append(
                .line(
                    "ranked by the gain over the fixed baseline: fresh@\(TextFormat.fixed(p.tau.inMinutes, 0))m minus what a "
                        + "fixed interval gives at the setting's own fetches/app/day (closed form, expected over its "
                        + "phase) on the same users and days"))
        }
        if let widened = r.widened { out.append(.line("widened: \(widened)")) }
        let objectiveHeader = objectiveName(r)
        // The objective's own column unless it is fresh@15m, which always has one.
        let extra = objectiveHeader == "fresh@15m" ? [] : [objectiveHeader]
        func triedTable(_ tried: [TriedSetting]) -> Block {
            // The gain over the fixed baseline, which --maximize fresh@τ ranks by (runs stored before it: none).
            let gains = tried.allSatisfy { $0.train.gainVsFixed != nil }
            let header =
                ["rank", "setting"] + extra + ["fresh@15m"] + (gains ? [gainHeader(r)] : []) + [
                    "J/day", "cell MB/day", "fetches/app/day", "feasible", "pareto",
                ]
            let rows = tried.enumerated().map { i, t in
                ["\(i + 1)", t.name] + (extra.isEmpty ? [] : [objectiveValue(t.train.objective, r)])
                    + [TextFormat.fixed(t.train.fresh15 * 100) + "%"]
                    + (gains ? [points(t.train.gainVsFixed ?? 0)] : []) + [
                        TextFormat.fixed(t.train.energyJoulesPerDay),
                        TextFormat.fixed(t.train.cellularMBPerDay, 2), TextFormat.fixed(t.train.fetchesPerAppDay, 2),
                        t.feasible ? "yes" : "no", t.pareto ? "*" : "",
                    ]
            }
            return .table(header, rows)
        }
        // One choice for every fold (runs since the choice is made over folds): the settings
        // ranked by their mean over the training parts, once.
        let oneChoice = r.ranking != nil && r.chosen != nil
        if oneChoice, r.folds.count > 1, let ranking = r.ranking {
            out.append(.line(""))
            out.append(
                .line(
                    "settings ranked by their mean over the \(r.folds.count) training parts (feasible: within the "
                        + "constraints on every one):"))
            out.append(triedTable(ranking))
            out.append(.line("* on the Pareto front of fresh@15m, energy and cellular (mean over the training parts)"))
            out.append(.line(chosenLine(chosen: r.chosen ?? "", bestFixed: r.bestFixed, overFolds: true)))
        }
        for (f, fold) in r.folds.enumerated() {
            out.append(.line(""))
            out.append(.line(r.folds.count > 1 ? "fold \(f + 1): \(fold.label)" : fold.label))
            if let parts = partsLine(fold) { out.append(.line(parts)) }
            if !oneChoice || r.folds.count == 1 {
                out.append(triedTable(fold.tried))
                out.append(.line("* on the Pareto front of fresh@15m, energy and cellular (train)"))
                out.append(.line(chosenLine(chosen: fold.chosen, bestFixed: fold.bestFixed)))
            }
            let held =
                ["held out", "setting"] + extra + [
                    "fresh@15m", "J/day", "cell MB/day", "fetches/app/day", "scored launches",
                ]
            let measured = heldOut(fold).map { (role, name, s) in
                [role, name] + (extra.isEmpty ? [] : [objectiveValue(s.objective, r)]) + [
                    TextFormat.fixed(s.fresh15 * 100) + "%", TextFormat.fixed(s.energyJoulesPerDay),
                    TextFormat.fixed(s.cellularMBPerDay, 2), TextFormat.fixed(s.fetchesPerAppDay, 2),
                    TextFormat.count(s.scoredLaunches),
                ]
            }
            out.append(.table(held, measured))
            for line in testLines(fold) { out.append(.line(line)) }
            out += groupBlocks(fold, objective: objectiveHeader)
        }
        out.append(.line(""))
        if r.folds.count > 1 {
            let c = r.chosenTest
            var line =
                "held-out \(objectiveHeader) over \(r.folds.count) folds: tuned \(r.family) mean \(spread(c, r))"
            if let b = r.bestFixedTest {
                line += ", best fixed mean \(spread(b, r))"
            }
            out.append(.line(line))
        }
        for line in summaryLines(r) { out.append(.line(line)) }
        // One search for every fold (a choice over folds): said once.
        let cutFolds = r.folds.enumerated().filter { $0.element.cutShort == true }
        for (f, fold) in oneChoice ? Array(cutFolds.prefix(1)) : cutFolds {
            out.append(
                .line(
                    "search cut short by the time budget\(r.folds.count > 1 && !oneChoice ? " in fold \(f + 1)" : ""): "
                        + "\(TextFormat.counted(fold.tried.count, "setting")) tried; the best of them was measured on held-out data"
                ))
        }
        out.append(
            .line(
                "replays: \(TextFormat.counted(r.replays, "setting")) replayed by the search"
                    + " (each at most once per fold; the fixed baselines and held-out runs not counted)"))
        let screened = r.folds.reduce(0) { $0 + $1.screened }
        if r.method == "halving" {
            out.append(
                .line(
                    "successive halving: \(TextFormat.counted(screened, "setting")) screened on shares of the users, "
                        + "a cost of \(TextFormat.fixed(r.replayCost, 1)) replays of all training users"))
        }
        guard !platform.isEmpty else { return out }
        out += [
            .line(""),
            .line("platform settings (each replayed under its platform's rules, \(platformPart(platform))):"),
        ]
        if let note = platform.first?.inputs.flatMap(platformNote) { out.append(.line("(\(note))")) }
        for o in platform {
            out.append(.item(platformLine(o)))
            out.append(.code(o.setting.snippet.split(separator: "\n").map(String.init), platform: o.setting.platform))
            if let note = o.setting.note { out.append(.note(note)) }
        }
        if let verdict = pushVerdict(platform) { out.append(.line(verdict)) }
        return out
    }

    /// `chosen on train: X; best fixed interval tuned the same way: Y` (over folds: `chosen by the
    /// mean over the folds' test parts: X; best fixed interval on the training parts: Y`).
    static func chosenLine(chosen: String, bestFixed: String?, overFolds: Bool = false) -> String {
        (overFolds
            ? "chosen by the mean over the folds' test parts (within the constraints on every one): \(chosen); "
                + "best fixed interval on the training parts: "
            : "chosen on train: \(chosen); best fixed interval tuned the same way: ")
            + (bestFixed ?? "none meets the constraints")
    }

    /// `users` with the right noun: `1 user`, `4 users`.
    static func users(_ n: Int) -> String { n == 1 ? "1 user" : "\(TextFormat.count(n)) users" }

    /// A fold's parts: `train: 3 users, 1,012 scored launches; test: 1 user (user_b), 342 scored launches`
    /// (nil: a run stored before the users were counted).
    static func partsLine(_ fold: TuningFold) -> String? {
        guard let train = fold.trainUsers, let test = fold.testUsers else { return nil }
        let names = fold.testUserNames.map { " (\($0.joined(separator: ", ")))" } ?? ""
        return "train: \(users(train)), \(TextFormat.count(fold.chosenTrain.scoredLaunches)) scored launches; "
            + "test: \(users(test))\(names), \(TextFormat.count(fold.chosenTest.scoredLaunches)) scored launches"
    }

    /// The gain column's title: `gain vs fixed@15m (pts)`.
    static func gainHeader(_ r: TuningResult) -> String {
        let tau =
            r.promise.map { TextFormat.fixed($0.tau.inMinutes, 0) + "m" }
            ?? objectiveName(r).replacingOccurrences(of: "fresh@", with: "")
        return "gain vs fixed@\(tau) (pts)"
    }

    /// Points, signed, one decimal: `+6.1`.
    static func points(_ x: Double) -> String {
        let p = (x * 1_000).rounded() / 10
        return (p > 0 ? "+" : p < 0 ? "" : "±") + TextFormat.fixed(p == 0 ? 0 : p)
    }

    /// `[+3.0, +9.2]` (points) or `[38.0, 47.1 %]` (percent); empty when there is no interval.
    static func interval(_ ci: [Double]?, percent: Bool) -> String {
        guard let ci, ci.count == 2 else { return " (no interval: one unit)" }
        return percent
            ? " [\(TextFormat.fixed(ci[0] * 100)), \(TextFormat.fixed(ci[1] * 100)) %]"
            : " [\(points(ci[0])), \(points(ci[1]))]"
    }

    /// The promise as two readable lines, training → held out: the fresh rate and the gain over
    /// the fixed baseline, each with its 95 % interval.
    static func promiseLines(_ p: TuningPromise, indent: String = "  ") -> [String] {
        let tau = "fresh@\(TextFormat.fixed(p.tau.inMinutes, 0))m"
        func pct(_ x: Double) -> String { TextFormat.fixed(x * 100) + " %" }
        return [
            indent + "\(tau): \(pct(p.training.fresh))\(interval(p.training.freshCI, percent: true)) on training → "
                + "\(pct(p.heldOut.fresh))\(interval(p.heldOut.freshCI, percent: true)) held out",
            indent
                + "gain over fixed: \(points(p.training.gainVsFixed)) points\(interval(p.training.gainCI, percent: false)) "
                + "on training → \(points(p.heldOut.gainVsFixed))\(interval(p.heldOut.gainCI, percent: false)) held out"
                + " (fixed baseline at \(TextFormat.fixed(p.training.fetchesPerAppDay, 2)) → "
                + "\(TextFormat.fixed(p.heldOut.fetchesPerAppDay, 2)) fetches/app/day)",
        ]
    }

    /// `95 % intervals over users (bootstrap, 1,000 resamples, seed 1)`, or over days of few users.
    static func promiseIntervalWords(_ p: TuningPromise) -> String {
        let over =
            p.intervalOver == .users
            ? "over users"
            : "over days of these users, not over users (fewer than \(TuningPromise.fewUsers) users in a part: "
                + "\(TuningRenderer.users(p.training.users)) training, \(TextFormat.count(p.heldOut.users)) held out)"
        return "95 % intervals \(over); bootstrap, \(TextFormat.count(p.resamples)) resamples, seed \(p.seed)"
    }

    /// A percentage with one decimal: `33.7 %`.
    static func percent(_ x: Double) -> String { TextFormat.fixed(x * 100) + " %" }

    /// `fresh@15m 33.7 % (95 % interval 21.2 % to 50.0 % over 4 test users)`, or with one user, that there is none.
    static func intervalText(_ i: HeldOutInterval) -> String {
        let tau = "fresh@\(TextFormat.fixed(i.tau.inMinutes, 0))m \(percent(i.fresh))"
        guard let low = i.low, let high = i.high else {
            return tau + " (one test user: no interval)"
        }
        return tau + " (95 % interval \(percent(low)) to \(percent(high)) over \(users(i.users)))"
    }

    /// Under a fold's held-out table: the tuned setting's test fresh rate and interval, each
    /// constraint checked on the test part, and a line when the test part holds one user.
    static func testLines(_ fold: TuningFold) -> [String] {
        var out: [String] = []
        var line = ""
        if let i = fold.testInterval { line = "tuned on the test part: " + intervalText(i) }
        if let checks = fold.constraintsOnTest, !checks.isEmpty {
            let words = checks.map { c in
                "\(c.constraint) \(c.held ? "held" : "missed") (\(c.value.map { TextFormat.fixed($0, 2) } ?? "not measured"))"
            }
            line += (line.isEmpty ? "on the test part: " : "; ") + words.joined(separator: ", ")
        }
        if !line.isEmpty { out.append(line) }
        if let p = fold.promise {
            out.append("promise of \(fold.chosen) on this fold (\(promiseIntervalWords(p))):")
            out += promiseLines(p)
        }
        if fold.testUsers == 1 {
            let name = fold.testUserNames?.first.map { " (\($0))" } ?? ""
            out.append("the test part holds one user\(name): its figures are that user's alone, not other users'")
        }
        return out
    }

    /// After the folds: how often each constraint held on the test parts, the pooled held-out
    /// fresh rate with its interval, and the warnings.
    static func summaryLines(_ r: TuningResult) -> [String] {
        var out: [String] = []
        let held = r.constraintsHeld
        if !held.isEmpty {
            out.append(
                "constraints on the test parts: "
                    + held.map {
                        "\($0.constraint) held on \($0.held) of \($0.folds) \($0.folds == 1 ? "fold" : "folds")"
                    }
                    .joined(separator: ", "))
        }
        if r.folds.count > 1, let own = r.ownPicksTest {
            let objective = objectiveName(r)
            let held = r.ownPicksConstraintsHeld.map { "\($0.constraint) held on \($0.held) of \($0.folds)" }
            out.append(
                "each fold's own pick (chosen on its training part alone, so its test part is unseen): held-out "
                    + "\(objective) mean \(spread(own, r))"
                    + (held.isEmpty ? "" : "; " + held.joined(separator: ", ")))
        }
        if let i = r.heldOut {
            let pooled = r.folds.count > 1 ? "all folds' test parts pooled" : "the test part"
            var line =
                "held out (\(pooled)): \(r.chosen ?? r.folds.last?.chosen ?? "") fresh@\(TextFormat.fixed(i.tau.inMinutes, 0))m "
                + "\(percent(i.fresh)) over \(TextFormat.count(i.scoredLaunches)) scored launches of \(users(i.users))"
            if let low = i.low, let high = i.high {
                line +=
                    ", 95 % interval \(percent(low)) to \(percent(high)) (bootstrap over the test users, "
                    + "\(TextFormat.count(i.resamples)) resamples, seed \(i.seed))"
            } else {
                line += "; one test user, so no interval"
            }
            out.append(line)
        }
        if r.folds.count > 1, let p = r.promise {
            let chosen = r.chosen ?? r.folds.last?.chosen ?? ""
            out.append("promise of \(chosen), all folds' parts pooled (\(promiseIntervalWords(p))):")
            out += promiseLines(p)
        }
        for w in r.warnings ?? [] { out.append("warning: \(w)") }
        return out
    }

    /// The objective's metric as a column title: `fresh@15m`, `energy`.
    static func objectiveName(_ r: TuningResult) -> String {
        r.objective.split(separator: " ").last.map(String.init) ?? "objective"
    }

    /// The fold's held-out rows: `tuned` and, when there is one, `best fixed`.
    static func heldOut(_ fold: TuningFold) -> [(role: String, name: String, summary: ScoreSummary)] {
        var out = [("tuned", fold.chosen, fold.chosenTest)]
        if let name = fold.ownPick, name != fold.chosen, let s = fold.ownPickTest {
            out.append(("fold's own pick", name, s))
        }
        if let name = fold.bestFixed, let s = fold.bestFixedTest { out.append(("best fixed", name, s)) }
        return out
    }

    static func text(_ blocks: [Block]) -> String {
        var lines: [String] = []
        for block in blocks {
            switch block {
            case .line(let s): lines.append(s)
            case .table(let header, let rows): lines += table(header, rows)
            case .item(let s): lines.append("  " + s)
            case .code(let code, _): lines += code.map { "      " + $0 }
            case .note(let s): lines.append("      (\(s))")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// `tune --format json`: the settings tried with train scores (`ranking`: their means over the
    /// folds' training parts; per fold `tried`), the chosen setting, its held-out score against the
    /// best fixed interval per fold with the constraints checked there (`constraints_on_test`,
    /// overall `constraints_held`), the test users and their bootstrap interval (`test_interval`,
    /// overall `held_out`), `warnings`, and the replays used (snake_case keys).
    public static func json(_ r: TuningResult) -> String {
        TextFormat.json(Document(result: r), keys: .convertToSnakeCase)
    }

    struct Document: Encodable {
        var result: TuningResult
        enum CodingKeys: String, CodingKey {
            case family, method, objective, constraints, folds, replays, replayCost, chosenTest, bestFixedTest
            case split, ranking, chosen, bestFixed, heldOut, constraintsHeld, widened, warnings
            case ownPicksTest, ownPicksConstraintsHeld, promise, rankedBy
        }
        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(result.family, forKey: .family)
            try c.encode(result.method, forKey: .method)
            try c.encode(result.objective, forKey: .objective)
            try c.encode(result.constraints, forKey: .constraints)
            try c.encode(result.folds, forKey: .folds)
            try c.encode(result.replays, forKey: .replays)
            try c.encode(result.replayCost, forKey: .replayCost)
            try c.encode(result.chosenTest, forKey: .chosenTest)
            try c.encode(result.bestFixedTest, forKey: .bestFixedTest)
            try c.encodeIfPresent(result.split, forKey: .split)
            try c.encodeIfPresent(result.ranking, forKey: .ranking)
            try c.encodeIfPresent(result.chosen, forKey: .chosen)
            try c.encodeIfPresent(result.bestFixed, forKey: .bestFixed)
            try c.encodeIfPresent(result.heldOut, forKey: .heldOut)
            try c.encode(result.constraintsHeld, forKey: .constraintsHeld)
            try c.encodeIfPresent(result.widened, forKey: .widened)
            try c.encode(result.warnings ?? [], forKey: .warnings)
            try c.encodeIfPresent(result.ownPicksTest, forKey: .ownPicksTest)
            try c.encode(result.ownPicksConstraintsHeld, forKey: .ownPicksConstraintsHeld)
            try c.encodeIfPresent(result.promise, forKey: .promise)
            try c.encodeIfPresent(result.rankedBy, forKey: .rankedBy)
        }
    }

    /// A mean over folds and its range: `39.9 % (36.3 to 44.6 %)` for a fresh rate, as fresh rates
    /// are written everywhere else; `12.300 (10.100 to 14.000)` for another objective.
    static func spread(_ s: Spread, _ r: TuningResult) -> String {
        guard objectiveName(r).hasPrefix("fresh@") else {
            return "\(number(s.mean)) (\(number(s.min)) to \(number(s.max)))"
        }
        return "\(percent(s.mean)) (\(TextFormat.fixed(s.min * 100)) to \(percent(s.max)))"
    }

    /// One value of the objective: `39.9%` for a fresh rate (as in the fresh@15m column), else a number.
    static func objectiveValue(_ x: Double, _ r: TuningResult) -> String {
        objectiveName(r).hasPrefix("fresh@") ? TextFormat.fixed(x * 100) + "%" : number(x)
    }

    static func number(_ x: Double) -> String { abs(x) >= 100 ? TextFormat.fixed(x, 1) : TextFormat.fixed(x, 3) }

    /// Left-aligned first two columns, the rest right-aligned.
    static func table(_ header: [String], _ rows: [[String]]) -> [String] {
        let all = [header] + rows
        let widths = header.indices.map { c in all.map { $0[c].count }.max() ?? 0 }
        return all.map { row in
            var line = row.indices.map { c in
                TextFormat.pad(row[c], widths[c], right: c >= 2 || (c == 0 && header[0] == "rank"))
            }.joined(separator: "  ")
            while line.hasSuffix(" ") { line.removeLast() }
            return line
        }
    }

    /// The per-app recommendation and the groups of users, on held-out data against the overall choice.
    static func groupBlocks(_ fold: TuningFold, objective: String) -> [Block] {
        var out: [Block] = []
        func pct(_ x: Double) -> String { TextFormat.fixed(x * 100) + "%" }
        func gain(_ g: GroupRecommendation) -> String {
            objective.hasPrefix("fresh@") ? TextFormat.fixed(g.gain * 100, 1) + " pp" : number(g.gain)
        }
        let header = ["", "setting", "held out: fresh@15m", "overall's", "J/day", "overall's", "gain"]
        func row(_ g: GroupRecommendation) -> [String] {
            [
                g.group, g.chosen, pct(g.chosenTest.fresh15), pct(g.globalTest.fresh15),
                TextFormat.fixed(g.chosenTest.energyJoulesPerDay), TextFormat.fixed(g.globalTest.energyJoulesPerDay),
                gain(g),
            ]
        }
        if let p = fold.perApp {
            out.append(.line(""))
            out.append(
                .line("per app (settings chosen together under the constraints; other apps keep \(fold.chosen)):"))
            var h = header
            h[0] = "app"
            out.append(.table(h, fold.groups.filter { $0.kind == .app }.map(row)))
            out.append(
                .line(
                    "the per-app policy: train (replayed) \(pct(p.train.fresh15)) fresh@15m at "
                        + "\(TextFormat.fixed(p.train.energyJoulesPerDay)) J/day"
                        + (p.feasibleOnTrain ? " (meets the constraints)" : " (misses the constraints)")
                        + "; held out \(pct(p.test.fresh15)) at \(TextFormat.fixed(p.test.energyJoulesPerDay)) J/day, "
                        + "\(TextFormat.fixed(p.test.fetchesPerAppDay, 2)) fetches/app/day, against "
                        + "\(pct(fold.chosenTest.fresh15)) at \(TextFormat.fixed(fold.chosenTest.energyJoulesPerDay)) J/day for \(fold.chosen)"
                ))
        }
        let users = fold.groups.filter { $0.kind == .users }
        if !users.isEmpty {
            out.append(.line(""))
            out.append(
                .line("per group of users (by launches per day on the training days; each group's own best setting):"))
            var h = header
            h[0] = "users"
            out.append(.table(h, users.map(row)))
        }
        return out
    }
}
