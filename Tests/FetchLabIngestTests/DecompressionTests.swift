import FetchLabCore
import CZlib
import Foundation
import Testing
import _FetchLabTestSupport

@testable import FetchLabIngest

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Fixtures built at run time with the system zlib.
enum DecompressionFixtures {
    /// Compresses `data` with zlib's deflate. windowBits: 31 = gzip, 15 = zlib, -15 = raw deflate.
    static func deflate(_ data: [UInt8], windowBits: Int32, level: Int32 = 6) -> [UInt8] {
        // zlib keeps a pointer back to the stream: it must not move between calls.
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer {
            deflateEnd(stream)
            stream.deinitialize(count: 1)
            stream.deallocate()
        }
        let status = deflateInit2_(
            stream, level, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY, zlibVersion(),
            Int32(MemoryLayout<z_stream>.size))
        precondition(status == Z_OK, "deflateInit2 failed: \(status)")
        var output = [UInt8](repeating: 0, count: Int(deflateBound(stream, uLong(data.count))) + 64)
        var produced = 0
        data.withUnsafeBytes { input in
            output.withUnsafeMutableBytes { out in
                stream.pointee.next_in = UnsafeMutablePointer(
                    mutating: input.baseAddress?.assumingMemoryBound(to: UInt8.self))
                stream.pointee.avail_in = uInt(input.count)
                stream.pointee.next_out = out.baseAddress?.assumingMemoryBound(to: UInt8.self)
                stream.pointee.avail_out = uInt(out.count)
                let result = CZlib.deflate(stream, Z_FINISH)
                precondition(result == Z_STREAM_END, "deflate did not finish: \(result)")
                produced = out.count - Int(stream.pointee.avail_out)
            }
        }
        return Array(output[0..<produced])
    }

    static func gzip(_ data: [UInt8], level: Int32 = 6) -> [UInt8] { deflate(data, windowBits: 31, level: level) }
    static func zlib(_ data: [UInt8]) -> [UInt8] { deflate(data, windowBits: 15) }
    static func rawDeflate(_ data: [UInt8]) -> [UInt8] { deflate(data, windowBits: -15) }

    /// Log-like CSV text, deterministic for a seed.
    static func logText(lines: Int, seed: UInt64) -> [UInt8] {
        var rng = SplitMix64(seed: seed)
        let apps = ["com.example.mail", "org.sample.maps", "net.demo.chat", "io.test.music", "com.acme.notes"]
        var out = [UInt8]()
        out.reserveCapacity(lines * 64)
        out += Array("timestamp,app,event,duration_ms\n".utf8)
        var t: UInt64 = 1_702_991_395_000
        for _ in 0..<lines {
            t += rng.next() % 5_000
            let app = apps[Int(rng.next() % UInt64(apps.count))]
            let line = "\(t),\(app),\(rng.next() % 2 == 0 ? "open" : "close"),\(rng.next() % 100_000)\n"
            out += Array(line.utf8)
        }
        return out
    }

    /// A fresh temporary directory, removed by the caller.
    static func makeDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("fl-ingest-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func write(_ bytes: [UInt8], _ name: String, in directory: URL) throws -> String {
        let url = directory.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    /// Reads everything; returns the bytes and the number of chunks.
    static func readAll(_ reader: DecompressingReader) throws(IngestError) -> (bytes: [UInt8], chunks: Int) {
        var bytes = [UInt8]()
        var chunks = 0
        while let chunk = try reader.nextChunk() {
            #expect(chunk.count > 0)
            bytes.append(contentsOf: chunk)
            chunks += 1
        }
        return (bytes, chunks)
    }

    /// Reads until an error; returns the bytes read before it and the error.
    static func readUntilError(_ reader: DecompressingReader) -> (bytes: [UInt8], error: IngestError?) {
        var bytes = [UInt8]()
        do {
            while let chunk = try reader.nextChunk() { bytes.append(contentsOf: chunk) }
        } catch {
            return (bytes, error)
        }
        return (bytes, nil)
    }
}

@Suite("DecompressingReader")
struct DecompressionTests {
    typealias F = DecompressionFixtures

    @Test("gzip: bytes, format, counters and SHA-256 of the raw file")
    func gzipSingleMember() throws {
        let dir = try F.makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let original = F.logText(lines: 2_000, seed: 1)
        let gz = F.gzip(original)
        let path = try F.write(gz, "events.csv", in: dir)  // name says nothing about gzip

        let reader = try DecompressingReader(path: path)
        #expect(reader.format == nil)
        #expect(reader.totalBytes == Int64(gz.count))
        #expect(reader.source == path)
        let (bytes, _) = try F.readAll(reader)
        #expect(reader.format == .gzip)
        #expect(bytes == original)
        #expect(reader.decompressedBytes == Int64(original.count))
        #expect(reader.compressedBytesRead == Int64(gz.count))
        #expect(reader.contentSHA256Hex == gz.withUnsafeBytes { SHA256.hex(SHA256.hash($0)) })
        #expect(try reader.nextChunk() == nil)  // stays at the end
    }

