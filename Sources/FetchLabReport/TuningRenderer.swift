import FetchLabSimulation
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
        /// Code, indented further.
        case code([String])
        /// A remark on the item above, in parentheses.
        case note(String)
    }

    /// The report as blocks: the heading, per fold the settings tried and the held-out comparison,
    /// the spread over folds, the replays, then the platform settings.
    static func blocks(_ r: TuningResult, platform: [PlatformOutcome]) -> [Block] {
        var out: [Block] = []
        let subject = r.constraints.isEmpty ? "" : " subject to \(r.constraints.joined(separator: ","))"
        out.append(.line("tune \(r.family) (\(r.method) search): \(r.objective)\(subject)"))
        let objectiveHeader = objectiveName(r)
        for (f, fold) in r.folds.enumerated() {
            out.append(.line(""))
            out.append(.line(r.folds.count > 1 ? "fold \(f + 1): \(fold.label)" : fold.label))
            // The objective's own column unless it is fresh@15m, which always has one.
            let extra = objectiveHeader == "fresh@15m" ? [] : [objectiveHeader]
            let header =
                ["rank", "setting"] + extra + [
                    "fresh@15m", "J/day", "cell MB/day", "fetches/app/day", "feasible", "pareto",
                ]
            var rows: [[String]] = []
            for (i, t) in fold.tried.enumerated() {
                rows.append(
                    ["\(i + 1)", t.name] + (extra.isEmpty ? [] : [number(t.train.objective)]) + [
                        TextFormat.fixed(t.train.fresh15 * 100) + "%", TextFormat.fixed(t.train.energyJoulesPerDay),
                        TextFormat.fixed(t.train.cellularMBPerDay, 2), TextFormat.fixed(t.train.fetchesPerAppDay, 2),
                        t.feasible ? "yes" : "no", t.pareto ? "*" : "",
                    ])
            }
            out.append(.table(header, rows))
            out.append(.line("* on the Pareto front of fresh@15m, energy and cellular (train)"))
            out.append(
                .line(
                    "chosen on train: \(fold.chosen); best fixed interval tuned the same way: "
                        + (fold.bestFixed ?? "none meets the constraints")))
            let held =
                ["held out", "setting"] + extra + [
                    "fresh@15m", "J/day", "cell MB/day", "fetches/app/day", "scored launches",
                ]
            let measured = heldOut(fold).map { (role, name, s) in
                [role, name] + (extra.isEmpty ? [] : [number(s.objective)]) + [
                    TextFormat.fixed(s.fresh15 * 100) + "%", TextFormat.fixed(s.energyJoulesPerDay),
                    TextFormat.fixed(s.cellularMBPerDay, 2), TextFormat.fixed(s.fetchesPerAppDay, 2),
                    TextFormat.count(s.scoredLaunches),
                ]
            }
            out.append(.table(held, measured))
            out += groupBlocks(fold, objective: objectiveHeader)
        }
        out.append(.line(""))
        if r.folds.count > 1 {
            let c = r.chosenTest
            var line =
                "held-out \(objectiveHeader) over \(r.folds.count) folds: tuned \(r.family) mean \(number(c.mean)) (\(number(c.min)) to \(number(c.max)))"
            if let b = r.bestFixedTest {
                line += ", best fixed mean \(number(b.mean)) (\(number(b.min)) to \(number(b.max)))"
            }
            out.append(.line(line))
        }
        for (f, fold) in r.folds.enumerated() where fold.cutShort == true {
            out.append(
                .line(
                    "search cut short by the time budget\(r.folds.count > 1 ? " in fold \(f + 1)" : ""): "
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
            out.append(.code(o.setting.snippet.split(separator: "\n").map(String.init)))
            if let note = o.setting.note { out.append(.note(note)) }
        }
        if let verdict = pushVerdict(platform) { out.append(.line(verdict)) }
        return out
    }

    /// What the platform settings were replayed on: `held out: test … to …, 1,000 of 10,000 users …`.
    static func platformPart(_ platform: [PlatformOutcome]) -> String {
        guard let part = platform.first?.part else { return "whole scored span" }
        return "held out: \(part)"
    }

    /// `ios: setting — modelled as model: fresh 41.2%, 2.10 fetches/app/day, 3.2 J/day, 0 refused`;
    /// with how the platform replayed it (`… modelled as fixed(15m), replayed as …`) and the
    /// refusals by reason (`12 refused (daily wake budget 12)`) when known.
    static func platformLine(_ o: PlatformOutcome) -> String {
        let replayed = o.setting.replayedAs.map { " (replayed as iOS runs it: \($0))" } ?? ""
        let reasons = (o.skips ?? [:]).compactMap { k, v in SkipReason(rawValue: k).map { ($0, v) } }
            .filter { $0.1 > 0 }.sorted { $0.0 < $1.0 }.map { "\($0.0.label) \(TextFormat.count($0.1))" }
        return
            "\(o.setting.platform.rawValue): \(o.setting.setting) — modelled as \(o.setting.model)\(replayed): fresh "
            + String(format: "%.1f%%", o.fresh * 100) + ", " + String(format: "%.2f", o.fetchesPerAppDay)
            + " fetches/app/day, " + String(format: "%.1f", o.joulesPerDay)
            + " J/day, \(TextFormat.count(o.skipped)) refused"
            + (reasons.isEmpty ? "" : " (\(reasons.joined(separator: ", ")))")
    }

    /// One line when the logs the platform settings were replayed on hold nothing for the
    /// platforms' device rules; nil otherwise.
    public static func platformNote(_ inputs: PlatformInputs) -> String? {
        guard inputs.isInert else { return nil }
        return "no context samples, force-quits or refresh switches in the logs of the "
            + "\(TextFormat.counted(inputs.users, "user")) read: the iOS and Android rules on battery, power saving, "
            + "network, force-quit and refresh switch had nothing to act on; only their scheduling rules applied"
    }

    /// The objective's metric as a column title: `fresh@15m`, `energy`.
    static func objectiveName(_ r: TuningResult) -> String {
        r.objective.split(separator: " ").last.map(String.init) ?? "objective"
    }

    /// The fold's held-out rows: `tuned` and, when there is one, `best fixed`.
    static func heldOut(_ fold: TuningFold) -> [(role: String, name: String, summary: ScoreSummary)] {
        var out = [("tuned", fold.chosen, fold.chosenTest)]
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
            case .code(let code): lines += code.map { "      " + $0 }
            case .note(let s): lines.append("      (\(s))")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// `tune --format json`: the settings tried with train scores, the chosen setting, its
    /// held-out score against the best fixed interval, and the replays used (snake_case keys).
    public static func json(_ r: TuningResult) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        guard let data = try? encoder.encode(Document(result: r)) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    struct Document: Encodable {
        var result: TuningResult
        enum CodingKeys: String, CodingKey {
            case family, method, objective, constraints, folds, replays, replayCost, chosenTest, bestFixedTest
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
        }
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
            objective == "fresh@15m" ? TextFormat.fixed(g.gain * 100, 1) + " pp" : number(g.gain)
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

    /// Whether silent push serves better than the freshest other iOS setting: fresher at no more
    /// energy, or not (nil: push was not replayed, for lack of content-update times).
    public static func pushVerdict(_ platform: [PlatformOutcome]) -> String? {
        guard let push = platform.first(where: { $0.setting.model.hasPrefix("push(") }),
            let other = platform.filter({ $0.setting.platform == .ios && $0 != push }).max(by: { $0.fresh < $1.fresh })
        else { return nil }
        let serves = push.fresh >= other.fresh && push.joulesPerDay <= other.joulesPerDay
        let word =
            serves
            ? "serves better than"
            : (push.fresh >= other.fresh ? "is fresher but costs more than" : "serves worse than")
        return "silent push \(word) \(other.setting.model) on iOS: fresh " + String(format: "%.1f%%", push.fresh * 100)
            + " at " + String(format: "%.1f", push.joulesPerDay) + " J/day against "
            + String(format: "%.1f%%", other.fresh * 100) + " at " + String(format: "%.1f", other.joulesPerDay)
            + " J/day"
    }
}
