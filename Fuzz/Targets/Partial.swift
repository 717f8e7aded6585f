// Fuzz target: the partial reader (`PartialFile.read`, `TunePartialFile.read`), from a file's
// bytes (gzip'd or plain JSON lines) to a partial, then the merge path (`Merge.combined`'s checks,
// `inconsistency(policies:)`, `ComparisonRun(merging:)`, `absorb`, `finishMerge`, `report`), so
// that the arithmetic on values read from the file is fuzzed too.
//
// Input: the first byte, then the file. First byte bit 0: a tune's partial (else a comparison's);
// bit 1: each plain-text line holding a configuration gets that configuration's fingerprint
// (a partial edited by hand, its fingerprint made again: FNV-1a is no signature), so that the
// settings' checks are reached. The same code runs in `swift test` (PartialFuzzRegressionTests).
import FetchLabCore
import FetchLabScale
import FetchLabSimulation
import Foundation
import Glibc

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPartial(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let flags = data[0]
    var file = Data(bytes: data + 1, count: size - 1)
    if flags & 2 != 0 { file = PartialFuzz.refingerprinted(file) }
    let fd = file.withUnsafeBytes { memoryFile($0.bindMemory(to: UInt8.self).baseAddress ?? data, $0.count) }
    PartialFuzz.check(path: "/proc/self/fd/\(fd)", tune: flags & 1 != 0) { ok, message in
        precondition(ok, message)
    }
    return 0
}

enum PartialFuzz {
    /// `file` with each line that decodes as a header (a `configuration`) given that
    /// configuration's fingerprint (plain text only; other bytes as they are).
    static func refingerprinted(_ file: Data) -> Data {
        struct Header: Decodable { var configuration: ComparisonPartial.Configuration }
        var lines = file.split(separator: 0x0A, omittingEmptySubsequences: false)
        var changed = false
        for (i, line) in lines.enumerated() where line.count < 1 << 20 {
            guard let text = String(data: line, encoding: .utf8), text.contains("\"configuration\""),
                let header = try? JSONDecoder().decode(Header.self, from: line),
                let range = text.range(of: #""fingerprint":"[^"]*""#, options: .regularExpression)
            else { continue }
            let fixed = text.replacingCharacters(
                in: range, with: "\"fingerprint\":\"\(header.configuration.fingerprint)\"")
            lines[i] = Data(fixed.utf8)[...]
            changed = true
        }
        guard changed else { return file }
        return Data(lines.joined(separator: [0x0A]))
    }

    /// Reads the partial at `path` and merges it as `merge` (or a tune) would; `expect` is given
    /// each invariant: every error a one-line `ScaleError` naming the file.
    static func check(path: String, tune: Bool, expect: (Bool, String) -> Void) {
        do {
            if tune {
                let t = try TunePartialFile.read(path)
                expect(t.folds.count == t.header.folds.count, "\(path): \(t.folds.count) folds read")
                for fold in t.folds { merge(fold, tune: true, expect: expect) }
            } else {
                merge(try PartialFile.read(path), tune: false, expect: expect)
            }
        } catch let error as ScaleError {
            let message = error.description
            expect(message.contains(path), "the error does not name the file: \(message)")
            expect(!message.contains("\n"), "the error is not one line: \(message)")
        } catch {
            expect(false, "not a ScaleError: \(type(of: error)): \(error)")
        }
    }

    /// What `Merge.combined` (or a tune's merge of a fold) does with one partial read.
    static func merge(_ partial: ComparisonPartial, tune: Bool, expect: (Bool, String) -> Void) {
        let c = partial.configuration
        // Merge.combined's checks before merging: it refuses what fails them.
        guard partial.platformInputs.users >= partial.userCount || tune else { return }
        if !tune, let label = partial.shard, let shard = UserShard(label),
            partial.userNames.contains(where: { !shard.contains($0) })
        {
            return
        }
        guard let policies = try? PolicyRegistry.parseList(c.policies.joined(separator: ",")),
            policies.map(\.name) == c.policies
        else { return }
        if partial.inconsistency(policies: policies) != nil { return }
        // Per-user rows kept in memory (no spool files per execution).
        guard var run = try? ComparisonRun(merging: c, policies: policies) else { return }
        if tune { run.tallyUsers = true }
        // The bootstrap's cost grows with its resamples (up to 100,000, a setting the command line
        // accepts): a few keep each execution short and reach the same code.
        run.resamples = min(run.resamples, 20)
        do {
            try run.absorb(partial)
        } catch {
            expect(!"\(error)".contains("\n"), "the refusal is not one line: \(error)")
            return
        }
        do {
            try run.finishMerge()
        } catch {
            expect(false, "finishMerge: \(error)")
            return
        }
        _ = try? JSONEncoder().encode(run.report())
    }
}
