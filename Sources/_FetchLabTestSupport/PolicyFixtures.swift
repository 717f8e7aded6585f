import FetchLabResults

extension PolicyResult {
    /// The signals a fixture's policy declares, by family as the registry's policies do: `learned`
    /// reads what only the OS sees, the oracles the future, and every other family what an app can
    /// (its own launches), so a hand-built report has app-, OS- and clairvoyant-scope rows.
    public static func fixtureSignals(family: String) -> [PolicySignal] {
        if PolicyRole(reading: family).readsFuture { return [.future] }
        return family == "learned" ? [.ownLaunches, .otherLaunches, .deviceSignals, .context] : [.ownLaunches]
    }
}
