import FetchLabCore
import FetchLabResults

/// `predict`'s text output.
public enum PredictionRenderer {
    /// `HH:MM` on the user's clock, `+Nd` when on a later local day than the origin.
    public static func clock(_ t: Instant, offset: Int, origin: Instant) -> String {
        let o = Int32(offset)
        let days = LocalCalendar.day(t, offset: o) - LocalCalendar.day(origin, offset: o)
        return TextFormat.clock(localSeconds: LocalCalendar.localSeconds(t, offset: o)) + (days > 0 ? " +\(days)d" : "")
    }

    /// `2024-04-15 08:00 (+02:00)`.
    public static func stamp(_ t: Instant, offset: Int) -> String {
        let local = LocalCalendar.localSeconds(t, offset: Int32(offset))
        let date = CivilDate(daysSince1970: LocalCalendar.day(localSeconds: local))
        return "\(date) \(TextFormat.clock(localSeconds: local)) (\(TextFormat.offset(offset)))"
    }

    public static func text(_ r: PredictionReport) -> String {
        let minutes = Int(r.horizon / .perMinute)
        let horizon = minutes % 60 == 0 ? "\(minutes / 60) h" : "\(minutes) min"
        var lines = [
            "\(TextFormat.escaped(r.user)) from \(stamp(r.origin, offset: r.utcOffset)), next \(horizon); "
                + "lead \(Int(r.lead.inMinutes)) min; p: chance of a launch within \(Int(r.freshness.inMinutes)) min after the fetch; "
                + "blend of \(TextFormat.weights(r.blendWeights, skippingZero: true))"
        ]
        let apps = r.apps.map { TextFormat.escaped($0.app) }
        let width = max(20, (apps.map(\.count).max() ?? 0) + 2)
        let at = { (t: Instant) in clock(t, offset: r.utcOffset, origin: r.origin) }
        for (row, app) in zip(r.apps, apps) {
            let name = TextFormat.pad(app, width)
            if row.fetches.isEmpty {
                if let next = row.expectedNext {
                    lines.append(
                        "\(name)no fetch    next use expected \(at(next)), "
                            + "\(TextFormat.percent(row.probability)) likely within \(horizon)"
                            + (row.noFetchReason.map { "; \($0)" } ?? ""))
                } else {
                    lines.append("\(name)no fetch    no use expected")
                }
            }
            for f in row.fetches {
                let half = (f.intervalHigh - f.intervalLow).inMinutes / 2
                var line =
                    "\(name)fetch \(at(f.fetchAt))  → use expected \(at(f.expectedUse)) "
                    + "(±\(Int(half.rounded())) min, p=\(TextFormat.fixed(f.probability, 2)))"
                if let o = f.outlook, o.assumed {
                    line += "; \(assumedContext()), ≈ \(TextFormat.fixed(o.joules, 1)) J"
                } else if let o = f.outlook {
                    line +=
                        "; usually \(TextFormat.percent(o.wifi)) Wi-Fi, \(TextFormat.percent(o.cellular)) cellular"
                        + (o.charging > 0 ? ", \(TextFormat.percent(o.charging)) charging" : "")
                        + " then, ≈ \(TextFormat.fixed(o.joules, 1)) J"
                }
                lines.append(line)
            }
        }
        return lines.joined(separator: "\n")
    }

    /// `no context samples: assumed Wi-Fi, 80 %, not charging`: the defaults a fetch's outlook
    /// comes from when the user has no context sample.
    public static func assumedContext(_ d: ContextDefaults = ContextDefaults()) -> String {
        "no context samples: assumed \(d.network == .wifi ? "Wi-Fi" : d.network.name), "
            + "\(TextFormat.decimal(d.battery)) %, \(d.charging ? "charging" : "not charging")"
    }

    /// The one-line summary of a prediction for every user.
    public static func summary(
        users: Int, launches: Int, apps: Int, fetches: Int, fittedOn: Int, fitSeconds: Double, totalSeconds: Double
    ) -> String {
        "\(TextFormat.count(users)) users, \(TextFormat.count(launches)) launches, \(TextFormat.count(apps)) apps: "
            + "\(TextFormat.count(fetches)) fetches planned for the day after each log "
            + "(blend fitted on \(fittedOn) users in \(TextFormat.seconds(fitSeconds)); "
            + "\(TextFormat.seconds(totalSeconds)) in all)"
    }
}
