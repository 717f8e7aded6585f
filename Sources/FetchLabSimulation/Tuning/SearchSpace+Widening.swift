import FetchLabCore
import Foundation

extension SearchSpace.Family {
    /// The next value past a parameter's values in the direction of fewer fetches (`cheaper`) or
    /// more, or nil when the parameter does not move the number of fetches one way (a lead, a
    /// flex window) or is at its limit. Every tuning metric grows with the fetches (fresh rates and
    /// costs alike), so a bound `≤` is approached by fewer fetches and `≥` by more:
    /// - longer intervals, periods and minimum intervals (×2; shorter: ÷2, not below the platform's minimum);
    /// - a higher threshold (halfway to 1; lower: halved);
    /// - a lower daily budget (halved, at least 1; higher: ×2).
    public func widened(_ parameter: String, _ values: [String], cheaper: Bool) -> String? {
        switch (self, parameter) {
        case (.fixed, "interval"):
            return Self.duration(values, cheaper: cheaper, in: .minutes(1) ... .days(365))
        case (.workmanager, "period"):
            return Self.duration(values, cheaper: cheaper, in: WorkManagerPolicy.minimumPeriod ... .days(365))
        case (.iosAdaptive, "min"):
            return Self.duration(values, cheaper: cheaper, in: IOSAdaptivePolicy.platformMinimum ... .days(7))
        case (.predictive, "threshold"):
            let numbers = values.compactMap { Double($0) }
            guard numbers.count == values.count, let low = numbers.min(), let high = numbers.max() else { return nil }
            let next = cheaper ? ((high + (1 - high) / 2) * 100).rounded() / 100 : (low / 2 * 1_000).rounded() / 1_000
            guard cheaper ? next > high && next <= 0.99 : next < low && next >= 0.01 else { return nil }
            return PolicyRegistry.Arguments.numberName(next)
        case (.budgeted, "k"):
            let numbers = values.compactMap { Int($0) }
            guard numbers.count == values.count, let low = numbers.min(), let high = numbers.max() else { return nil }
            let next = cheaper ? low / 2 : high * 2
            guard cheaper ? next >= 1 && next < low : next <= 10_000 else { return nil }
            return "\(next)"
        default:
            return nil
        }
    }

    /// Twice the longest duration (cheaper) or half the shortest, within `range` (nil: past it, or
    /// a value that is not a duration).
    static func duration(_ values: [String], cheaper: Bool, in range: ClosedRange<Microseconds>) -> String? {
        let durations = values.compactMap { Quantity.duration($0) }
        guard durations.count == values.count, let low = durations.min(), let high = durations.max() else {
            return nil
        }
        let next = cheaper ? high * 2 : low / 2
        guard range.contains(next), next != high, next != low else { return nil }
        return FixedIntervalPolicy.durationName(next)
    }
}

extension SearchSpace {
    /// The space with one more value on every parameter that moves the fetches one way, in the
    /// direction of fewer fetches (`cheaper`) or more, appended (so the settings of `self` keep
    /// their indices); nil when no parameter can move. `added` names each new value.
    public func widened(cheaper: Bool) -> (space: SearchSpace, added: [(axis: Int, value: String)])? {
        var out = self
        var added: [(axis: Int, value: String)] = []
        for (a, axis) in axes.enumerated() {
            guard let value = family.widened(axis.name, axis.values, cheaper: cheaper),
                !axis.values.contains(value)
            else { continue }
            out.axes[a].values.append(value)
            added.append((a, value))
        }
        return added.isEmpty ? nil : (out, added)
    }
}
