import FetchLabCore
import FetchLabResults

/// What `fetchlab describe` reports: the population pooled, and one description per user when asked.
public struct DescribeReport: Encodable, Sendable {
    /// One user's own description.
    public struct UserRow: Encodable, Sendable {
        public var user: String
        public var statistics: UsageDescription

        public init(user: String, statistics: UsageDescription) {
            self.user = user
            self.statistics = statistics
        }
    }

    public var population: UsageDescription
    /// Empty unless asked for (`--per-user`).
    public var perUser: [UserRow]
    /// The signal events of the users described, per kind (nil when not counted).
    public var signals: SignalCounts?
    /// The per-signal ceilings with no budget, under the protocol's defaults (nil: not computed).
    public var ceilings: SignalCeilings?

    public init(
        population: UsageDescription, perUser: [UserRow] = [], signals: SignalCounts? = nil,
        ceilings: SignalCeilings? = nil
    ) {
        self.population = population
        self.perUser = perUser
        self.signals = signals
        self.ceilings = ceilings
    }
}

/// `describe`'s text: two-column tables (statistic, value) under short headings, then a table of
/// users when there are per-user rows.
public enum DescribeRenderer {
    public static func text(_ report: DescribeReport) -> String {
        let d = report.population
        let window = "\(UsageDescription.window / Microseconds.perMinute) min"
        let regular = "≥ \(UsageDescription.regularMinimumLaunches) launches"
        var sections: [(String, [(String, String)])] = [
            (
                "Population",
                [
                    ("users", TextFormat.count(d.users)), ("launches", TextFormat.count(d.launches)),
                    ("apps (user-app pairs)", TextFormat.count(d.apps)), ("user-days", TextFormat.count(d.userDays)),
                ]
            ),
            (
                "Launch classes (of all launches)",
                [
                    ("cold session start", percent(d.classes.coldShare)),
                    ("same-app return (≤ \(window))", percent(d.classes.sameAppShare)),
                    ("after another app", percent(d.classes.afterOtherAppShare)),
                ]
            ),
            (
                "Same-app gap (\(TextFormat.counted(d.sameAppGaps.count, "gap")))",
                [
                    ("p10", minutes(d.sameAppGaps.p10)), ("p25", minutes(d.sameAppGaps.p25)),
                    ("median", minutes(d.sameAppGaps.median)), ("p75", minutes(d.sameAppGaps.p75)),
                    ("p90", minutes(d.sameAppGaps.p90)),
                ]
            ),
            (
                "Sessions (split at gaps > \(window))",
                [
                    ("sessions", TextFormat.count(d.sessions.count)),
                    ("distinct apps per session, mean", TextFormat.fixed(d.sessions.appsMean, 2)),
                    ("distinct apps per session, p90", TextFormat.fixed(d.sessions.appsP90, 1)),
                    ("launches per session, mean", TextFormat.fixed(d.sessions.launchesMean, 2)),
                    ("length, median", minutes(d.sessions.lengthMedianMinutes)),
                    ("length, p90", minutes(d.sessions.lengthP90Minutes)),
                ]
            ),
            (
                "Launch rates",
                [
                    ("regular apps (\(regular))", TextFormat.count(d.rates.regularApps)),
                    ("launches per app-day, median of regular apps", TextFormat.fixed(d.rates.perAppDayMedian, 2)),
                    ("launches per user-day", TextFormat.fixed(d.rates.perUserDay, 2)),
                ]
            ),
            (
                "Regularity (launches inside an app's usual one-hour windows; regular apps)",
                [
                    ("pooled share", percent(d.regularity.pooledShare)),
                    ("median share per app", percent(d.regularity.medianShare)),
                ]
            ),
            (
                "Weekday and weekend (local)",
                [
                    ("launches per weekday", TextFormat.fixed(d.weekdayWeekend.perWeekday, 2)),
                    ("launches per weekend day", TextFormat.fixed(d.weekdayWeekend.perWeekendDay, 2)),
                    ("weekend ÷ weekday", TextFormat.fixed(d.weekdayWeekend.weekendToWeekdayRatio, 2)),
                    (
                        "hour-profile distance (0 same, 1 disjoint)",
                        TextFormat.fixed(d.weekdayWeekend.hourProfileDistance, 3)
                    ),
                ]
            ),
            (
                "Hour-of-day entropy (bits, at most 4.58)",
                [
                    ("all launches", TextFormat.fixed(d.hourEntropy.pooledBits, 2)),
                    ("median of regular apps", TextFormat.fixed(d.hourEntropy.regularAppMedianBits, 2)),
                ]
            ),
            (
                "Transitions (consecutive launches ≤ \(window) apart)",
                [
                    ("pairs", TextFormat.count(d.transitions.pairs)),
                    ("next app is the usual successor", percent(d.transitions.top1Share)),
                    ("next app among the 3 usual successors", percent(d.transitions.top3Share)),
                ]
            ),
        ]
        if let signals = report.signals { sections.append(signalSection(signals)) }
        let width = sections.flatMap { $0.1.map(\.0.count) }.max() ?? 0
        var lines: [String] = []
        for (heading, rows) in sections + ceilings(report.ceilings) {
            if !lines.isEmpty { lines.append("") }
            lines.append(heading)
            for (name, value) in rows { lines.append("  " + TextFormat.pad(name, width) + "  " + value) }
        }
        if !report.perUser.isEmpty {
            lines.append("")
            lines.append(userTable(report.perUser))
        }
        return lines.joined(separator: "\n")
    }

