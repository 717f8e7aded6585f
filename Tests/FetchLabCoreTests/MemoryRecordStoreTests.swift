import Testing

@testable import FetchLabCore

/// The in-memory record store (the simulator's and the tuner's default) reads back what was
/// appended, as the file store does: in order, all or the first n, 8-byte aligned, each alone,
/// and never fails.
@Suite struct MemoryRecordStoreTests {
    static func records(count: Int, seed: UInt64) -> [[UInt8]] {
        var rng = SplitMix64(seed: seed)
        return (0..<count).map { i in
            let length = i == 3 ? 0 : Int(rng.next() % 3_000)
            return (0..<length).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        }
    }

    static func readBack(_ store: any RecordStore, first: Int? = nil) -> [[UInt8]] {
        var read: [[UInt8]] = []
        store.forEach(first: first) { record in
            #expect(Int(bitPattern: record.baseAddress) % 8 == 0 || record.isEmpty)
            read.append(Array(record))
        }
        return read
    }

    @Test func recordsReadBackInOrderAndAlone() throws {
        let given = Self.records(count: 200, seed: 11)
        let storage = MemoryRecordStorage()
        let store = storage.makeStore()
        for r in given { store.append(r) }
        #expect(store.count == given.count)
        #expect(!store.isOnDisk)
        let total = given.reduce(0) { $0 + 8 + $1.count + RecordLayout.padding($1.count) }
        #expect(store.bytes.onDisk == 0 && store.bytes.inMemory == total)
        #expect(Self.readBack(store) == given)
        #expect(Self.readBack(store, first: 70) == Array(given.prefix(70)))
        #expect(Self.readBack(store, first: 0).isEmpty)
        for i in given.indices.reversed() { #expect(store.record(at: i) == given[i], "record \(i)") }
        let reads = ParallelMap.map(Array(0..<4)) { _ in Self.readBack(store) }
        for read in reads { #expect(read == given) }
        try storage.check()
    }

    /// Stored records are a value: a copy appended to after the original moves to a store of its own.
    @Test func storedRecordsAreAValue() {
        let given = Self.records(count: 30, seed: 12)
        var records = StoredRecords()
        for r in given.prefix(10) { records.append(r) }
        var copy = records
        for r in given.dropFirst(10) { records.append(r) }
        copy.append([7])
        func read(_ r: StoredRecords) -> [[UInt8]] {
            var out: [[UInt8]] = []
            r.forEach { out.append(Array($0)) }
            return out
        }
        #expect(read(records) == given)
        #expect(read(copy) == Array(given.prefix(10)) + [[7]])
        #expect(records.record(at: 12) == given[12])
    }
}
