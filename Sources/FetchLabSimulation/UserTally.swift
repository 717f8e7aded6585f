/// One user's scored launches and, per policy of a comparison and per reported τ, the launches
/// fresh: what a bootstrap over users resamples (no histograms, so it stays small for many users).
public struct UserTally: Sendable, Hashable {
    public var user: String
    /// The user's scored launches (the same for every policy).
    public var scored: Int
    /// Per policy (the comparison's order), per τ of `settings.taus_minutes`: fresh launches.
    public var fresh: [[Int]]

    public init(user: String, scored: Int, fresh: [[Int]]) {
        self.user = user
        self.scored = scored
        self.fresh = fresh
    }
}
