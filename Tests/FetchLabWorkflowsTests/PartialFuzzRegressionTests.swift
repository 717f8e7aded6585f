import FetchLabCore
import FetchLabScale
import FetchLabSimulation
import Foundation
import Testing
import _FetchLabTestSupport

@testable import FetchLabWorkflows

/// Replays the `partial` fuzz target's seed corpus and every input that made it fail
/// (Fuzz/corpus/partial/, Fuzz/regressions/partial/) through the code it drives
/// (Fuzz/Targets/Partial.swift): `PartialFile.read` or `TunePartialFile.read` of the input written
/// to a temporary file, then the merge path. The first byte: bit 0 a tune's partial, bit 1 each
/// configuration's fingerprint made again.
@Suite struct PartialFuzzRegressionTests {
    static let fuzz = packageRoot().appendingPathComponent("Fuzz")

    static func inputs() -> [URL] {
        ["corpus", "regressions"].flatMap { kind -> [URL] in
            let dir = fuzz.appendingPathComponent(kind).appendingPathComponent("partial")
            let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
            return names.sorted().map { dir.appendingPathComponent($0) }
        }
    }

    /// The fuzz target's `refingerprinted`: each plain line holding a configuration, with that
    /// configuration's fingerprint.
    static func refingerprinted(_ file: Data) -> Data {
        struct Header: Decodable { var configuration: ComparisonPartial.Configuration }
        var lines = file.split(separator: 0x0A, omittingEmptySubsequences: false)
        var changed = false
        for (i, line) in lines.enumerated() where line.count < 1 << 20 {
            guard let text = String(data: line, encoding: .utf8), text.contains("\"configuration\""),
                let header = try? JSONDecoder().decode(Header.self, from: line),
                let range = text.range(of: #""fingerprint":"[^"]*""#, options: .regularExpression)
            else { continue }
            lines[i] =
                Data(
                    text.replacingCharacters(in: range, with: "\"fingerprint\":\"\(header.configuration.fingerprint)\"")
                        .utf8)[...]
            changed = true
        }
        return changed ? Data(lines.joined(separator: [0x0A])) : file
    }

    /// The fuzz target's merge of one partial read: `Merge.combined`'s checks, then the run.
    /// Returns whether the partial was merged and reported.
    static func merge(_ partial: ComparisonPartial, tune: Bool) -> Bool {
        let c = partial.configuration
        guard partial.platformInputs.users >= partial.userCount || tune else { return false }
        if !tune, let label = partial.shard, let shard = UserShard(label),
            partial.userNames.contains(where: { !shard.contains($0) })
        {
            return false
        }
        guard let policies = try? PolicyRegistry.parseList(c.policies.joined(separator: ",")),
            policies.map(\.name) == c.policies, partial.inconsistency(policies: policies) == nil,
            var run = try? ComparisonRun(merging: c, policies: policies)
        else { return false }
        if tune { run.tallyUsers = true }
        run.resamples = min(run.resamples, 20)
        do {
            try run.absorb(partial)
        } catch {
            #expect(!"\(error)".contains("\n"))
            return false
        }
        #expect(throws: Never.self) { try run.finishMerge() }
        _ = try? JSONEncoder().encode(run.report())
        return true
    }

    @Test func partialInputs() throws {
        let inputs = Self.inputs()
        #expect(!inputs.isEmpty)
        var merged = 0
        var tunes = 0
        for url in inputs {
            let data = try Data(contentsOf: url)
            guard let flags = data.first else { continue }
            var file = Data(data.dropFirst())
            if flags & 2 != 0 { file = Self.refingerprinted(file) }
            let path = FileManager.default.temporaryDirectory.appendingPathComponent(
                "fl-fuzz-partial-\(getpid())-\(UUID().uuidString)"
            ).path
            try file.write(to: URL(fileURLWithPath: path))
            defer { try? FileManager.default.removeItem(atPath: path) }
            do {
                if flags & 1 != 0 {
                    let t = try TunePartialFile.read(path)
                    #expect(t.folds.count == t.header.folds.count)
                    tunes += 1
                    for fold in t.folds where Self.merge(fold, tune: true) { merged += 1 }
                } else if Self.merge(try PartialFile.read(path), tune: false) {
                    merged += 1
                }
            } catch let error as ScaleError {
                #expect(error.description.contains(path), "\(url.lastPathComponent): \(error)")
                #expect(!error.description.contains("\n"), "\(url.lastPathComponent): \(error)")
            } catch {
                Issue.record("\(url.lastPathComponent): not a ScaleError: \(error)")
            }
        }
        // The seed corpus holds real partials, a comparison's and a tune's: they are read and merged.
        #expect(tunes > 0)
        #expect(merged >= 3)
    }
}
