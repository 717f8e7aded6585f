/// How the budget figures and the rankings treat a policy, in one place: the oracles read the
/// future (shown, never ranked, never a family at a budget); `never` is the floor and `fixed` the
/// baseline, so neither is read as a family at a budget.
public enum PolicyRole {
    /// The families whose policies read the future.
    public static let clairvoyantFamilies: Set<String> = [
        OraclePolicy.familyNames[0], BudgetOraclePolicy.familyNames[0],
    ]

    /// Whether a family's Pareto front is read at each budget.
    public static func isReadAtBudget(family: String, clairvoyant: Bool) -> Bool {
        !clairvoyant && family != NeverPolicy.familyNames[0] && family != FixedIntervalPolicy.familyNames[0]
    }
}

extension PolicyResult {
    /// Reads the future (an oracle): shown, never ranked.
    public var isClairvoyant: Bool { PolicyRole.clairvoyantFamilies.contains(family) }

    /// Its family's front is read at each budget.
    public var isReadAtBudget: Bool { PolicyRole.isReadAtBudget(family: family, clairvoyant: isClairvoyant) }
}