    @Test("multi-member gzip (cat a.gz b.gz c.gz), across chunk boundaries", arguments: [64, 1_000, 1 << 18])
    func multiMember(chunkSize: Int) throws {
        let dir = try F.makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let a = F.logText(lines: 300, seed: 2)
        let b = F.logText(lines: 5, seed: 3)
        let c = F.logText(lines: 1_000, seed: 4)
        let path = try F.write(F.gzip(a) + F.gzip(b) + F.gzip([]) + F.gzip(c), "multi.gz", in: dir)
        let reader = try DecompressingReader(path: path, chunkSize: chunkSize)
        let (bytes, _) = try F.readAll(reader)
        #expect(reader.format == .gzip)
        #expect(bytes == a + b + c)
    }

    @Test("zero padding after and between gzip members is tolerated")
    func zeroPadding() throws {
        let dir = try F.makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let a = F.logText(lines: 100, seed: 5)
        let b = F.logText(lines: 100, seed: 6)
        let zeros = [UInt8](repeating: 0, count: 700)
        let path = try F.write(F.gzip(a) + zeros + F.gzip(b) + zeros, "padded.gz", in: dir)
        let reader = try DecompressingReader(path: path, chunkSize: 256)
        #expect(try F.readAll(reader).bytes == a + b)
    }

    @Test("zlib stream is detected from its header")
    func zlibStream() throws {
        let dir = try F.makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let original = F.logText(lines: 1_500, seed: 7)
        let z = F.zlib(original)
        #expect(DecompressingReader.isZlibHeader(z[0], z[1]))
        let path = try F.write(z, "events.gz", in: dir)  // wrong name on purpose
        let reader = try DecompressingReader(path: path, chunkSize: 4_096)
        let (bytes, chunks) = try F.readAll(reader)
        #expect(reader.format == .zlib)
        #expect(bytes == original)
        #expect(chunks > 1)
    }

    @Test("plain text passes through unchanged, whatever the file name")
    func plainText() throws {
        let dir = try F.makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let original = F.logText(lines: 3_000, seed: 8)
        let path = try F.write(original, "looks-compressed.gz", in: dir)
        let reader = try DecompressingReader(path: path, chunkSize: 10_000)
        let (bytes, chunks) = try F.readAll(reader)
        #expect(reader.format == .plain)
        #expect(bytes == original)
        #expect(chunks >= original.count / 10_000)
        #expect(reader.decompressedBytes == Int64(original.count))
        #expect(reader.compressedBytesRead == Int64(original.count))

        // A one-byte file, including a lone gzip magic byte, is plain.
        for single: [UInt8] in [[0x41], [0x1f]] {
            let one = try F.write(single, "one", in: dir)
            let r = try DecompressingReader(path: one)
            #expect(try F.readAll(r).bytes == single)
            #expect(r.format == .plain)
        }
    }

    @Test("zlib header detection rule")
    func zlibHeaderRule() {
        #expect(DecompressingReader.isZlibHeader(0x78, 0x9c))
        #expect(DecompressingReader.isZlibHeader(0x78, 0x01))
        #expect(DecompressingReader.isZlibHeader(0x78, 0xda))
        #expect(DecompressingReader.isZlibHeader(0x58, 0x85))  // window 2^13
        #expect(!DecompressingReader.isZlibHeader(0x78, 0x9d))  // checksum
        #expect(!DecompressingReader.isZlibHeader(0x88, 0x98))  // window > 32K (CINFO 8)
        #expect(!DecompressingReader.isZlibHeader(0x38, 0x30))  // "80…": FDICT set
        #expect(!DecompressingReader.isZlibHeader(0x74, 0x69))  // "ti…"
    }

    @Test("raw deflate only with rawDeflate: true")
    func rawDeflate() throws {
        let dir = try F.makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let original = F.logText(lines: 2_000, seed: 9)
        let path = try F.write(F.rawDeflate(original), "raw.bin", in: dir)
        let reader = try DecompressingReader(path: path, rawDeflate: true, chunkSize: 8_192)
        #expect(try F.readAll(reader).bytes == original)
        #expect(reader.format == .deflate)

        // Without the option the same bytes are not gzip.
        let auto = try DecompressingReader(path: path)
        _ = try? F.readAll(auto)
        #expect(auto.format != .gzip)

        // Trailing bytes after the deflate stream are an error.
        let trailing = try F.write(F.rawDeflate(original) + Array("junk".utf8), "raw-trailing.bin", in: dir)
        let bad = F.readUntilError(try DecompressingReader(path: trailing, rawDeflate: true))
        #expect(bad.error?.message == "unexpected data after deflate stream")
        #expect(bad.bytes == original)
    }

