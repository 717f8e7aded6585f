import Foundation
import Testing
import _FetchLabTestSupport

@testable import FetchLabIngest

/// Compressions and encodings FetchLab does not read are named, with the command that converts
/// them; a file that shrinks while it is read is an error.
@Suite struct SniffTests {
    let dir = TemporaryDirectory()

    /// The error reading `bytes` (as a file named `name`) gives, if any.
    func readError(_ bytes: [UInt8], name: String = "log.csv") throws -> IngestError? {
        let path = try dir.write(name, Data(bytes))
        do {
            let reader = try DecompressingReader(path: path, source: name)
            while try reader.nextChunk() != nil {}
            return nil
        } catch {
            return error
        }
    }

    static let csv = Array("timestamp,user,app\n2024-03-01T12:00:00Z,u,a\n".utf8)

    @Test(arguments: [
        ([0x28, 0xB5, 0x2F, 0xFD] as [UInt8], "zstd-compressed data", "(zstd -d log.csv)"),
        ([0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00], "xz-compressed data", "(xz -d log.csv)"),
        (Array("BZh9".utf8) + [0x31, 0x41, 0x59, 0x26, 0x53, 0x59], "bzip2-compressed data", "(bunzip2 log.csv)"),
        (Array("PK".utf8) + [0x03, 0x04], "zip archive data", "(unzip -p log.csv > log.csv.csv)"),
        ([0x37, 0x7A, 0xBC, 0xAF, 0x27, 0x1C], "7z archive data", "(7z x log.csv)"),
        ([0x04, 0x22, 0x4D, 0x18], "lz4-compressed data", "(lz4 -d log.csv)"),
        ([0xFF, 0xFE], "UTF-16 (little-endian) text data", "(iconv -f UTF-16 -t UTF-8 log.csv > log.csv.utf8)"),
        ([0xFE, 0xFF], "UTF-16 (big-endian) text data", "(iconv -f UTF-16 -t UTF-8 log.csv > log.csv.utf8)"),
        ([0xFF, 0xFE, 0x00, 0x00], "UTF-32 (little-endian) text data", "iconv -f UTF-32LE"),
    ])
    func magicBytesAreNamed(magic: [UInt8], what: String, command: String) throws {
        let error = try #require(try readError(magic + [UInt8](repeating: 0x41, count: 40)))
        #expect(error.description.hasPrefix("log.csv: \(what): "), "\(error)")
        #expect(error.description.contains(command), "\(error)")
        #expect(!error.description.contains("\n"))
    }

    @Test func utf16WithoutAByteOrderMarkIsRecognisedByItsNULs() throws {
        let le: [UInt8] = Self.csv.flatMap { [$0, 0] }
        let be: [UInt8] = Self.csv.flatMap { [0, $0] }
        #expect(try readError(le)?.message.hasPrefix("UTF-16 (little-endian) text data") == true)
        #expect(try readError(be)?.message.hasPrefix("UTF-16 (big-endian) text data") == true)
        #expect(try readError(Self.csv.flatMap { [$0, 0, 0, 0] })?.message.hasPrefix("UTF-32 (little-endian)") == true)
    }

    @Test func foreignDataInsideGzipIsNamed() throws {
        let zstd: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD] + [UInt8](repeating: 0x41, count: 40)
        let error = try #require(try readError(DecompressionFixtures.gzip(zstd), name: "log.zst.gz"))
        #expect(error.description.hasPrefix("log.zst.gz: zstd-compressed data inside gzip: "), "\(error)")
        #expect(error.description.contains("gunzip, then zstd -d"), "\(error)")
        let utf16 = try #require(
            try readError(DecompressionFixtures.gzip([0xFF, 0xFE] + Self.csv.flatMap { [$0, 0] })))
        #expect(utf16.message.hasPrefix("UTF-16 (little-endian) text data inside gzip"), "\(utf16)")
    }

    @Test func plainTextWithControlCharactersIsNotForeign() throws {
        #expect(try readError(Array("timestamp,user,app\n2024-03-01T12:00:00Z,u\u{0},a\u{1B}\n".utf8)) == nil)
        #expect(try readError(Array("BZh is a name,x\n".utf8)) == nil)
        #expect(try readError(Array("PK,x\n".utf8)) == nil)
        #expect(try readError(DecompressionFixtures.gzip(Self.csv)) == nil)
        #expect(try readError([]) == nil)
    }

    @Test func aFileThatShrinksWhileReadIsAnError() throws {
        let path = try dir.write("shrinking.csv", Data(repeating: 0x41, count: 100_000))
        let reader = try DecompressingReader(path: path, chunkSize: 4096)
        _ = try reader.nextChunk()
        // Cut the file after it was opened and partly read.
        #expect(truncate(path, 10_000) == 0)
        var caught: IngestError?
        do { while try reader.nextChunk() != nil {} } catch { caught = error }
        let e = try #require(caught)
        #expect(e.code == .io)
        #expect(e.message.hasPrefix("changed while being read: the file had 100000 bytes when opened"), "\(e)")
    }

    @Test func aFileReadAsItIsIsNoError() throws {
        let path = try dir.write("whole.csv", Data(Self.csv))
        let reader = try DecompressingReader(path: path)
        var total = 0
        while let chunk = try reader.nextChunk() { total += chunk.count }
        #expect(total == Self.csv.count)
    }
}
