import FetchLabCore
import Foundation

/// Fetches when the chance that the app is about to be opened *and needs a fetch* is high
/// enough: `predictive(lead, threshold)` fetches at t when P(a "cold" launch of the app within
/// `lead` after t) ≥ threshold, where a launch is cold when no launch of the same app came within
/// τ before it (with launch refreshes off, every launch). Three causal estimates, each an
/// observed frequency in the user's own past (`UseSignals`):
/// - **sequence**: a launch of another app B triggers a fetch when cold launches of this app
///   followed B's launches within `lead` often enough (DOMAIN.md: most launches that need a
///   fetch come within minutes after another app's launch);
/// - **time since last use**: at τ + k·lead after the app's last launch, the hazard that the
///   next launch falls in the following `lead`;
/// - **time of day**: at the start of each `lead`-long slot of the local day, the share of past
///   days with a cold launch in that slot.
/// Each estimate is calibrated online (`OnlineCalibration`); the fetch's stated probability is
/// the largest calibrated one. A fetch is not asked for while the
/// last refresh (a fetch, or a launch when launches refresh) still covers the window.
public struct PredictivePolicy: FetchPolicy {
    public var lead: Microseconds
    public var threshold: Double
    /// Cost-aware: on cellular (not charging) a fetch needs `cellularThreshold`; none on a low
    /// battery (below 20 %, not charging).
    public var costAware: Bool
    public var cellularThreshold: Double
    /// Which estimates may trigger a fetch (all three by default).
    public var signals: Set<PredictionSignal> = Set(PredictionSignal.allCases)

    public init(lead: Microseconds = .minutes(15), threshold: Double = 0.55) {
        self.lead = lead
        self.threshold = threshold
        costAware = false
        cellularThreshold = threshold
    }

    public static func costAware(
        lead: Microseconds = .minutes(15), threshold: Double = 0.55, cellularThreshold: Double = 0.8
    ) -> PredictivePolicy {
        var p = PredictivePolicy(lead: lead, threshold: threshold)
        p.costAware = true
        p.cellularThreshold = cellularThreshold
        return p
    }

    public var name: String {
        let l = FixedIntervalPolicy.durationName(lead)
        let only = signals.count == PredictionSignal.allCases.count ? "" : "," + PredictionSignal.name(signals)
        return costAware
            ? "predictive-cost-aware(\(l),\(Self.number(threshold)),\(Self.number(cellularThreshold))\(only))"
            : "predictive(\(l),\(Self.number(threshold))\(only))"
    }
    public var family: String { costAware ? "predictive-cost-aware" : "predictive" }
    public var parameters: [String: Double] {
        var p = ["lead_minutes": lead.inMinutes, "threshold": threshold]
        if costAware { p["cellular_threshold"] = cellularThreshold }
        for signal in PredictionSignal.allCases { p["uses_\(signal.rawValue)"] = signals.contains(signal) ? 1 : 0 }
        return p
    }
    public var summary: String {
        let base =
            "fetch when a launch needing a fetch is ≥ \(Self.number(threshold)) likely within "
            + "\(FixedIntervalPolicy.durationName(lead)) (sequences, time since last use, time of day)"
        return costAware
            ? base + "; on cellular only ≥ \(Self.number(cellularThreshold)), never on a low battery" : base
    }

    /// `0.55`, `1`: at most four decimals, no trailing zeros.
    static func number(_ x: Double) -> String {
        var s = String(format: "%.4f", x)
        while s.hasSuffix("0") { s.removeLast() }
        if s.hasSuffix(".") { s.removeLast() }
        return s
    }

    public func makeScheduler(_ pair: PairInfo) -> (any FetchScheduler)? { PredictiveScheduler(policy: self, pair: pair) }
}

extension PredictivePolicy: PolicyFamily {
    public static let familyNames = ["predictive", "predictive-cost-aware", "predictive_cost_aware"]
    public static let form =
        "predictive(lead,threshold) (e.g. predictive(15m,0.3)), predictive-cost-aware(lead,threshold,cellular-threshold)"

    public static func parse(_ arguments: [String], raw: String) throws(PolicyRegistry.ParseError) -> [any FetchPolicy] {
        typealias A = PolicyRegistry.Arguments
        let aware = raw.lowercased().contains("cost")
        var numbers = arguments
        var chosen = Set(PredictionSignal.allCases)
        if let last = numbers.last, last.first?.isLetter == true {
            guard let set = PredictionSignal.parse(last) else {
                throw PolicyRegistry.ParseError(
                    message: "policy '\(raw)': signals '\(last)' must be sequence, gap and/or time-of-day joined by '+'")
            }
            chosen = set
            numbers.removeLast()
        }
        let maxCount = aware ? 3 : 2
        guard numbers.count <= maxCount else {
            throw PolicyRegistry.ParseError(
                message: "policy '\(raw)': at most \(maxCount) numbers ("
                    + (aware ? "lead, threshold, cellular threshold" : "lead, threshold") + ") and the signals")
        }
        var p = PredictivePolicy()
        if numbers.count > 0 {
            p.lead = try A.duration(numbers[0], raw: raw, what: "lead", in: .minutes(1) ... .hours(24))
        }
        if numbers.count > 1 {
            p.threshold = try A.number(numbers[1], raw: raw, what: "threshold", in: 0.001...1)
        }
        p.cellularThreshold = p.threshold
        if aware {
            p.costAware = true
            p.cellularThreshold =
                numbers.count > 2
                ? try A.number(numbers[2], raw: raw, what: "cellular threshold", in: 0.001...1)
                : min(1, (max(p.threshold, p.threshold * 1.5) * 100).rounded() / 100)
        }
        p.signals = chosen
        return [p]
    }
}

/// The estimates a predictive policy may fetch on.
public enum PredictionSignal: String, Sendable, Hashable, CaseIterable, Comparable {
    case sequence
    case gap
    case timeOfDay = "time_of_day"

    public static func < (a: Self, b: Self) -> Bool { allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)! }

    /// `sequence+gap`, in a fixed order.
    static func name(_ set: Set<Self>) -> String {
        set.sorted().map { $0 == .timeOfDay ? "time-of-day" : $0.rawValue }.joined(separator: "+")
    }

    /// Reads `sequence+gap`, `seq+tod`, `time-of-day` …; nil on anything else or nothing.
    static func parse(_ text: String) -> Set<Self>? {
        var out = Set<Self>()
        for part in text.split(separator: "+", omittingEmptySubsequences: false) {
            switch part {
            case "sequence", "seq", "sequences": out.insert(.sequence)
            case "gap", "since-last-use", "hazard": out.insert(.gap)
            case "time-of-day", "time_of_day", "tod", "clock": out.insert(.timeOfDay)
            default: return nil
            }
        }
        return out.isEmpty ? nil : out
    }
}
