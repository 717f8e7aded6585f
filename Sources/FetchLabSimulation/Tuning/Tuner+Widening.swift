import FetchLabCore
import FetchLabResults
import Foundation

extension Tuner {
    /// Widens the grid toward the constraints until a setting meets them on every training part
    /// (at most ``widenings`` times): the direction is the one the closest setting's missed bounds
    /// pull (every metric grows with the fetches: `≤` wants fewer, `≥` more). Returns the
    /// widening in words; throws one line naming the family, the constraint and the closest
    /// setting's value when it cannot be widened or stays infeasible.
    mutating func widen(
        _ tried: inout [SearchSpace.Setting], _ ranking: inout [TriedSetting], _ training: inout Training,
        label: String
    ) throws -> String {
        func closest() throws -> String {
            guard let row = ranking.first else { return "nothing was tried" }
            let missed = constraints.filter { c in
                training.metrics(row.name).contains { !c.holds(c.metric.value(in: $0)) }
            }
            let values = missed.map { c -> String in
                let values = training.metrics(row.name).compactMap { c.metric.value(in: $0) }
                let worst = c.atMost ? values.max() : values.min()
                let folds = training.parts.count > 1 ? " on its worst training part" : ""
                return "\(c.metric) \(worst.map { Self.format($0, c.metric) } ?? "not measured")\(folds)"
            }
            return "the closest, \(row.name), has \(values.joined(separator: " and "))"
        }
        guard let first = ranking.first else { throw TuningError("\(space.family.rawValue): no setting was tried") }
        let missed = constraints.filter { c in
            training.metrics(first.name).contains { !c.holds(c.metric.value(in: $0)) }
        }
        let directions = Set(missed.map(\.atMost))
        let family = space.family.rawValue
        guard directions.count == 1, let cheaper = directions.first else {
            throw TuningError(
                "\(family): no setting meets \(constraintList) on the training part and the bounds pull the grid "
                    + "both ways, so it cannot be widened; \(try closest())")
        }
        let toward = missed.map(\.description).joined(separator: ",")
        var added: [String: [String]] = [:]
        var order: [String] = []
        for _ in 0..<widenings {
            guard let (wider, new) = space.widened(cheaper: cheaper) else { break }
            // Settings that use a new value on some parameter, and parse as a policy.
            let fresh = wider.settings.filter { s in new.contains { s[$0.axis] == wider.axes[$0.axis].values.count - 1 }
            }
            .filter { (try? wider.policy($0)) != nil }
            space = wider
            for (axis, value) in new {
                let name = wider.axes[axis].name
                if added[name] == nil { order.append(name) }
                added[name, default: []].append(value)
            }
            progress?("\(label): widening toward \(toward): \(fresh.count) settings")
            try training.score(try fresh.map { try space.policy($0) })
            tried += fresh
            ranking = try self.ranking(tried, training)
            if ranking.contains(where: \.feasible) { break }
        }
        let words = order.map { "\($0) to \(added[$0]!.joined(separator: ", "))" }.joined(separator: "; ")
        guard ranking.contains(where: \.feasible) else {
            throw TuningError(
                "\(family): no setting meets \(toward) on the training part"
                    + (words.isEmpty ? " and its grid cannot be widened toward it" : ", even with \(words) added")
                    + "; \(try closest())")
        }
        return "no setting of the grid met \(toward) on the training part, so the grid was widened: \(words) added"
    }

    /// A metric's value as messages write it: `5.61/app/day`, `0.32` (fresh).
    static func format(_ value: Double, _ metric: TuningMetric) -> String {
        String(format: "%.2f", value) + metric.unit
    }
}