    @Test("truncated gzip reports the end-of-file offset after the data before it")
    func truncated() throws {
        let dir = try F.makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let original = F.logText(lines: 5_000, seed: 10)
        let gz = F.gzip(original)
        for cut in [gz.count / 2, gz.count - 4, gz.count - 1, 11] {
            let path = try F.write(Array(gz[0..<cut]), "cut.gz", in: dir)
            let reader = try DecompressingReader(path: path, chunkSize: 4_096)
            let (bytes, error) = F.readUntilError(reader)
            let e = try #require(error)
            #expect(e.code == .compression)
            #expect(e.message == "truncated gzip stream (unexpected end of file)")
            #expect(e.offset == Int64(cut))
            #expect(e.source == path)
            #expect(e.description == "\(path): byte \(cut): truncated gzip stream (unexpected end of file)")
            #expect(Array(original.prefix(bytes.count)) == bytes)
            #expect(throws: IngestError.self) { try reader.nextChunk() }  // the error sticks
        }
    }

    @Test("truncated zlib stream")
    func truncatedZlib() throws {
        let dir = try F.makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let z = F.zlib(F.logText(lines: 500, seed: 11))
        let path = try F.write(Array(z.dropLast(10)), "cut.z", in: dir)
        let e = try #require(F.readUntilError(try DecompressingReader(path: path)).error)
        #expect(e.message == "truncated zlib stream (unexpected end of file)")
        #expect(e.offset == Int64(z.count - 10))
    }

    @Test("corrupt CRC and length in the gzip trailer")
    func corruptTrailer() throws {
        let dir = try F.makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let original = F.logText(lines: 1_000, seed: 12)
        let gz = F.gzip(original)
        var badCRC = gz
        badCRC[gz.count - 8] ^= 0xff
        var badLength = gz
        badLength[gz.count - 1] ^= 0x01
        for (bytes, message) in [(badCRC, "incorrect data check"), (badLength, "incorrect length check")] {
            let path = try F.write(bytes, "bad.gz", in: dir)
            let (out, error) = F.readUntilError(try DecompressingReader(path: path))
            let e = try #require(error)
            #expect(e.code == .compression)
            #expect(e.message == "corrupt gzip stream: \(message)")
            let offset = try #require(e.offset)
            #expect(offset > Int64(gz.count - 12) && offset <= Int64(gz.count))
            #expect(out == original)  // the data itself was delivered before the check failed
        }
    }

    @Test("corrupt header and corrupt deflate data")
    func corruptHeaderAndData() throws {
        let dir = try F.makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let original = F.logText(lines: 1_000, seed: 13)
        let gz = F.gzip(original)

        var badMethod = gz
        badMethod[2] = 7  // compression method must be 8 (deflate)
        var path = try F.write(badMethod, "bad-method.gz", in: dir)
        var e = try #require(F.readUntilError(try DecompressingReader(path: path)).error)
        #expect(e.message == "corrupt gzip stream: unknown compression method")
        #expect(e.offset.map { $0 <= 10 } == true)

        var badFlags = gz
        badFlags[3] = 0xe0  // reserved flag bits
        path = try F.write(badFlags, "bad-flags.gz", in: dir)
        e = try #require(F.readUntilError(try DecompressingReader(path: path)).error)
        #expect(e.message == "corrupt gzip stream: unknown header flags set")

        var badBlock = gz
        badBlock[10] = 0x07  // first deflate block: BFINAL=1, BTYPE=11 (reserved)
        path = try F.write(badBlock, "bad-block.gz", in: dir)
        e = try #require(F.readUntilError(try DecompressingReader(path: path)).error)
        #expect(e.code == .compression)
        #expect(e.message == "corrupt gzip stream: invalid block type")
        #expect(e.offset == 11)

        var badZlib = F.zlib(original)
        badZlib[badZlib.count - 1] ^= 0x55  // Adler-32
        path = try F.write(badZlib, "bad.z", in: dir)
        e = try #require(F.readUntilError(try DecompressingReader(path: path)).error)
        #expect(e.message == "corrupt zlib stream: incorrect data check")
    }

