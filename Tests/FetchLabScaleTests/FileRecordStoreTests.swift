import Foundation
import Testing

import FetchLabCore

@testable import FetchLabScale

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite struct FileRecordStoreTests {
    /// Records of every length (empty, odd, past the read chunk), seeded.
    static func records(count: Int, seed: UInt64) -> [[UInt8]] {
        var rng = SplitMix64(seed: seed)
        return (0..<count).map { i in
            let length =
                i == 3 ? 0 : i == 7 ? FileRecordStore.readSize + 13 : Int(rng.next() % 9_000)
            return (0..<length).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        }
    }

    static func readBack(_ spill: FileRecordStore, first: Int? = nil) -> [[UInt8]] {
        var read: [[UInt8]] = []
        spill.forEach(first: first) { record in
            // Records come 8-byte aligned.
            #expect(Int(bitPattern: record.baseAddress) % 8 == 0 || record.isEmpty)
            read.append(Array(record))
        }
        return read
    }

    /// On disk: the records read back as appended, in order, all or the first n, and memory holds
    /// at most one buffer's worth of them.
    @Test func recordsGoToDiskAndReadBackInOrder() {
        let given = Self.records(count: 400, seed: 3)
        let spill = FileRecordStore()
        for r in given { spill.append(r) }
        #expect(spill.isOnDisk)
        #expect(spill.count == given.count)
        let bytes = spill.bytes
        let total = given.reduce(0) { $0 + 8 + $1.count + FileRecordStore.padding($1.count) }
        #expect(bytes.onDisk + bytes.inMemory == total)
        #expect(bytes.inMemory < FileRecordStore.bufferSize + FileRecordStore.readSize + 32)
        #expect(bytes.onDisk > total / 2)
        #expect(Self.readBack(spill) == given)
        #expect(Self.readBack(spill, first: 150) == Array(given.prefix(150)))
        #expect(Self.readBack(spill, first: 0).isEmpty)
        // Reading wrote out the buffer; appending more still reads back in order.
        let more = Self.records(count: 20, seed: 4)
        for r in more { spill.append(r) }
        #expect(Self.readBack(spill) == given + more)
    }

    /// Several threads read at once and each gets every record.
    @Test func readersOnSeveralThreadsEachGetEveryRecord() {
        let given = Self.records(count: 300, seed: 5)
        let spill = FileRecordStore()
        for r in given { spill.append(r) }
        let reads = ParallelMap.map(Array(0..<6)) { _ in Self.readBack(spill) }
        for read in reads { #expect(read == given) }
    }

    /// Where no file can be made, the records stay in memory and read back the same.
    @Test func withoutATemporaryFileTheRecordsStayInMemory() {
        let given = Self.records(count: 120, seed: 6)
        let spill = FileRecordStore(directory: "/nonexistent/fetchlab-spill-test")
        #expect(!spill.isOnDisk)
        for r in given { spill.append(r) }
        #expect(spill.bytes.onDisk == 0)
        #expect(Self.readBack(spill) == given)
    }

    /// A device whose every write fails as on a full disk (Linux's /dev/full; nil where there is none).
    static func fullDisk() -> Int32? {
        let fd = open("/dev/full", O_WRONLY)
        return fd >= 0 ? fd : nil
    }

    /// When writes fail (a full disk: /dev/full), nothing is lost: the records not written stay in
    /// memory and read back after those written.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/dev/full")))
    func aFailedWriteKeepsTheRecordsInMemory() throws {
        let given = Self.records(count: 200, seed: 7)
        let fd = try #require(Self.fullDisk())
        let spill = FileRecordStore(descriptor: fd)
        #expect(spill.isOnDisk)
        for r in given { spill.append(r) }
        #expect(!spill.isOnDisk, "the file failed: no more records go to it")
        #expect(spill.bytes.onDisk == 0)
        #expect(Self.readBack(spill) == given)
    }

    /// A file that cannot be read back (here open for writing only, so every read fails) stops
    /// the pass and keeps the failure: the storage's check throws it as one line saying what
    /// failed (it used to end the process through a global handler).
    @Test func aFileThatCannotBeReadBackIsAThrownError() throws {
        let storage = FileRecordStorage()
        let store = FileRecordStore(descriptor: open("/dev/null", O_WRONLY), failures: storage.failures)
        for r in FileRecordStoreTests.records(count: 50, seed: 9) { store.append(r) }
        #expect(store.bytes.onDisk > 0)
        try storage.check()
        var read = 0
        store.forEach { _ in read += 1 }
        #expect(read < 50)
        #expect(store.record(at: 0).isEmpty)
        let error = try #require(throws: ScaleError.self) { try storage.check() }
        #expect(error.code == .readBack)
        #expect(!error.description.contains("\n"))
        #expect(error.description.hasPrefix("cannot read back a temporary file of per-user figures"))
        #expect(error.description.contains("TMPDIR"))
        #expect(store.failure?.description == error.description)
        // Another store of the storage reads back, and the first failure is still the one thrown.
        let other = storage.makeStore()
        other.append([1, 2, 3])
        var records: [[UInt8]] = []
        other.forEach { records.append(Array($0)) }
        #expect(records == [[1, 2, 3]])
        #expect(throws: ScaleError.self) { try storage.check() }
    }

    /// A copy of the first n records (a value of ``StoredRecords`` appended after another copy
    /// did) is a store of its own: appending to either leaves the other.
    @Test func aCopyOfTheFirstRecordsIsIndependent() {
        let given = Self.records(count: 90, seed: 8)
        var records = StoredRecords(in: FileRecordStorage())
        for r in given.prefix(40) { records.append(r) }
        var copy = records
        for r in given.dropFirst(40) { records.append(r) }
        copy.append([1, 2, 3])
        records.append([9])
        func read(_ r: StoredRecords) -> [[UInt8]] {
            var out: [[UInt8]] = []
            r.forEach { out.append(Array($0)) }
            return out
        }
        #expect(read(copy) == Array(given.prefix(40)) + [[1, 2, 3]])
        #expect(read(records) == given + [[9]])
        #expect(copy.bytes.onDisk > 0 && records.bytes.onDisk > 0)
    }
}

extension FileRecordStoreTests {
    /// Any record reads back alone, in any order, from the file, from memory, and from a spill
    /// whose writes failed (where the system has a device that fails them).
    @Test func eachRecordReadsBackAlone() throws {
        let given = Self.records(count: 150, seed: 9)
        let failing = Self.fullDisk().map { [FileRecordStore(descriptor: $0)] } ?? []
        for spill in [FileRecordStore(), FileRecordStore(directory: "/nonexistent/fetchlab")] + failing {
            for r in given { spill.append(r) }
            for i in given.indices.reversed() { #expect(spill.record(at: i) == given[i], "record \(i)") }
        }
    }
}
