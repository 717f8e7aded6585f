/// A sum of doubles that does not depend on the order or grouping of its terms: each term is
/// taken exactly as a fixed-point number with 64 fractional bits (a 128-bit integer, two words),
/// and whole numbers add exactly whatever their order.
///
/// A comparison summed over users one at a time and one summed over shards of users and then
/// merged must report the same figures to the last digit; a floating-point sum would not (the
/// rounding of `(a + b) + c` and `a + (b + c)` differ). Terms lose only the bits below 2⁻⁶⁴
/// (none for the magnitudes summed here: rates per day, joules, bytes, probabilities) and must
/// stay below 2⁶³ in magnitude, as must the sum.
public struct ExactSum: Sendable, Hashable, Codable {
    /// ⌊value⌋, and value − ⌊value⌋ in units of 2⁻⁶⁴.
    private var whole: Int64 = 0
    private var fraction: UInt64 = 0

    public init() {}

    /// The sum of the one term `term`.
    public init(_ term: Double) {
        guard term.isFinite, term != 0 else { return }
        let floor = term.rounded(.down)
        whole = Int64(floor)
        // (term − ⌊term⌋) is exact in a double and below 1; scaled by 2⁶⁴ it is below 2⁶⁴.
        let scaled = (term - floor) * 0x1p64
        fraction = scaled >= 0x1p64 ? UInt64.max : UInt64(scaled)
    }

    /// The sum, rounded to the nearest double (once per word).
    public var value: Double { Double(whole) + Double(fraction) * 0x1p-64 }

    public static func += (sum: inout ExactSum, term: Double) { sum += ExactSum(term) }

    public static func += (sum: inout ExactSum, other: ExactSum) {
        let (low, carry) = sum.fraction.addingReportingOverflow(other.fraction)
        sum.fraction = low
        sum.whole &+= other.whole &+ (carry ? 1 : 0)
    }

    /// The sum of `terms`.
    public init<S: Sequence>(_ terms: S) where S.Element == Double {
        self.init()
        for t in terms { self += t }
    }
}

extension ExactSum {
    /// Whether adding `other` would overflow the sum (its whole part past ±2⁶³).
    public func overflowsAdding(_ other: ExactSum) -> Bool {
        let carry: Int64 = fraction.addingReportingOverflow(other.fraction).overflow ? 1 : 0
        let (partial, o1) = whole.addingReportingOverflow(other.whole)
        return o1 || partial.addingReportingOverflow(carry).overflow
    }

    /// Whether the sum is below zero.
    public var isNegative: Bool { whole < 0 }

    /// The sum `count` times over, exactly (wrapping past ±2⁶³ as `+=` does): what adding it
    /// `count` times gives, in one step.
    public func times(_ count: UInt32) -> ExactSum {
        var out = ExactSum()
        let (high, low) = fraction.multipliedFullWidth(by: UInt64(count))
        out.fraction = low
        out.whole = whole &* Int64(count) &+ Int64(high)
        return out
    }

    /// The sum's two words (the whole part, then the fraction in units of 2⁻⁶⁴), to store it exactly.
    public var words: (whole: Int64, fraction: UInt64) { (whole, fraction) }

    /// The sum of the given words (``words``).
    public init(whole: Int64, fraction: UInt64) {
        self.whole = whole
        self.fraction = fraction
    }
}
