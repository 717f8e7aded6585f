/// How the budget figures and the rankings treat a policy. Each policy declares its role
/// (`FetchPolicy.role` in FetchLabSimulation) and the replay carries it into its
/// ``PolicyResult``: `never` is the floor and `fixed` the baseline, so neither is read as a family
/// at a budget; the oracles read the future (shown, never ranked, never a family at a budget);
/// every other family is read at each budget.
///
/// A result read back from JSON (a stored run, a partial) carries no role: ``init(reading:signals:)``
/// derives it from what the JSON does carry, the one place a family's name stands for its role.
public enum PolicyRole: String, Sendable, Hashable, CaseIterable {
    /// `never`: launch refreshes only, the floor of every comparison.
    case floor
    /// `fixed(T)`: the fixed-interval baseline every gain is measured against.
    case baseline
    /// A causal family whose Pareto front is read at each budget.
    case family
    /// `oracle`: the clairvoyant bound without a budget, the ceiling of every share of the possible gain.
    case bound
    /// A budgeted oracle (`budget-oracle(B)`): reads the future; shown, never ranked.
    case clairvoyant

    /// Whether a family's Pareto front is read at each budget.
    public var isReadAtBudget: Bool { self == .family }

    /// Whether its policies read the future (``bound`` and ``clairvoyant``).
    public var readsFuture: Bool { self == .bound || self == .clairvoyant }

    /// The canonical family names of the roles other than ``family``, as a result's JSON names
    /// them (FetchLabSimulation's `FamilyDeclarationTests` check them against the policies' own
    /// declarations).
    public static let families: [PolicyRole: String] = [
        .floor: "never", .baseline: "fixed", .bound: "oracle", .clairvoyant: "budget-oracle",
    ]

    /// The role of a result read back from JSON, which names the family (`family`) and, since
    /// policies declared them, the signals it reads (`future` for an oracle).
    public init(reading family: String, signals: [PolicySignal]? = nil) {
        let named = Self.families.first { $0.value == family }?.key
        if let signals, signals.contains(.future) {
            self = named == .bound ? .bound : .clairvoyant
        } else {
            self = named ?? .family
        }
    }
}

extension PolicyResult {
    /// Reads the future (an oracle): shown, never ranked.
    public var isClairvoyant: Bool { role.readsFuture }

    /// Its family's front is read at each budget.
    public var isReadAtBudget: Bool { role.isReadAtBudget }

    /// The clairvoyant bound without a budget (`oracle`), not a budget oracle.
    public var isUnbudgetedOracle: Bool { role == .bound }
}

extension ComparisonReport {
    /// The run's clairvoyant bound without a budget (`oracle`), if it replayed one.
    public var oracle: PolicyResult? { policies.first(where: \.isUnbudgetedOracle) }
}
