/// The fixed-interval baseline's figures of users, in the users' order: per baseline interval, the
/// user's fresh launches under fixed(T) and one pair's fetches in the scored span. 16 bits a figure
/// for a user whose figures all fit (fewer than 65,536 fresh launches and fetches: five-minute
/// fetching over more than 227 days, or that many scored launches, does not), 32 bits for the
/// others, instead of 32 bits for all: 8 kB a user over the 2,012 intervals.
///
/// A user's sums (``UserBudgetSums``) keep theirs here until the run adds the user; the run then
/// writes them to disk as a record (``appendRecord(of:to:)``) and the bootstrap sums them from it
/// (``accumulate(record:weight:perFetch:fresh:fetches:)``), so they do not stay in memory.
///
/// Each user's figures are one buffer of their own, so no buffer grows with the population.
struct FixedColumns: Sendable {
    /// One user's fresh launches then fetches (`2 × width` figures), as narrow as they fit.
    enum Figures: Sendable {
        case narrow([UInt16])
        case wide([Int32])
    }

    /// Intervals per user (fixed by the first user).
    private(set) var width = 0
    private var users: [Figures] = []
    var count: Int { users.count }

    /// Appends the next user's figures (`fresh` and `fetches` as long as every other user's).
    mutating func append(fresh: [Int32], fetches: [Int32]) {
        if count == 0 { width = fresh.count }
        precondition(fresh.count == width && fetches.count == width, "one figure per baseline interval")
        let fits = { (v: Int32) in v >= 0 && v <= Int32(UInt16.max) }
        if fresh.allSatisfy(fits) && fetches.allSatisfy(fits) {
            var both = [UInt16]()
            both.reserveCapacity(2 * width)
            both += fresh.lazy.map { UInt16($0) }
            both += fetches.lazy.map { UInt16($0) }
            users.append(.narrow(both))
        } else {
            users.append(.wide(fresh + fetches))
        }
    }

    /// User `u`'s fresh launches and fetches, as read back (for tests and partials).
    func figures(of u: Int) -> (fresh: [Int32], fetches: [Int32]) {
        switch users[u] {
        case .narrow(let both): (both[..<width].map { Int32($0) }, both[width...].map { Int32($0) })
        case .wide(let both): (Array(both[..<width]), Array(both[width...]))
        }
    }

    /// Appends user `u`'s figures to `bytes` as a record of its own: how wide they are (0: 16
    /// bits, 1: 32 bits) and the width (32 bits each), then the figures
    /// (``accumulate(record:weight:perFetch:fresh:fetches:)`` reads it, 4-byte aligned).
    func appendRecord(of u: Int, to bytes: inout [UInt8]) {
        func put<T: BitwiseCopyable>(_ v: T) { withUnsafeBytes(of: v) { bytes.append(contentsOf: $0) } }
        switch users[u] {
        case .narrow(let both):
            put(UInt32(0))
            put(Int32(width))
            both.withUnsafeBytes { bytes.append(contentsOf: $0) }
        case .wide(let both):
            put(UInt32(1))
            put(Int32(width))
            both.withUnsafeBytes { bytes.append(contentsOf: $0) }
        }
    }

    /// Adds a user's figures, from its record (``appendRecord(of:to:)``), weighted into the sums:
    /// `fresh[k] += w × its fresh launches`, `fetches[k] += perFetch × its fetches` (the same
    /// products and sums whatever the width).
    static func accumulate(
        record: UnsafeRawBufferPointer, weight w: Double, perFetch: Double, fresh: inout [Double],
        fetches: inout [Double]
    ) {
        guard record.count >= 8 else { return }  // a user without figures
        let width = Int(record.loadUnaligned(fromByteOffset: 4, as: Int32.self))
        let figures = UnsafeRawBufferPointer(rebasing: record[8...])
        if record.loadUnaligned(as: UInt32.self) == 0 {
            figures.withMemoryRebound(to: UInt16.self) { add($0, width, w, perFetch, &fresh, &fetches) }
        } else {
            figures.withMemoryRebound(to: Int32.self) { add($0, width, w, perFetch, &fresh, &fetches) }
        }
    }

    @inline(__always)
    private static func add<A: BinaryInteger>(
        _ both: UnsafeBufferPointer<A>, _ width: Int, _ w: Double, _ perFetch: Double,
        _ fresh: inout [Double], _ fetches: inout [Double]
    ) {
        let b = UnsafeBufferPointer(rebasing: both[width...])
        fresh.withUnsafeMutableBufferPointer { f in
            fetches.withUnsafeMutableBufferPointer { g in
                for k in 0..<width {
                    f[k] += w * Double(both[k])
                    g[k] += perFetch * Double(b[k])
                }
            }
        }
    }
}
