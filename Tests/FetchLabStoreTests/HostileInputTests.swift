import _FetchLabTestSupport
import FetchLabIngest
import FetchLabResults
@testable import FetchLabStore
import Foundation
import GRDB
import Testing

/// Odd and hostile input: each gives a clear message naming the file and line or byte offset,
/// and never changes the database unless the file imports.
@Suite struct HostileInputTests {
    func expectFailure(_ f: Fixture, _ path: String, options: ReadOptions = ReadOptions(), contains text: String)
        throws
    {
        let before = try f.count("usage_event")
        let imports = try f.count("import")
        let error = #expect(throws: IngestError.self) { try f.importer.importFile(path, options: options) }
        let message = error.map { "\($0)" } ?? ""
        #expect(message.contains(text), "\(message)")
        #expect(message.hasPrefix(path), "\(message)")
        #expect(!message.contains("\n"))
        #expect(try f.count("usage_event") == before)
        #expect(try f.count("import") == imports)
    }

    @Test func gzipTrailerLengthMismatchNamesTheOffset() throws {
        let f = try Fixture()
        var gz = try gzip(Data("timestamp,user,app\n2024-03-01T12:00:00Z,u,a\n".utf8))
        gz[gz.count - 1] ^= 0x01  // ISIZE, the last four bytes
        try expectFailure(f, try f.dir.write("isize.csv.gz", gz), contains: "byte ")
    }

    @Test func aDecompressionBombIsRefusedUnlessTheLimitIsLifted() throws {
        let f = try Fixture()
        // 80 MB of line breaks squeeze into ~80 KB: a ratio near 1000:1.
        let bomb = try gzip(Data(repeating: 0x0A, count: 80_000_000), arguments: ["-c", "-n", "-9"])
        let path = try f.dir.write("bomb.csv.gz", bomb)
        try expectFailure(f, path, contains: "decompression bomb")
        var lifted = ReadOptions()
        lifted.maxRatio = nil
        let s = try f.importer.importFile(path, options: lifted)
        #expect(s.counts.rows == 0)
        var capped = ReadOptions()
        capped.maxRatio = nil
        capped.maxDecompressedBytes = 1_000_000
        try expectFailure(f, try f.dir.write("bomb2.csv.gz", bomb + Data([0])), options: capped, contains: "--max-size")
    }

    @Test func binaryJunkInACSVIsRefusedAtItsHeader() throws {
        let f = try Fixture()
        var rng = SystemRandomNumberGenerator()
        let junk = Data((0..<4096).map { _ in UInt8.random(in: 0...255, using: &rng) })
        let error = #expect(throws: IngestError.self) { try f.importer.importFile(try f.dir.write("junk.csv", junk)) }
        #expect(error.map { "\($0)".hasPrefix(f.dir.path("junk.csv")) } == true)
        #expect(try f.count("import") == 0)
    }

    @Test func crOnlyLineEndingsAndQuotedLineBreaks() throws {
        let f = try Fixture()
        let cr = try f.dir.write(
            "cr.csv", "timestamp,user,app\r2024-03-01T12:00:00Z,u1,com.a\r2024-03-01T13:00:00Z,u1,com.b\r")
        #expect(try f.importer.importFile(cr).inserted.usageEvents == 2)
        let quoted = try f.dir.write(
            "q.csv",
            "timestamp,user,app\n2024-03-02T12:00:00Z,u2,\"com.a\nwith a break, a comma and \"\"quotes\"\"\"\n"
                + "2024-03-02T13:00:00Z,u2,com.b\n2024-03-02T14:00:00Z,u2,\"never closed\n")
        let s = try f.importer.importFile(quoted)
        #expect(s.counts.rows == 3)
        #expect(s.inserted.usageEvents == 2)
        #expect(s.firstRejects.map(\.line) == [5])
        #expect(s.firstRejects.first?.reason.contains("unclosed quote") == true)
        #expect(try f.launches("u2").map(\.0).first == "com.a\nwith a break, a comma and \"quotes\"")
    }

    @Test func invalidUTF8NamesAreRejectedNotMangled() throws {
        let f = try Fixture()
        var data = Data("timestamp,user,app\n2024-03-01T12:00:00Z,u1,com.".utf8)
        data += Data([0xFF, 0xFE])
        data +=
            Data("\n2024-03-01T12:00:00Z,u1,com.ok\n2024-03-01T12:00:00Z,".utf8) + Data([0xC3]) + Data(",com.ok\n".utf8)
        let s = try f.importer.importFile(try f.dir.write("utf8.csv", data))
        #expect(s.inserted.usageEvents == 1)
        #expect(s.firstRejects.map(\.line) == [2, 4])
        #expect(s.firstRejects.map(\.reason) == ["app name is not valid UTF-8", "user name is not valid UTF-8"])
    }

