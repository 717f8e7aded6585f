import FetchLabCore
import Foundation
import Testing
import _FetchLabTestSupport

@testable import FetchLabIngest

@Suite("SHA256")
struct SHA256Tests {
    private func hexDigest(_ string: String) -> String {
        var hasher = SHA256()
        hasher.update(string)
        return SHA256.hex(hasher.finalize())
    }

    @Test("FIPS 180-4 / NIST vectors")
    func knownVectors() {
        #expect(hexDigest("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(hexDigest("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            hexDigest("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(
            hexDigest(
                "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"
            ) == "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1")
    }

    @Test("one million 'a', fed in uneven pieces")
    func millionA() {
        let expected = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
        let data = [UInt8](repeating: 0x61, count: 1_000_000)
        data.withUnsafeBytes { all in
            #expect(SHA256.hex(SHA256.hash(all)) == expected)
            var hasher = SHA256()
            var offset = 0
            var step = 1
            while offset < all.count {
                let n = min(step, all.count - offset)
                hasher.update(UnsafeRawBufferPointer(rebasing: all[offset..<offset + n]))
                offset += n
                step = step % 131 + 7  // 1, 8, 15, … crossing block boundaries everywhere
            }
            #expect(SHA256.hex(hasher.finalize()) == expected)
        }
    }

    @Test("every length 0…200 in one piece equals byte-by-byte feeding")
    func paddingBoundaries() {
        var rng = SplitMix64(seed: 7)
        for length in 0...200 {
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            var whole = SHA256()
            whole.update(bytes)
            var pieces = SHA256()
            for b in bytes { pieces.update([b]) }
            #expect(whole.finalize() == pieces.finalize(), "length \(length)")
        }
        // 55, 56 and 64 bytes are the padding edge cases.
        #expect(
            hexDigest(String(repeating: "a", count: 55))
                == "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318")
        #expect(
            hexDigest(String(repeating: "a", count: 56))
                == "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a")
        #expect(
            hexDigest(String(repeating: "a", count: 64))
                == "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb")
    }

    @Test("finalize resets; copies fork the state")
    func copyAndReset() {
        var hasher = SHA256()
        hasher.update("ab")
        var fork = hasher
        fork.update("c")
        #expect(SHA256.hex(fork.finalize()) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        hasher.update("c")
        #expect(SHA256.hex(hasher.finalize()) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex(hasher.finalize()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test("matches sha256sum on a generated 3 MB file")
    func matchesSha256sum() throws {
        let tool = "/usr/bin/sha256sum"
        guard FileManager.default.isExecutableFile(atPath: tool) else { return }
        var rng = SplitMix64(seed: 42)
        let bytes = (0..<3_000_017).map { _ in UInt8(truncatingIfNeeded: rng.next() >> 13) }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("fl-sha-\(UUID().uuidString).bin")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data(bytes).write(to: url)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = [url.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let expected = String(decoding: output, as: UTF8.self).split(separator: " ").first.map(String.init)

        var hasher = SHA256()
        hasher.update(bytes)
        #expect(SHA256.hex(hasher.finalize()) == expected)
        #expect(try SHA256.hexDigest(ofFile: url.path) == expected)

        // The reader hashes the raw bytes it reads.
        let reader = try DecompressingReader(path: url.path, chunkSize: 100_000)
        while try reader.nextChunk() != nil {}
        #expect(reader.contentSHA256Hex == expected)
    }

    @Test("a file's digest; open and read failures are one line naming the file")
    func fileDigest() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fl-sha-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let abc = dir.appendingPathComponent("abc.txt")
        try Data("abc".utf8).write(to: abc)
        #expect(
            try SHA256.hexDigest(ofFile: abc.path) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        )
        let empty = dir.appendingPathComponent("empty")
        try Data().write(to: empty)
        #expect(
            try SHA256.hexDigest(ofFile: empty.path)
                == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")

        let missing = dir.appendingPathComponent("nope").path
        let notFound = #expect(throws: IngestError.self) { try SHA256.hexDigest(ofFile: missing) }
        #expect(notFound?.code == .io)
        #expect(notFound?.description == "\(missing): cannot open: No such file or directory")

        let directory = #expect(throws: IngestError.self) { try SHA256.hexDigest(ofFile: dir.path, source: "logs/") }
        #expect(directory?.code == .io)
        #expect(directory?.description == "logs/: cannot read: is a directory")
    }
}
