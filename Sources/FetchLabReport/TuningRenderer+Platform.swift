import FetchLabResults
import Foundation

/// `tune`'s platform settings: what each was replayed on, its line (the setting, how the platform
/// replayed it, its figures and refusals), the note on inputs the device rules had nothing to act
/// on, and silent push against the other iOS settings.
extension TuningRenderer {
    /// What the platform settings were replayed on: `held out: test … to …, 1,000 of 10,000 users …`.
    static func platformPart(_ platform: [PlatformOutcome]) -> String {
        guard let part = platform.first?.part else { return "whole scored span" }
        return "held out: \(part)"
    }

    /// `ios: setting — modelled as model: fresh 41.2%, 2.10 fetches/app/day, 3.2 J/day, 0 refused`;
    /// with how the platform replayed it (`… modelled as fixed(15m), replayed as …`) and the
    /// refusals by reason (`12 refused (daily wake budget 12)`) when known.
    public static func platformLine(_ o: PlatformOutcome) -> String {
        let replayed = o.setting.replayedAs.map { " (replayed as iOS runs it: \($0))" } ?? ""
        let reasons = (o.skips ?? [:]).compactMap { k, v in SkipReason(rawValue: k).map { ($0, v) } }
            .filter { $0.1 > 0 }.sorted { $0.0 < $1.0 }.map { ($0.0.label, $0.1) }
        return
            "\(o.setting.platform.rawValue): \(o.setting.setting) — modelled as \(o.setting.model)\(replayed): fresh "
            + String(format: "%.1f%%", o.fresh * 100) + ", " + String(format: "%.2f", o.fetchesPerAppDay)
            + " fetches/app/day, " + String(format: "%.1f", o.joulesPerDay)
            + " J/day, \(TextFormat.count(o.skipped)) refused" + refusals(reasons)
    }

    /// The reasons for refusals: ` (all: daily wake budget)` for one reason, ` (daily wake budget
    /// 40, Low Power Mode 8)` for several; empty when none is known.
    static func refusals(_ reasons: [(label: String, count: Int)]) -> String {
        if reasons.count == 1 { return " (all: \(reasons[0].label))" }
        if reasons.isEmpty { return "" }
        return " (" + reasons.map { "\($0.label) \(TextFormat.count($0.count))" }.joined(separator: ", ") + ")"
    }

    /// One line when the logs the platform settings were replayed on hold nothing for the
    /// platforms' device rules, or when some users have no context samples (their device rules
    /// read assumed context); nil otherwise.
    public static func platformNote(_ inputs: PlatformInputs) -> String? {
        guard inputs.isInert else {
            let without = inputs.users - inputs.usersWithContext
            guard without > 0 else { return nil }
            return
                "\(TextFormat.count(without)) of \(TextFormat.counted(inputs.users, "user")) read have no context samples: for them "
                + "the iOS and Android rules on battery, power saving and network read assumed context (the "
                + "context defaults), not observed"
        }
        return "no context samples, force-quits or refresh switches in the logs of the "
            + "\(TextFormat.counted(inputs.users, "user")) read: the iOS and Android rules on battery, power saving, "
            + "network, force-quit and refresh switch had nothing to act on; only their scheduling rules applied"
    }

    /// Whether silent push serves better than the freshest other iOS setting: fresher at no more
    /// energy, or not (nil: push was not replayed, for lack of content-update times).
    public static func pushVerdict(_ platform: [PlatformOutcome]) -> String? {
        guard let push = platform.first(where: \.setting.isSilentPush),
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