    @Test("garbage after a gzip member")
    func garbageAfterMember() throws {
        let dir = try F.makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let a = F.logText(lines: 400, seed: 14)
        let gz = F.gzip(a)
        for tail: [UInt8] in [Array("hello".utf8), [0x1f], [0x1f, 0x00], [0, 0, 0, 0x42]] {
            let path = try F.write(gz + tail, "garbage.gz", in: dir)
            let (bytes, error) = F.readUntilError(try DecompressingReader(path: path, chunkSize: 512))
            let e = try #require(error)
            #expect(e.code == .compression)
            #expect(e.message == "unexpected data after gzip member")
            let zeros = tail.prefix { $0 == 0 }.count
            #expect(e.offset == Int64(gz.count + zeros))
            #expect(bytes == a)
        }
    }

    @Test("empty file: plain, no chunks, no error")
    func emptyFile() throws {
        let dir = try F.makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = try F.write([], "empty.gz", in: dir)
        for raw in [false, true] {
            let reader = try DecompressingReader(path: path, rawDeflate: raw)
            #expect(try reader.nextChunk() == nil)
            #expect(reader.format == .plain)
            #expect(reader.decompressedBytes == 0)
            #expect(reader.compressedBytesRead == 0)
            #expect(reader.totalBytes == 0)
            #expect(reader.contentSHA256Hex == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        }
    }

    @Test("large file over many chunks: identical bytes, monotonic progress")
    func largeFile() throws {
        let dir = try F.makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let original = F.logText(lines: 120_000, seed: 15)  // about 6 MB
        let gz = F.gzip(original, level: 1)
        let path = try F.write(gz, "big.gz", in: dir)
        let reader = try DecompressingReader(path: path, chunkSize: 65_536)
        var offset = 0
        var chunks = 0
        var lastCompressed: Int64 = 0
        var identical = true
        while let chunk = try reader.nextChunk() {
            chunks += 1
            #expect(chunk.count <= 65_536)
            if !original[offset..<offset + chunk.count].elementsEqual(chunk) { identical = false }
            offset += chunk.count
            #expect(reader.decompressedBytes == Int64(offset))
            #expect(reader.compressedBytesRead >= lastCompressed)
            #expect(reader.compressedBytesRead <= Int64(gz.count))
            lastCompressed = reader.compressedBytesRead
        }
        #expect(identical)
        #expect(offset == original.count)
        #expect(chunks >= original.count / 65_536)
        #expect(reader.compressedBytesRead == Int64(gz.count))
        #expect(reader.totalBytes == Int64(gz.count))
        #expect(reader.contentSHA256Hex == gz.withUnsafeBytes { SHA256.hex(SHA256.hash($0)) })
    }

    @Test("SHA-256 so far matches the raw prefix read, mid-stream and at the end")
    func shaMidStream() throws {
        let dir = try F.makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Many refills (1.5 MiB in 100 kB reads), the digest asked for between them.
        let original = F.logText(lines: 150_000, seed: 18)
        let gz = F.gzip(original, level: 1)
        #expect(gz.count > 3 << 19)  // 1.5 MiB
        let path = try F.write(gz, "sha.gz", in: dir)
        let reader = try DecompressingReader(path: path, chunkSize: 100_000)
        var chunks = 0
        var checked = 0
        while try reader.nextChunk() != nil {
            chunks += 1
            if chunks % 13 == 1 {
                let prefix = Int(reader.compressedBytesRead)
                let expected = gz.withUnsafeBytes {
                    SHA256.hex(SHA256.hash(UnsafeRawBufferPointer(rebasing: $0[0..<prefix])))
                }
                #expect(reader.contentSHA256Hex == expected, "after \(prefix) raw bytes")
                checked += 1
            }
        }
        #expect(checked > 3)
        #expect(reader.contentSHA256Hex == gz.withUnsafeBytes { SHA256.hex(SHA256.hash($0)) })
        #expect(reader.contentSHA256Hex == reader.contentSHA256Hex)
    }

    @Test("readers abandoned mid-stream release their resources")
    func abandonMidStream() throws {
        let dir = try F.makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let original = F.logText(lines: 80_000, seed: 19)
        let path = try F.write(original, "plain.csv", in: dir)
        for _ in 0..<50 {
            let reader = try DecompressingReader(path: path, chunkSize: 300_000)
            for _ in 0..<5 { _ = try reader.nextChunk() }
            #expect(reader.compressedBytesRead == 1_500_000)
        }
    }

    @Test("output is the same with gzip(1) as compressor")
    func systemGzip() throws {
        let tool = "/usr/bin/gzip"
        guard FileManager.default.isExecutableFile(atPath: tool) else { return }
        let dir = try F.makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let original = F.logText(lines: 10_000, seed: 16)
        let path = try F.write(original, "events.csv", in: dir)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = ["-9", "-k", path]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let reader = try DecompressingReader(path: path + ".gz")
        #expect(try F.readAll(reader).bytes == original)
        #expect(reader.format == .gzip)
    }

    @Test("reading from a pipe: no total size, same bytes")
    func pipeInput() throws {
        let original = F.logText(lines: 20_000, seed: 17)
        let gz = F.gzip(original) + F.gzip(original)
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let (readEnd, writeEnd) = (fds[0], fds[1])
        let writer = Thread {
            gz.withUnsafeBytes { buf in
                var offset = 0
                while offset < buf.count, let base = buf.baseAddress {
                    let n = write(writeEnd, base + offset, min(3_000, buf.count - offset))
                    if n <= 0 { break }
                    offset += n
                }
            }
            close(writeEnd)
        }
        writer.start()
        let reader = DecompressingReader(fileDescriptor: readEnd, source: "-", closeOnDeinit: true)
        #expect(reader.totalBytes == nil)
        #expect(try F.readAll(reader).bytes == original + original)
        #expect(reader.compressedBytesRead == Int64(gz.count))
    }

    @Test("nonexistent path and directory are I/O errors")
    func openErrors() throws {
        let dir = try F.makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let missing = dir.appendingPathComponent("nope.gz").path
        do {
            _ = try DecompressingReader(path: missing)
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .io)
            #expect(error.source == missing)
            #expect(error.message == "cannot open: No such file or directory")
        }
        do {
            _ = try DecompressingReader(path: dir.path, source: "logs/")
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .io)
            #expect(error.source == "logs/")
            #expect(error.message.contains("is a directory"))
            #expect(error.description == "logs/: cannot read: is a directory")
        }
    }

