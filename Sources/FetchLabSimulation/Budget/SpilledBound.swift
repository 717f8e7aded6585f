import FetchLabCore

/// A whole run's clairvoyant-bound pairs (the bound's, or a per-signal ceiling's), in a record
/// store: each user's pairs are one record (in an unlinked temporary file when the run's storage
/// is FetchLabScale's), so the run's memory does not grow with them, and every pass of the bound's Lagrangian (``PairedBound``) reads them
/// in the order added, giving the figures ``ClairvoyantBound`` gives over the same pairs, to the
/// last bit.
struct SpilledBound: PairedBound, Sendable {
    private var records: StoredRecords
    private(set) var pairCount = 0
    private(set) var scored = 0
    private(set) var freeFresh = 0

    init(in storage: any RecordStorage = MemoryRecordStorage()) {
        records = StoredRecords(in: storage)
    }

    /// Adds the pairs and counts of `bound` (a user's), after those added before.
    mutating func add(_ bound: ClairvoyantBound) {
        scored += bound.scored
        freeFresh += bound.freeFresh
        guard !bound.pairs.isEmpty else { return }
        records.append(Self.record(bound.pairs))
        pairCount += bound.pairs.count
    }

    /// Per pair: its targets (64 bits), days, whether it is a unit pair and how many `next`
    /// indices follow (32 bits each), the indices, then 4 zero bytes when they are odd in number
    /// (so every pair starts 8-byte aligned).
    static func record(_ pairs: [ClairvoyantBound.Pair]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(pairs.reduce(0) { $0 + 28 + 4 * $1.next.count })
        func put<T: BitwiseCopyable>(_ v: T) { withUnsafeBytes(of: v) { bytes.append(contentsOf: $0) } }
        for pair in pairs {
            put(Int64(pair.targets))
            put(pair.days)
            put(Int32(pair.unit ? 1 : 0))
            put(Int32(pair.next.count))
            pair.next.withUnsafeBytes { bytes.append(contentsOf: $0) }
            if pair.next.count % 2 == 1 { put(Int32(0)) }
        }
        return bytes
    }

    func forEachPair(_ body: (PairView) -> Void) {
        records.forEach { record in
            var at = 0
            while at < record.count {
                let targets = Int(record.loadUnaligned(fromByteOffset: at, as: Int64.self))
                let days = record.loadUnaligned(fromByteOffset: at + 8, as: Double.self)
                let unit = record.loadUnaligned(fromByteOffset: at + 16, as: Int32.self) != 0
                let n = Int(record.loadUnaligned(fromByteOffset: at + 20, as: Int32.self))
                UnsafeRawBufferPointer(rebasing: record[(at + 24)..<(at + 24 + 4 * n)]).withMemoryRebound(
                    to: Int32.self
                ) { next in
                    body(PairView(targets: targets, days: days, unit: unit, next: next))
                }
                at += 24 + 4 * (n + n % 2)
            }
        }
    }
}
