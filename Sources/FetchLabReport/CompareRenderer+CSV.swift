import FetchLabResults

extension CompareRenderer {
    /// A column group of the CSV: an entry of `Metric.table`, or a figure that is not one.
    enum CSVColumn {
        case metric(Metric.ID)
        /// `fresh_<τ>m` per τ of the settings.
        case fresh
        /// `fresh_ci_low`, `fresh_ci_high`, `fresh_ci_over`.
        case freshInterval
        /// All skip reasons.
        case skipped
        /// `skips_<reason>` per reason.
        case skips
    }

    /// The CSV's column order since it was first written; the table's entries not named here follow
    /// at the end, in table order (``csvColumnOrder``).
    static let csvLayout: [CSVColumn] = [
        .metric(.scoredLaunches), .fresh, .metric(.fetchesPerAppDay), .freshInterval, .metric(.gainVsFixed),
        .metric(.shareOfPossible), .metric(.energy), .metric(.battery), .metric(.cellular), .metric(.wastedFetches),
        .skipped, .metric(.wastedShare), .metric(.fetches), .metric(.lowBatteryFetches), .metric(.contentFresh),
        .metric(.stalenessMedian), .metric(.stalenessP90), .metric(.leadMedian), .skips,
    ]

    /// ``csvLayout``, then every other entry of the table.
    static var csvColumnOrder: [CSVColumn] {
        let named = Set(csvLayout.compactMap { if case .metric(let id) = $0 { id } else { nil } })
        return csvLayout + Metric.table.filter { !named.contains($0.id) }.map { .metric($0.id) }
    }

    /// `compare --format csv`: a header line, then one row per policy in the report's order, one
    /// column per metric (the JSON keys: `fresh_<τ>m` per τ of the settings, `skipped` for all
    /// skips and `skips_<reason>` per reason, then any metric the table lists after these). Empty
    /// fields are nulls; numbers keep every digit; fields are quoted as RFC 4180 says (lines end
    /// with LF).
    public static func csv(_ r: ComparisonReport) -> String {
        let taus = r.settings.taus
        let columns = csvColumnOrder
        var header = ["name", "family", "scope"]
        for column in columns {
            switch column {
            case .metric(let id): header.append(id.metric.key)
            case .fresh: header += r.settings.taus.map { FreshKey.key($0) }
            case .freshInterval: header += ["fresh_ci_low", "fresh_ci_high", "fresh_ci_over"]
            case .skipped: header.append("skipped")
            case .skips: header += SkipReason.allCases.map { "skips_\($0.rawValue)" }
            }
        }
        var lines = [header.map(csvField).joined(separator: ",")]
        for p in r.policies {
            let m = p.metrics
            var cells = [p.name, p.family, p.scope.rawValue]
            for column in columns {
                switch column {
                case .metric(let id):
                    let value = m[id]
                    cells.append(id.metric.kind == .count ? "\(Int(value ?? 0))" : number(value))
                case .fresh: cells += taus.map { number(m.fresh(tau: $0)) }
                case .freshInterval:
                    cells += [
                        number(m.freshInterval?.low), number(m.freshInterval?.high),
                        m.freshInterval == nil ? "" : (r.budget?.intervalOver ?? .users).rawValue,
                    ]
                case .skipped: cells.append("\(m.skipped)")
                case .skips: cells += SkipReason.allCases.map { "\(m.skips[$0] ?? 0)" }
                }
            }
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