    @Test func aTenMegabyteLineIsOneRejectAndTheRestImports() throws {
        let f = try Fixture()
        let long = String(repeating: "x", count: 10_000_000)
        let path = try f.dir.writeGzip(
            "long.csv.gz", "timestamp,user,app\n2024-03-01T12:00:00Z,u1,\(long),extra\n2024-03-01T13:00:00Z,u1,com.b\n")
        let s = try f.importer.importFile(path)
        #expect(s.counts.rejected == 1 && s.inserted.usageEvents == 1)
        let raw = try f.rows("SELECT raw FROM rejected_row").first?["raw"] as String?
        #expect((raw?.utf8.count ?? .max) <= RejectedRow.maxRawBytes)
    }

    /// Found by the fuzzer: NULs and invalid bytes grow when made readable; the raw text stays cut.
    @Test func rejectedRawTextStaysWithinItsLimitEvenWhenEscaped() throws {
        let f = try Fixture()
        var data = Data("timestamp,user,app\n2024-03-01T12:00:00Z,u1,".utf8)
        data += Data(repeating: 0, count: 600) + Data(repeating: 0xD2, count: 600) + Data("\n".utf8)
        let s = try f.importer.importFile(try f.dir.write("nul.csv", data))
        #expect(s.counts.rejected == 1)
        let raw = try #require(try f.rows("SELECT raw FROM rejected_row").first?["raw"] as String?)
        #expect(raw.utf8.count <= RejectedRow.maxRawBytes)
        #expect(raw.hasPrefix("2024-03-01T12:00:00Z,u1,\u{2400}"))
    }

    @Test func absurdlyLongNamesAreRejected() throws {
        let f = try Fixture()
        let long = String(repeating: "n", count: 5_000)
        let s = try f.importer.importFile(
            try f.dir.write(
                "names.csv", "timestamp,user,app\n2024-03-01T12:00:00Z,u1,\(long)\n2024-03-01T12:00:00Z,\(long),com.a\n"
            ))
        #expect(
            s.firstRejects.map(\.reason) == ["app name longer than 1024 bytes", "user name longer than 1024 bytes"])
        #expect(try f.count("app") == 0)
    }

    @Test func emptyValuesAndFarFutureTimesAreRejectsWithReasons() throws {
        let f = try Fixture()
        let path = try f.dir.write(
            "e.csv",
            "timestamp,user,app\n,u1,com.a\n2024-03-01T12:00:00Z,,com.a\n2024-03-01T12:00:00Z,u1,\n2150-01-01T00:00:00Z,u1,com.a\n1970-01-01T00:00:00Z,u1,com.a\n"
        )
        let s = try f.importer.importFile(path)
        #expect(s.inserted.usageEvents == 0)
        #expect(s.firstRejects.map(\.line) == [2, 3, 4, 5, 6])
        let reasons = s.firstRejects.map(\.reason)
        #expect(reasons[0] == "empty timestamp" && reasons[1] == "empty user" && reasons[2] == "empty app")
        #expect(reasons[3].contains("outside") && reasons[4].contains("placeholder"))
    }

    @Test func sqlLookingNamesAreStoredVerbatim() throws {
        let f = try Fixture()
        let evil = ["'); DROP TABLE usage_event;--", "a\"b;c", "Robert'); DELETE FROM app; --"]
        var text = "timestamp,user,app\n"
        for (i, name) in evil.enumerated() {
            text +=
                "2024-03-01T12:0\(i):00Z,\"\(name.replacingOccurrences(of: "\"", with: "\"\""))\",\"\(name.replacingOccurrences(of: "\"", with: "\"\""))\"\n"
        }
        let s = try f.importer.importFile(try f.dir.write("evil.csv", text))
        #expect(s.inserted.usageEvents == 3)
        let stored = try f.rows("SELECT user, app FROM usage_events ORDER BY time_us")
        #expect(stored.map { $0["app"] as String } == evil)
        #expect(stored.map { $0["user"] as String } == evil)
        #expect(try f.count("app") == 3)
    }
}
