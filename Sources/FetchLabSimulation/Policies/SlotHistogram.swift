import FetchLabCore

/// Counts per 15-minute slot of the local day, decayed day by day, for the causal policies that
/// learn when their app is used (`ios-adaptive`, `budgeted`). A count added `d` local days ago
/// weighs `decay^d`; ``perDay(_:)`` divides by the same decayed count of days since the first one
/// seen (that day included), so it reads as "how many per day, lately".
struct SlotHistogram: Sendable {
    /// 96 slots of 15 minutes.
    static let slotLength: Microseconds = .minutes(15)
    static let slotCount = Int(Microseconds.perDay / slotLength)

    let offset: Int32
    /// Per day; 0.9 halves a count's weight in about a week.
    let decay: Double
    private(set) var counts: [Double]
    /// Decayed sums of a value per count (e.g. where in its slot a launch fell), for ``mean(_:)``.
    private(set) var sums: [Double]
    /// The decayed number of days seen, this one included.
    private(set) var days = 0.0
    /// The local day the weights are as of.
    private(set) var day: Int? = nil

    init(offset: Int32, decay: Double = 0.9) {
        self.offset = offset
        self.decay = decay
        counts = [Double](repeating: 0, count: Self.slotCount)
        sums = counts
    }

    /// The slot of an instant on the user's clock.
    func slot(of t: Instant) -> Int {
        Int((t - LocalCalendar.midnight(of: LocalCalendar.day(t, offset: offset), offset: offset)) / Self.slotLength)
    }

    /// The start of slot `slot` of local day `day`.
    func start(of slot: Int, day: Int) -> Instant {
        LocalCalendar.midnight(of: day, offset: offset) + Int64(slot) * Self.slotLength
    }

    /// The start of the slot holding `t`.
    func slotStart(_ t: Instant) -> Instant {
        start(of: slot(of: t), day: LocalCalendar.day(t, offset: offset))
    }

    /// Ages the counts to the local day of `t` (times come in non-decreasing order).
    mutating func advance(to t: Instant) {
        let today = LocalCalendar.day(t, offset: offset)
        guard let d = day else {
            day = today
            days = 1
            return
        }
        guard today > d else { return }
        var f = 1.0
        var elapsed = 0.0
        for _ in 0..<min(today - d, 400) {
            f *= decay
            elapsed = elapsed * decay + 1
        }
        for i in counts.indices {
            counts[i] *= f
            sums[i] *= f
        }
        days = days * f + elapsed
        day = today
    }

    /// Adds `weight` to a slot (after ``advance(to:)`` to the current day), with a value for ``mean(_:)``.
    mutating func add(_ weight: Double, to slot: Int, value: Double = 0) {
        counts[slot] += weight
        sums[slot] += weight * value
    }

    /// The decayed count of a slot per decayed day.
    func perDay(_ slot: Int) -> Double { days > 0 ? counts[slot] / days : 0 }

    /// The weighted mean of the values added to a slot (0 when empty).
    func mean(_ slot: Int) -> Double { counts[slot] > 0 ? sums[slot] / counts[slot] : 0 }
}
