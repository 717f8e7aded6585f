import FetchLabCore
import FetchLabResults

extension CompareRenderer {
    /// Under iOS, the line under the table: how requested intervals and the wake budget were
    /// replayed (nil under the other platforms).
    public static func systemLine(_ p: PlatformModel) -> String? {
        systemRules(p).map { "platform ios: " + $0 }
    }

    /// ``systemLine(_:)`` without its label.
    static func systemRules(_ p: PlatformModel) -> String? {
        guard p.kind == .ios else { return nil }
        let lead = Quantity.format(duration: p.iosSystemLead)
        let floor = Quantity.format(duration: max(p.iosMinimumInterval, PlatformModel.iosPlatformMinimum))
        var line =
            "fixed(T) asks for a minimum interval (setMinimumBackgroundFetchInterval), a floor: "
            + "it was replayed as iOS's scheduler runs it, ios-adaptive(\(lead), max(T, \(floor))), "
            + "what it ran counted, its ticks not requests (the app asked for nothing then)"
        if p.iosWakeBudgetMax > 0 {
            line +=
                "; every background fetch within a daily wake budget per app of \(TextFormat.decimal(p.iosWakeBudgetPerLaunch)) "
                + "per launch a day over the previous \(Quantity.format(duration: p.iosWakeBudgetWindow)), "
                + "\(p.iosWakeBudgetMin) to \(p.iosWakeBudgetMax) (none for an app not launched in that time)"
        } else {
            line += "; no daily wake budget"
        }
        return line + "; only requests the app made (a submitted task, a push) count as refused ("
            + SkipReason.systemBudget.label + " among the reasons)"
    }

    /// The cost columns' titles (energy, battery, cellular data), marked "*" when some users'
    /// context is assumed (no context samples, or none at the time of their launches): those
    /// users' fetches are costed on the context defaults, not on what their device was doing.
    static func costColumns(_ s: ComparisonSettings) -> [String] {
        let mark = s.usersWithoutContext > 0 ? "*" : ""
        return ["J/day", "battery/day", "cell MB/day"].map { $0 + mark }
    }

    /// The footnote of the "*" on the cost columns (`costColumns(_:)`); nil when every user's
    /// context was observed.
    public static func assumedCostNote(_ s: ComparisonSettings) -> String? {
        guard s.usersWithoutContext > 0 else { return nil }
        return "* cost assumed for \(s.usersWithoutContext) of \(TextFormat.counted(s.users, "user")): "
            + "J/day, battery/day and cell MB/day cost their fetches on the context defaults "
            + "(\(PredictionRenderer.assumedContext(s.contextDefaults))), not on observed context"
    }

    /// One line when the platform's device rules read assumed context, not observed, for some users
    /// (they have no context sample); nil under `none` or when every user has samples.
    public static func assumedContextNote(_ s: ComparisonSettings) -> String? {
        guard s.platformRules.kind != .none, s.usersWithoutContext > 0 else { return nil }
        return
            "platform \(s.platformRules.kind.rawValue): its battery, power-saving and network rules read assumed context, "
            + "not observed, for \(TextFormat.count(s.usersWithoutContext)) of \(TextFormat.counted(s.users, "user")) "
            + "(\(PredictionRenderer.assumedContext(s.contextDefaults)))"
    }

    /// One line when the platform model had nothing in the logs for its device rules to act on
    /// (no context sample, force-quit or refresh switch for any user); nil under `none` or when
    /// it had.
    public static func platformNote(_ p: PlatformModel, inputs: PlatformInputs) -> String? {
        guard p.kind != .none, inputs.isInert else { return nil }
        let scheduling =
            p.kind == .ios
            ? "the system's scheduler for requested intervals, "
                + (p.iosWakeBudgetMax > 0 ? "the daily wake budget, " : "")
                + "the \(Quantity.format(duration: p.iosMinimumInterval)) minimum interval, "
                + "the \(Quantity.format(duration: p.fetchBudget)) fetch budget"
            : "the \(Quantity.format(duration: p.androidMinimumPeriod)) minimum period, the standby-bucket deferrals"
        return "platform \(p.kind.rawValue): no context samples, force-quits or refresh switches in the logs of "
            + "\(TextFormat.counted(inputs.users, "user")): its device rules (battery, power saving, network, "
            + "force-quit, refresh switch) had nothing to act on; only its scheduling rules applied (\(scheduling))"
    }
}