    /// The unlimited-budget ceilings as one more section (none without them).
    static func ceilings(_ c: SignalCeilings?) -> [(String, [(String, String)])] {
        guard let c, !c.sets.isEmpty else { return [] }
        let m = c.tau.inMinutes
        let tau = m == m.rounded() ? "\(Int(m)) min" : "\(m) min"
        return [
            (
                "Ceilings (fresh@\(tau) of a clairvoyant scheduler fetching only at these moments, no budget; "
                    + "launch refreshes \(c.launchRefreshes ? "on" : "off"); evaluated apps after the warm-up)",
                c.sets.map { s in
                    (s.set.label, s.signalsPresent ? percent(s.unlimited) : "none in these logs (as the row above)")
                }
            )
        ]
    }

    /// The signal events per kind, with their users: whether a figure that acts on a signal has
    /// anything to act on.
    static func signalSection(_ counts: SignalCounts) -> (String, [(String, String)]) {
        ("Signals (moments before use, not launches)", SignalCounts.kinds.map { (signalName($0), tally(counts[$0])) })
    }

    /// A signal kind in words: `unlock`, `screen on`, `notification`, `system UI`.
    static func signalName(_ kind: UsageEventKind) -> String {
        kind == .systemUI ? "system UI" : kind.name.replacingOccurrences(of: "_", with: " ")
    }

    /// A kind's events, and its users when there are any: `2 (1 user)`, `0`.
    static func tally(_ t: SignalCounts.Tally) -> String {
        TextFormat.count(t.events) + (t.events > 0 ? " (\(TextFormat.counted(t.users, "user")))" : "")
    }

    /// One row per user: launches, days, the classes, the median same-app gap, apps per session,
    /// regularity, hour entropy and the top-1 transition share.
    public static func userTable(_ rows: [DescribeReport.UserRow]) -> String {
        let users = rows.map { TextFormat.escaped($0.user) }
        let userWidth = max(4, users.map(\.count).max() ?? 4)
        let columns: [(String, Int)] = [
            ("launches", 8), ("days", 5), ("cold", 6), ("same", 6), ("other", 6), ("gap p50", 10),
            ("apps/sess", 9), ("regular", 7), ("entropy", 7), ("top-1", 6),
        ]
        var lines = [
            TextFormat.pad("user", userWidth) + columns.map { "  " + TextFormat.pad($0.0, $0.1, right: true) }.joined()
        ]
        for (row, user) in zip(rows, users) {
            let d = row.statistics
            let values = [
                TextFormat.count(d.launches), TextFormat.count(d.userDays), percent(d.classes.coldShare),
                percent(d.classes.sameAppShare), percent(d.classes.afterOtherAppShare),
                minutes(d.sameAppGaps.median, hours: false), TextFormat.fixed(d.sessions.appsMean, 2),
                percent(d.regularity.pooledShare), TextFormat.fixed(d.hourEntropy.pooledBits, 2),
                percent(d.transitions.top1Share),
            ]
            lines.append(
                TextFormat.pad(user, userWidth)
                    + zip(columns, values).map { "  " + TextFormat.pad($1, $0.1, right: true) }.joined())
        }
        lines.append("")
        lines.append(
            "Per user: cold/same/other are the launch classes, gap p50 the median same-app gap, "
                + "regular the pooled regularity of the user's regular apps, top-1 the usual-successor share.")
        return lines.joined(separator: "\n")
    }

    /// `25.1%`; `–` for nil.
    static func percent(_ x: Double?) -> String { x.map { TextFormat.fixed($0 * 100, 1) + "%" } ?? "–" }

    /// `51.9 min`, with hours beside from two hours up: `310.0 min (5.2 h)`; `–` for nil.
    static func minutes(_ x: Double?, hours: Bool = true) -> String {
        guard let x else { return "–" }
        let text = TextFormat.fixed(x, 1) + " min"
        return hours && x >= 120 ? text + " (\(TextFormat.fixed(x / 60, 1)) h)" : text
    }
}
