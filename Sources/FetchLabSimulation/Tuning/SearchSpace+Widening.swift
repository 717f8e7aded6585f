import FetchLabCore
import Foundation

extension SearchSpace.Family {
    /// The next value past a parameter's values in the direction of fewer fetches (`cheaper`) or
    /// more, or nil when the parameter does not move the number of fetches one way (a lead, a
    /// flex window) or is at its limit: what the family's ``TunableParameter/widen`` says. Every
    /// tuning metric grows with the fetches (fresh rates and costs alike), so a bound `≤` is
    /// approached by fewer fetches and `≥` by more.
    public func widened(_ parameter: String, _ values: [String], cheaper: Bool) -> String? {
        parameters.first { $0.name == parameter }?.widen(values, cheaper)
    }
}

/// Widening rules the families share.
public enum Widening {
    /// Twice the longest duration (cheaper) or half the shortest, within `range` (nil: past it, or
    /// a value that is not a duration).
    public static func duration(_ values: [String], cheaper: Bool, in range: ClosedRange<Microseconds>) -> String? {
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
