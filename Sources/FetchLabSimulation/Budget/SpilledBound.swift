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
        var record = RecordWriter(capacity: pairs.reduce(0) { $0 + 28 + 4 * $1.next.count })
        for pair in pairs {
            record.put(Int64(pair.targets))
            record.put(pair.days)
            record.put(Int32(pair.unit ? 1 : 0))
            record.put(Int32(pair.next.count))
            record.put(contentsOf: pair.next)
            record.align(to: 8)
        }
        return record.bytes
    }

    func forEachPair(_ body: (PairView) -> Void) {
        records.forEach { bytes in
            var record = RecordReader(bytes)
            while !record.isAtEnd {
                let targets = Int(record.read(Int64.self))
                let days = record.read(Double.self)
                let unit = record.read(Int32.self) != 0
                let n = Int(record.read(Int32.self))
                record.withFields(Int32.self, count: n) { next in
                    body(PairView(targets: targets, days: days, unit: unit, next: next))
                }
                record.align(to: 8)
            }
        }
    }
}
