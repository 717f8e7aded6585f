/// The fixed-interval baseline's figures of every user, in the users' order: per baseline interval,
/// the user's fresh launches under fixed(T) and one pair's fetches in the scored span. They are
/// what a comparison keeps per user for the bootstrap, so what its memory grows by with the
/// population: 16 bits a figure for a user whose figures all fit (fewer than 65,536 fresh launches
/// and fetches: five-minute fetching over more than 227 days, or that many scored launches, does
/// not), 32 bits for the others, instead of 32 bits for all: 8 kB a user over the 2,012 intervals.
struct FixedColumns: Sendable {
    /// Intervals per user (fixed by the first user).
    private(set) var width = 0
    var count: Int { slot.count }
    /// The narrow users' figures, one after another.
    private var narrowFresh: [UInt16] = []
    private var narrowFetches: [UInt16] = []
    /// The wide users' figures.
    private var wideFresh: [[Int32]] = []
    private var wideFetches: [[Int32]] = []
    /// Each user's place: k ≥ 0 the k-th narrow user, -1 - k the k-th wide one.
    private var slot: [Int32] = []

    /// Appends the next user's figures (`fresh` and `fetches` as long as every other user's).
    mutating func append(fresh: [Int32], fetches: [Int32]) {
        if count == 0 { width = fresh.count }
        precondition(fresh.count == width && fetches.count == width, "one figure per baseline interval")
        let fits = { (v: Int32) in v >= 0 && v <= Int32(UInt16.max) }
        if fresh.allSatisfy(fits) && fetches.allSatisfy(fits) {
            slot.append(Int32(narrowFresh.count / max(1, width)))
            narrowFresh += fresh.lazy.map { UInt16($0) }
            narrowFetches += fetches.lazy.map { UInt16($0) }
        } else {
            slot.append(-1 - Int32(wideFresh.count))
            wideFresh.append(fresh)
            wideFetches.append(fetches)
        }
    }

    /// Appends every user of `other`, in its order (as wide or narrow as each was there).
    mutating func append(contentsOf other: FixedColumns) {
        guard other.count > 0 else { return }
        if count == 0 { width = other.width }
        precondition(other.width == width, "one figure per baseline interval")
        for s in other.slot {
            if s >= 0 {
                slot.append(Int32(narrowFresh.count / max(1, width)))
                let range = Int(s) * width..<(Int(s) + 1) * width
                narrowFresh += other.narrowFresh[range]
                narrowFetches += other.narrowFetches[range]
            } else {
                slot.append(-1 - Int32(wideFresh.count))
                wideFresh.append(other.wideFresh[Int(-1 - s)])
                wideFetches.append(other.wideFetches[Int(-1 - s)])
            }
        }
    }

    /// User `u`'s fresh launches and fetches, as read back (for tests).
    func figures(of u: Int) -> (fresh: [Int32], fetches: [Int32]) {
        let s = Int(slot[u])
        guard s >= 0 else { return (wideFresh[-1 - s], wideFetches[-1 - s]) }
        let range = s * width..<(s + 1) * width
        return (narrowFresh[range].map { Int32($0) }, narrowFetches[range].map { Int32($0) })
    }

    /// Adds user `u`'s figures, weighted, into the sums: `fresh[k] += w × its fresh launches`,
    /// `fetches[k] += perFetch × its fetches` (the same products and sums whatever the width).
    func accumulate(
        user u: Int, weight w: Double, perFetch: Double, fresh: inout [Double], fetches: inout [Double]
    ) {
        let s = Int(slot[u])
        if s >= 0 {
            narrowFresh.withUnsafeBufferPointer { a in
                narrowFetches.withUnsafeBufferPointer { b in
                    let range = s * width..<(s + 1) * width
                    Self.add(
                        UnsafeBufferPointer(rebasing: a[range]), UnsafeBufferPointer(rebasing: b[range]), w, perFetch,
                        &fresh, &fetches)
                }
            }
        } else {
            wideFresh[-1 - s].withUnsafeBufferPointer { a in
                wideFetches[-1 - s].withUnsafeBufferPointer { b in Self.add(a, b, w, perFetch, &fresh, &fetches) }
            }
        }
    }

    @inline(__always)
    private static func add<A: BinaryInteger, B: BinaryInteger>(
        _ a: UnsafeBufferPointer<A>, _ b: UnsafeBufferPointer<B>, _ w: Double, _ perFetch: Double,
        _ fresh: inout [Double], _ fetches: inout [Double]
    ) {
        fresh.withUnsafeMutableBufferPointer { f in
            fetches.withUnsafeMutableBufferPointer { g in
                for k in f.indices {
                    f[k] += w * Double(a[k])
                    g[k] += perFetch * Double(b[k])
                }
            }
        }
    }
}
