import _FetchLabTestSupport
@testable import FetchLabIngest
import FetchLabResults
import Foundation
import Testing

/// Replays the fuzzers' seed corpus and every input that ever made a fuzzer fail
/// (Fuzz/regressions/<target>/) through the same code the fuzz targets drive.
@Suite struct FuzzRegressionTests {
    static let fuzz = packageRoot().appendingPathComponent("Fuzz")

    static func inputs(_ target: String) -> [URL] {
        ["corpus", "regressions"].flatMap { kind -> [URL] in
            let dir = fuzz.appendingPathComponent(kind).appendingPathComponent(target)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
            return names.sorted().map { dir.appendingPathComponent($0) }
        }
    }

    static func scratch(_ bytes: Data) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "fl-fuzz-\(getpid())-\(UUID().uuidString)")
        try bytes.write(to: url)
        return url.path
    }

    @Test func theCorpusIsThere() {
        for t in [
            "decompress", "timestamp", "layout", "usage", "context", "content", "foreground", "battery", "lsapp",
            "usagestats", "detect", "knowledgec",
            // Replayed by FetchLabWorkflowsTests' PartialFuzzRegressionTests (PartialFile.read).
            "partial",
        ] {
            #expect(!Self.inputs(t).isEmpty, "\(t)")
        }
        // The inputs that found the leak of a half-built reader.
        #expect(Self.inputs("usage").contains { $0.path.contains("/regressions/") })
    }

    @Test func decompressorInputs() throws {
        for url in Self.inputs("decompress") {
            let data = try Data(contentsOf: url)
            guard let flags = data.first else { continue }
            let path = try Self.scratch(data.dropFirst())
            defer { try? FileManager.default.removeItem(atPath: path) }
            do {
                let reader = try DecompressingReader(
                    path: path, rawDeflate: flags & 1 == 1, chunkSize: flags & 2 == 0 ? 64 : 1 << 16)
                var total = 0
                while let chunk = try reader.nextChunk() { total += chunk.count }
                #expect(total >= 0)
            } catch {
                #expect(error.source == path)
            }
        }
    }

    /// The Knowledge store target: SQLite files (plain or gzip'd) through `openRecordSource`.
    @Test func knowledgeStoreInputs() throws {
        var read = 0
        for url in Self.inputs("knowledgec") {
            let data = try Data(contentsOf: url)
            let path = try Self.scratch(data)
            defer { try? FileManager.default.removeItem(atPath: path) }
            var options = ReadOptions()
            options.batchSize = 64
            options.strict = data.last.map { $0 & 1 == 1 } ?? false
            do {
                let reader = try openRecordSource(path: path, options: options)
                while let batch = try reader.nextBatch() {
                    read += batch.counts.rows
                    if reader is KnowledgeStoreReader {
                        #expect(batch.counts.accepted + batch.counts.rejected == batch.counts.rows)
                    }
                }
            } catch {
                let message = "\(error)"
                #expect(message.hasPrefix(path) && !message.contains("\n"), "\(message)")
            }
        }
        #expect(read > 0)
    }

    @Test(arguments: ["usage", "context", "content", "foreground", "battery", "lsapp", "usagestats", "detect"])
    func readerInputs(target: String) throws {
        let forced: LogFormat? = target == "detect" ? nil : LogFormat(rawValue: target)
        var read = 0
        for url in Self.inputs(target) {
            let data = try Data(contentsOf: url)
            let path = try Self.scratch(data)
            defer { try? FileManager.default.removeItem(atPath: path) }
            var options = ReadOptions()
            options.format = forced
            options.user = forced == .foreground ? "fuzz" : nil
            options.batchSize = 64
            if data.first.map({ $0 & 1 == 1 }) == true { options.timeZone = TimeZone(identifier: "Europe/Berlin") }
            do {
                let reader = try LogReader(path: path, options: options)
                while let batch = try reader.nextBatch() {
                    read += batch.counts.rows
                    #expect(batch.rejects.allSatisfy { $0.line >= 1 })
                }
            } catch {
                let message = "\(error)"
                #expect(message.hasPrefix(path) && !message.contains("\n"), "\(message)")
            }
        }
        // The seed corpus holds valid files of the format: they are read.
        #expect(read > 0, "\(target)")
    }

    @Test func timestampInputs() throws {
        var parsers = [
            TimestampParser(), TimestampParser(timeZone: TimeZone(identifier: "Europe/Berlin")),
            TimestampParser(timeZone: TimeZone(identifier: "America/New_York"), epochUnit: .milliseconds),
            TimestampParser(epochUnit: .seconds),
        ]
        var parsed = 0
        for url in Self.inputs("timestamp") {
            let data = try Data(contentsOf: url)
            guard let first = data.first else { continue }
            let i = Int(first) % parsers.count
            let ok = data.dropFirst().withUnsafeBytes { try? parsers[i].parse($0) }
            if let ok {
                parsed += 1
                #expect(abs(ok.utcOffsetSeconds ?? 0) <= 18 * 3600)
            }
        }
        #expect(parsed >= 5)
    }

    /// The `layout` target's inputs: a fixed layout picked by the first byte, or (bit 7) a layout
    /// on the first line and the field after it (Fuzz/Targets/DateLayout.swift).
    @Test func layoutInputs() throws {
        var fixed: [TimestampParser] = []
        for (i, text) in [
            "%d/%m/%Y %H:%M", "%m/%d/%y %I:%M %p", "%d %B %Y %H:%M:%S.%f", "%d.%m.%Y %H:%M %z", "%D %T", "%Y-%m-%d",
        ].enumerated() {
            var p = TimestampParser(timeZone: i % 2 == 0 ? TimeZone(identifier: "Europe/Berlin") : nil)
            p.layout = try DateLayout(text)
            fixed.append(p)
        }
        var parsed = 0
        for url in Self.inputs("layout") {
            let data = try Data(contentsOf: url)
            guard let first = data.first else { continue }
            let rest = Data(data.dropFirst())
            var result: ParsedTimestamp?
            if first & 0x80 != 0 {
                guard let newline = rest.firstIndex(of: 0x0A),
                    let layout = try? DateLayout(String(decoding: rest[..<newline], as: UTF8.self))
                else { continue }
                var parser = TimestampParser(timeZone: TimeZone(identifier: "America/New_York"))
                parser.layout = layout
                result = Data(rest[(newline + 1)...]).withUnsafeBytes { try? parser.parse($0) }
            } else {
                let i = Int(first) % fixed.count
                result = rest.withUnsafeBytes { try? fixed[i].parse($0) }
            }
            if let result {
                parsed += 1
                #expect(abs(result.utcOffsetSeconds ?? 0) <= 18 * 3600)
            }
        }
        // The seed corpus holds a valid timestamp for each of its layouts.
        #expect(parsed >= 5)
    }
}
