import Testing

@testable import FetchLabCore

/// A record written field by field reads back field by field, in place where the fields are
/// aligned, through a store that keeps records 8-byte aligned.
@Suite struct RecordFieldsTests {
    @Test func fieldsReadBackInTheOrderWritten() {
        var writer = RecordWriter()
        writer.put(Int64(-7))
        writer.put(2.5)
        writer.put(Int32(3))
        writer.put(contentsOf: [Int32(10), 20, 30])
        writer.align(to: 8)
        writer.put(UInt8(9))
        #expect(writer.bytes.count == 8 + 8 + 4 + 12 + 0 + 1)  // 32 bytes before the UInt8: aligned already
        let store = MemoryRecordStore()
        store.append(writer.bytes)
        var seen = 0
        store.forEach { bytes in
            var reader = RecordReader(bytes)
            #expect(reader.read(Int64.self) == -7)
            #expect(reader.read(Double.self) == 2.5)
            let n = Int(reader.read(Int32.self))
            let next = reader.withFields(Int32.self, count: n) { Array($0) }
            #expect(next == [10, 20, 30])
            reader.align(to: 8)
            #expect(reader.offset == 32)
            #expect(reader.read(UInt8.self) == 9)
            #expect(reader.isAtEnd)
            seen += 1
        }
        #expect(seen == 1)
    }

    @Test func alignmentPadsWithZerosAndSkipPassesFields() {
        var writer = RecordWriter()
        writer.put(Int32(1))
        writer.align(to: 8)
        #expect(writer.bytes == [1, 0, 0, 0, 0, 0, 0, 0])
        writer.align(to: 8)
        #expect(writer.bytes.count == 8)  // already aligned: nothing added
        writer.put(contentsOf: [1.0, 2.0, 3.0])
        writer.put(Int64(42))
        writer.bytes.withUnsafeBytes { bytes in
            var reader = RecordReader(bytes)
            reader.skip(Int32.self)
            reader.align(to: 8)
            reader.skip(Double.self, count: 3)
            #expect(reader.read(Int64.self) == 42)
            #expect(reader.isAtEnd)
        }
    }
}