    @Test("a failing read is one I/O error line naming the input and the offset")
    func readErrors() throws {
        let dir = try F.makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // A directory opened elsewhere: open succeeds, read fails with EISDIR.
        let fd = open(dir.path, O_RDONLY)
        try #require(fd >= 0)
        let e = try #require(
            F.readUntilError(DecompressingReader(fileDescriptor: fd, source: "logs/", closeOnDeinit: true)).error)
        #expect(e.code == .io)
        #expect(e.description == "logs/: byte 0: cannot read: is a directory")

        // Not a descriptor (EBADF).
        let bad = try #require(
            F.readUntilError(DecompressingReader(fileDescriptor: -1, source: "in", closeOnDeinit: false)).error)
        #expect(bad.code == .io)
        #expect(bad.description == "in: byte 0: read failed: Bad file descriptor")
    }
}

@Suite("GzipMemberWriter") struct GzipWriterTests {
    func inflate(_ bytes: [UInt8]) throws -> [UInt8] {
        let dir = try DecompressionFixtures.makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let reader = try DecompressingReader(path: try DecompressionFixtures.write(bytes, "w.gz", in: dir))
        return try DecompressionFixtures.readAll(reader).bytes
    }

    @Test func roundTripsThroughTheReaderAndIsDeterministic() throws {
        let text = (0..<50_000).map { "2024-04-01T12:00:\($0 % 60)Z,u\($0 % 97),com.example.app\($0 % 13)\n" }.joined()
        let a = GzipMemberWriter(level: 6)
        a.write(text)
        let first = a.finish()
        #expect(first.starts(with: [0x1F, 0x8B, 0x08]))
        #expect(first[4..<8].allSatisfy { $0 == 0 })  // mtime 0: the same bytes on every run
        #expect(try inflate(first) == Array(text.utf8))
        let b = GzipMemberWriter(level: 6)
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast() { b.write(line + "\n") }
        #expect(b.finish() == first)
    }

    @Test func membersConcatenateIntoOneStream() throws {
        let x = GzipMemberWriter(level: 1)
        x.write("first\n")
        let y = GzipMemberWriter(level: 9)
        y.write("second\n")
        let empty = GzipMemberWriter()
        #expect(try inflate(x.finish() + empty.finish() + y.finish()) == Array("first\nsecond\n".utf8))
        // And the system's gzip agrees.
        let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("fl-gzw-\(getpid()).gz")
        defer { try? FileManager.default.removeItem(at: tmp) }
        try Data(x.finish() + y.finish()).write(to: tmp)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", "gzip -dc '\(tmp.path)' | wc -l"]
        let pipe = Pipe()
        p.standardOutput = pipe
        try p.run()
        p.waitUntilExit()
        let lines = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(lines.trimmingCharacters(in: .whitespacesAndNewlines) == "2")
    }
}
