import FetchLabCore
import Foundation

/// The settings of one policy family a tuner may try: one axis per parameter, each a list of
/// values as people type them. A setting is one value per axis; the family's own builder
/// (``PolicyFamily/parse(_:raw:)``) makes it a policy value from those values, so every setting
/// is an ordinary policy, e.g. `predictive(10m,0.3)`, without its name being written and read back.
public struct SearchSpace: Sendable, Hashable {
    /// A tunable family (one that conforms to ``TunableFamily``) and its parameters, in the order
    /// of its name's arguments.
    public struct Family: Sendable, Hashable {
        /// The family's canonical name (`predictive`).
        public var rawValue: String
        public var parameters: [TunableParameter]
        /// The family's type, which builds a setting's policy from its values.
        public let type: any TunableFamily.Type

        /// The tunable family of that name, from the registry (nil: none).
        public init?(rawValue: String) {
            guard let family = PolicyRegistry.tunableFamilies.first(where: { $0.familyNames[0] == rawValue }) else {
                return nil
            }
            self.rawValue = rawValue
            parameters = family.tunableParameters
            type = family
        }

        /// Every tunable family, in the registry's order.
        public static var allCases: [Family] {
            PolicyRegistry.tunableFamilies.compactMap { Family(rawValue: $0.familyNames[0]) }
        }

        /// Every tunable family's name, for help and errors: `fixed, predictive, … or learned`.
        public static var namesInWords: String {
            let names = allCases.map(\.rawValue)
            guard names.count > 1 else { return names.first ?? "" }
            return names.dropLast().joined(separator: ", ") + " or " + names.last!
        }

        /// Every tunable family with its default grid, for help:
        /// `fixed interval=15m,…; predictive lead=…;threshold=…`.
        public static var defaultGrids: String {
            allCases.map { family in
                let axes = family.parameters.map { "\($0.name)=\($0.defaults.joined(separator: ","))" }
                return family.rawValue + " " + axes.joined(separator: ";")
            }
            .joined(separator: "; ")
        }

        /// One setting as typed (values in parameter order), for messages.
        func name(_ values: [String]) -> String { "\(rawValue)(\(values.joined(separator: ",")))" }

        public static func == (a: Family, b: Family) -> Bool { a.rawValue == b.rawValue }
        public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
    }

    public struct Axis: Sendable, Hashable {
        public var name: String
        public var values: [String]
    }

    public var family: Family
    public var axes: [Axis]

    /// A setting: one index into each axis's values.
    public typealias Setting = [Int]

    /// Builds a family's space from `--grid "lead=5m,10m;threshold=0.2,0.3"` (axes not given keep
    /// the family's defaults; nil: all defaults). Every setting is checked to parse as a policy.
    public static func parse(family raw: String, grid: String?) throws(TuningError) -> SearchSpace {
        guard let family = Family(rawValue: raw.lowercased().trimmingCharacters(in: .whitespaces)) else {
            throw TuningError(
                "family '\(raw)' cannot be tuned; expected \(Family.namesInWords)", code: .invalid)
        }
        var axes = family.parameters.map { Axis(name: $0.name, values: $0.defaults) }
        if let grid {
            var seen = Set<String>()
            for part in grid.split(separator: ";").map({ $0.filter { !$0.isWhitespace } }) where !part.isEmpty {
                let kv = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard kv.count == 2 else {
                    throw TuningError("grid '\(part)' must be parameter=value,value,…", code: .invalid)
                }
                let key = kv[0].lowercased()
                guard let i = axes.firstIndex(where: { $0.name == key }) else {
                    throw TuningError(
                        "grid '\(part)': \(family.rawValue) has no parameter '\(kv[0])'; expected "
                            + axes.map(\.name).joined(separator: ", "), code: .invalid)
                }
                guard seen.insert(key).inserted else {
                    throw TuningError("grid '\(part)': '\(key)' given twice", code: .invalid)
                }
                var values: [String] = []
                for v in kv[1].split(separator: ",", omittingEmptySubsequences: false).map({ $0.lowercased() }) {
                    guard !v.isEmpty else { throw TuningError("grid '\(part)': an empty value", code: .invalid) }
                    if !values.contains(v) { values.append(v) }
                }
                axes[i].values = values
            }
        }
        let space = SearchSpace(family: family, axes: axes)
        // Every value must make a policy: check each axis's values with the others at their first value.
        for (a, axis) in axes.enumerated() {
            for v in axis.values.indices {
                var setting = axes.map { _ in 0 }
                setting[a] = v
                _ = try space.policy(setting)
            }
        }
        return space
    }

    public init(family: Family, axes: [Axis]) {
        self.family = family
        self.axes = axes
    }

    /// The number of settings (the product of the axes' sizes).
    public var count: Int { axes.reduce(1) { $0 * $1.values.count } }

    /// Every setting, the last axis varying fastest.
    public var settings: [Setting] {
        var out: [Setting] = [[]]
        for axis in axes { out = out.flatMap { s in axis.values.indices.map { s + [$0] } } }
        return out
    }

    /// The middle of the grid (the lower middle value of each axis).
    public var middle: Setting { axes.map { ($0.values.count - 1) / 2 } }

    /// The canonical name of a setting as the family writes it (parsed back, so `fixed(60m)` is `fixed(1h)`).
    public func name(_ setting: Setting) throws(TuningError) -> String { try policy(setting).name }

    /// The policy of a setting.
    public func policy(_ setting: Setting) throws(TuningError) -> any FetchPolicy {
        let values = zip(axes, setting).map { $0.values[$1] }
        let text = family.name(values)
        do {
            let policies = try family.type.parse(values, raw: text)
            guard policies.count == 1 else {
                throw TuningError("grid setting \(text) is not one policy", code: .invalid)
            }
            return policies[0]
        } catch let error as PolicyRegistry.ParseError {
            throw TuningError("grid: \(error.message)", code: .invalid)
        } catch let error as TuningError {
            throw error
        } catch {
            throw TuningError("grid: \(error)", code: .invalid)
        }
    }

    /// The setting's values by axis, e.g. `lead=10m threshold=0.3`.
    public func describe(_ setting: Setting) -> String {
        zip(axes, setting).map { "\($0.name)=\($0.values[$1])" }.joined(separator: " ")
    }
}
