/// The tests' one seeded generator (Knuth's MMIX linear congruential step), in place of the copies
/// each test file used to paste: the same seed gives the same draws on every machine and run, so a
/// test's data is reproducible and a failure can be replayed.
public struct SeededDraws: RandomNumberGenerator, Sendable {
    /// The state after the last draw.
    public var state: UInt64

    public init(seed: UInt64) { state = seed }

    /// Steps the generator and returns its new state (all 64 bits; the high bits are the better
    /// ones, as ``below(_:)`` and ``unit()`` use).
    public mutating func next() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state
    }

    /// A draw from `0..<n` (the state's high 31 bits modulo `n`).
    public mutating func below(_ n: UInt64) -> UInt64 { (next() >> 33) % n }

    /// A draw from `0..<1` with 53 bits.
    public mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}

/// Runs `body` once for every seed in `seeds`, each with its own ``SeededDraws``: a property checked
/// on several seeded inputs.
public func withEvery(seed seeds: some Sequence<UInt64>, _ body: (inout SeededDraws) throws -> Void) rethrows {
    for seed in seeds {
        var draws = SeededDraws(seed: seed)
        try body(&draws)
    }
}
