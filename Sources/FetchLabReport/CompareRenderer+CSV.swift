import FetchLabResults

extension CompareRenderer {
    /// `compare --format csv`: a header line, then one row per policy in the report's order, one
    /// column per metric (the JSON keys: `fresh_<τ>m` per τ of the settings, `skipped` for all
    /// skips and `skips_<reason>` per reason). Empty fields are nulls; numbers keep every digit;
    /// fields are quoted as RFC 4180 says (lines end with LF).
    public static func csv(_ r: ComparisonReport) -> String {
        let freshKeys = r.settings.tausMinutes.map { PolicyMetrics.freshKey(minutes: $0) }
        var header = ["name", "family", "scope", "scored_launches"] + freshKeys
        header += [
            "fetches_per_app_day", "fresh_ci_low", "fresh_ci_high", "fresh_ci_over", "gain_vs_fixed", "share_of_possible",
            "energy_j_per_day", "battery_pct_per_day", "cellular_mb_per_day",
            "wasted_fetches", "skipped", "wasted_share", "fetches", "fetches_low_battery", "content_fresh",
            "staleness_median_min", "staleness_p90_min", "lead_median_min",
        ]
        header += SkipReason.allCases.map { "skips_\($0.rawValue)" }
        var lines = [header.map(csvField).joined(separator: ",")]
        for p in r.policies {
            let m = p.metrics
            let fresh = Dictionary(zip(m.freshKeys, m.fresh), uniquingKeysWith: { a, _ in a })
            var cells = [p.name, p.family, p.scope.rawValue, "\(m.scoredLaunches)"] + freshKeys.map { number(fresh[$0]) }
            cells += [
                number(m.fetchesPerAppDay), number(m.freshInterval?.low), number(m.freshInterval?.high),
                m.freshInterval == nil ? "" : (r.budget?.intervalOver ?? .users).rawValue, number(m.gainVsFixed), number(m.shareOfPossible), number(m.energyJoulesPerDay),
                number(m.batteryPercentPerDay), number(m.cellularMBPerDay), "\(m.wastedFetches)", "\(m.skipped)",
                number(m.wastedShare), "\(m.fetches)", "\(m.lowBatteryFetches)", number(m.contentFresh),
                number(m.stalenessMedianMinutes), number(m.stalenessP90Minutes), number(m.leadMedianMinutes),
            ]
            cells += SkipReason.allCases.map { "\(m.skips[$0] ?? 0)" }
            lines.append(cells.map(csvField).joined(separator: ","))
        }
        return lines.joined(separator: "\n")
    }

    /// Every digit (Swift's shortest exact form: `0.8125`, `24.0`); empty for nil.
    static func number(_ x: Double?) -> String { x.map { "\($0)" } ?? "" }

    /// A field quoted when it holds a comma, a quote or a line break (quotes doubled).
    static func csvField(_ s: String) -> String {
        guard s.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) else { return s }
        return "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
