import FetchLabCore
import FetchLabIngest
import FetchLabSimulation
import Foundation

/// A shard's part of a tune's search on disk (`tune --shard I/N --partial FILE`): gzip'd JSON
/// lines, the search's header, then each fold's training partial as a comparison's partial file
/// holds it (its header, its apps' and its users' lines).
public enum TunePartialFile {
    /// Writes `partial` to `path` (through a temporary file, so a reader never sees half of one).
    public static func write(_ partial: TuneSearchPartial, to path: String) throws {
        let gzip = GzipMemberWriter()
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            func line(_ data: Data) {
                data.withUnsafeBytes { gzip.write($0) }
                gzip.write("\n")
            }
            line(try encoder.encode(partial.header))
            for fold in partial.folds { try fold.jsonLines(line) }
        } catch {
            throw ScaleError(.write, "\(path): cannot encode the partial: \(error)")
        }
        try PartialFile.replace(path, with: Data(gzip.finish()))
    }

    /// Reads the tune partial at `path`; a file that is not one (or of another format, cut short
    /// or with lines added) is a one-line error naming it.
    public static func read(_ path: String) throws -> TuneSearchPartial {
        let lines = try PartialFile.Lines(path)
        let remedy = "make it again with tune --shard I/N --partial FILE"
        guard let first = try lines.next() else {
            throw ScaleError(.partial, "\(path): not a tune's partial (empty; \(remedy))")
        }
        struct Format: Decodable { var format: String? }
        let header: TuneSearchPartial.Header
        do {
            header = try JSONDecoder().decode(TuneSearchPartial.Header.self, from: first)
        } catch {
            let format = (try? JSONDecoder().decode(Format.self, from: first))?.format
            if format == ComparisonPartial.currentFormat {
                throw ScaleError(
                    .partial,
                    "\(path): a comparison's partial (compare --partial), not a tune's: merge it with fetchlab merge")
            }
            guard let format, format != TuneSearchPartial.currentFormat else {
                throw ScaleError(.partial, "\(path): not a tune's partial (\(PartialFile.reason(error)); \(remedy))")
            }
            throw formatError(path, format)
        }
        guard header.format == TuneSearchPartial.currentFormat else { throw formatError(path, header.format) }
        var folds: [ComparisonPartial] = []
        var given = 1
        for _ in header.folds {
            guard let line = try lines.next() else {
                throw ScaleError(
                    .partial, "\(path): cut short: \(folds.count) of the \(header.folds.count) folds its header gives")
            }
            let partial = try PartialFile.read(header: line, from: lines, path: path, remedy: remedy)
            given += 1 + partial.linesGiven
            folds.append(partial)
        }
        try lines.expectEnd(after: given - 1)
        return TuneSearchPartial(header: header, folds: folds)
    }

    static func formatError(_ path: String, _ format: String?) -> ScaleError {
        ScaleError(
            .partial,
            "\(path): partial format '\(format ?? "none")'; this fetchlab reads '\(TuneSearchPartial.currentFormat)' "
                + "(make the partials with the same fetchlab)")
    }
}
