/// How the budget figures and the rankings treat a policy, in one place: the oracles read the
/// future (shown, never ranked, never a family at a budget); `never` is the floor and `fixed` the
/// baseline, so neither is read as a family at a budget; every other family is.
///
/// A result names its family by the family's canonical name (``PolicyResult/family``); the
/// policies themselves live in FetchLabSimulation, whose tests check that these names are theirs.
public enum PolicyRole: String, Sendable, Hashable, CaseIterable {
    /// `never`: launch refreshes only, the floor of every comparison.
    case floor
    /// `fixed(T)`: the fixed-interval baseline every gain is measured against.
    case baseline
    /// A causal family whose Pareto front is read at each budget.
    case family
    /// An oracle (`oracle`, `budget-oracle(B)`): reads the future; shown, never ranked.
    case clairvoyant

    /// The canonical family name of the floor.
    public static let floorFamily = "never"
    /// The canonical family name of the baseline.
    public static let baselineFamily = "fixed"
    /// The canonical family names of the oracles.
    public static let oracleFamily = "oracle"
    public static let budgetOracleFamily = "budget-oracle"
    /// The canonical family name of silent push (`push(rate)`), the model of an iOS platform setting.
    public static let pushFamily = "push"
    /// The families whose policies read the future.
    public static let clairvoyantFamilies: Set<String> = [oracleFamily, budgetOracleFamily]

    /// The role of a policy of family `family` (its canonical name).
    public init(family: String) {
        if Self.clairvoyantFamilies.contains(family) {
            self = .clairvoyant
        } else if family == Self.floorFamily {
            self = .floor
        } else if family == Self.baselineFamily {
            self = .baseline
        } else {
            self = .family
        }
    }

    /// Whether a family's Pareto front is read at each budget.
    public var isReadAtBudget: Bool { self == .family }
}

extension PolicyResult {
    /// How the figures treat it.
    public var role: PolicyRole { PolicyRole(family: family) }

    /// Reads the future (an oracle): shown, never ranked.
    public var isClairvoyant: Bool { role == .clairvoyant }

    /// Its family's front is read at each budget.
    public var isReadAtBudget: Bool { role.isReadAtBudget }

    /// The clairvoyant bound without a budget (`oracle`), not a budget oracle.
    public var isUnbudgetedOracle: Bool { family == PolicyRole.oracleFamily }
}

extension ComparisonReport {
    /// The run's clairvoyant bound without a budget (`oracle`), if it replayed one.
    public var oracle: PolicyResult? { policies.first(where: \.isUnbudgetedOracle) }
}

extension PlatformSetting {
    /// The canonical family name of the policy that models the setting (`push` for `push(3)`).
    public var modelFamily: String { String(model.prefix { $0 != "(" }) }

    /// The setting is silent push (its model is `push(rate)`), not a background fetch.
    public var isSilentPush: Bool { modelFamily == PolicyRole.pushFamily }
}
