import Foundation
import Testing

@testable import FetchLabCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite struct RecordSpillTests {
    /// Records of every length (empty, odd, past the read chunk), seeded.
    static func records(count: Int, seed: UInt64) -> [[UInt8]] {
        var rng = SplitMix64(seed: seed)
        return (0..<count).map { i in
            let length =
                i == 3 ? 0 : i == 7 ? RecordSpill.readSize + 13 : Int(rng.next() % 9_000)
            return (0..<length).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        }
    }

    static func readBack(_ spill: RecordSpill, first: Int? = nil) -> [[UInt8]] {
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
        let spill = RecordSpill()
        for r in given { spill.append(r) }
        #expect(spill.isOnDisk)
        #expect(spill.count == given.count)
        let bytes = spill.bytes
        let total = given.reduce(0) { $0 + 8 + $1.count + RecordSpill.padding($1.count) }
        #expect(bytes.onDisk + bytes.inMemory == total)
        #expect(bytes.inMemory < RecordSpill.bufferSize + RecordSpill.readSize + 32)
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
        let spill = RecordSpill()
        for r in given { spill.append(r) }
        let reads = ParallelMap.map(Array(0..<6)) { _ in Self.readBack(spill) }
        for read in reads { #expect(read == given) }
    }

    /// Where no file can be made, the records stay in memory and read back the same.
    @Test func withoutATemporaryFileTheRecordsStayInMemory() {
        let given = Self.records(count: 120, seed: 6)
        let spill = RecordSpill(directory: "/nonexistent/fetchlab-spill-test")
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
        let spill = RecordSpill(descriptor: fd)
        #expect(spill.isOnDisk)
        for r in given { spill.append(r) }
        #expect(!spill.isOnDisk, "the file failed: no more records go to it")
        #expect(spill.bytes.onDisk == 0)
        #expect(Self.readBack(spill) == given)
    }

    /// A file that cannot be read back (here open for writing only, so every read fails) ends the
    /// process through the handler set, given one line saying what failed, not a crash. The exit
    /// test runs in a process of its own.
    @Test func aFileThatCannotBeReadBackEndsTheRunThroughTheHandler() async {
        let result = await #expect(processExitsWith: .exitCode(3), observing: [\.standardErrorContent]) {
            RecordSpill.onReadFailure { message in
                FileHandle.standardError.write(Data("failed: \(message)\n".utf8))
                exit(3)
            }
            let spill = RecordSpill(descriptor: open("/dev/null", O_WRONLY))
            for r in RecordSpillTests.records(count: 50, seed: 9) { spill.append(r) }
            #expect(spill.bytes.onDisk > 0)
            spill.forEach { _ in }
        }
        let lines = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 1, "\(lines)")
        #expect(lines.first?.hasPrefix("failed: cannot read back a temporary file of per-user figures") == true)
        #expect(lines.first?.contains("TMPDIR") == true)
    }

    /// A copy of the first n records is a spill of its own: appending to either leaves the other.
    @Test func aCopyOfTheFirstRecordsIsIndependent() {
        let given = Self.records(count: 90, seed: 8)
        let spill = RecordSpill()
        for r in given { spill.append(r) }
        let copy = spill.copy(first: 40)
        copy.append([1, 2, 3])
        spill.append([9])
        #expect(Self.readBack(copy) == Array(given.prefix(40)) + [[1, 2, 3]])
        #expect(Self.readBack(spill) == given + [[9]])
    }
}

extension RecordSpillTests {
    /// Any record reads back alone, in any order, from the file, from memory, and from a spill
    /// whose writes failed (where the system has a device that fails them).
    @Test func eachRecordReadsBackAlone() throws {
        let given = Self.records(count: 150, seed: 9)
        let failing = Self.fullDisk().map { [RecordSpill(descriptor: $0)] } ?? []
        for spill in [RecordSpill(), RecordSpill(directory: "/nonexistent/fetchlab")] + failing {
            for r in given { spill.append(r) }
            for i in given.indices.reversed() { #expect(spill.record(at: i) == given[i], "record \(i)") }
        }
    }
}
