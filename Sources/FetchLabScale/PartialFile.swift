import FetchLabCore
import FetchLabIngest
import FetchLabSimulation
import Foundation

/// A comparison's partial on disk: its JSON lines (a header, then one line per user), gzip'd
/// (`compare --partial FILE`). What a file holds that is not a partial FetchLab wrote is a
/// ``ScaleError`` (``ScaleError/Code/partial``, a usage error) naming the file and line.
public enum PartialFile {
    /// Writes `partial` to `path` under the output rule (`AtomicFile`: through a temporary file,
    /// so a reader never sees half a partial; into a device in place).
    public static func write(_ partial: ComparisonPartial, to path: String) throws {
        let gzip = GzipMemberWriter()
        do {
            try partial.jsonLines { line in
                line.withUnsafeBytes { gzip.write($0) }
                gzip.write("\n")
            }
        } catch {
            throw ScaleError(.write, "\(path): cannot encode the partial: \(error)")
        }
        try replace(path, with: Data(gzip.finish()))
    }

    /// Writes `bytes` to `path` under the output rule (`AtomicFile`: a file replaced whole
    /// through a temporary file, a device written into; the command checked the path first).
    static func replace(_ path: String, with bytes: Data) throws {
        try AtomicFile.write([UInt8](bytes), to: path, what: "the partial")
    }

    /// Reads the partial at `path`, one user's line at a time (so reading holds one user's JSON,
    /// not the file's); a file that is not one (or of another format, or altered, or cut short) is
    /// a one-line error naming it.
    public static func read(_ path: String) throws -> ComparisonPartial {
        let lines = try Lines(path)
        guard let first = try lines.next() else {
            throw ScaleError(.partial, "\(path): not a FetchLab partial (empty; make one with compare --partial)")
        }
        let partial = try read(header: first, from: lines, path: path)
        try lines.expectEnd(after: partial.linesGiven)
        return partial
    }

    /// A gzip'd file of JSON lines, read a line at a time; its errors name the file.
    final class Lines {
        let path: String
        let reader: LineReader

        init(_ path: String) throws {
            self.path = path
            do {
                let input = try DecompressingReader(path: path)
                // Bounded reading, whatever the input (a bomb, a device, a line without end): a
                // partial's JSON is about 5 times its gzip, so 1,000:1 past the first MiB is no
                // partial; its longest line (a header's sums for every policy) is about 0.5 MB.
                input.maxRatio = Self.maxRatio
                input.ratioCheckAfterBytes = 1 << 20
                reader = LineReader(input: input, maxLineBytes: Self.maxLineBytes)
            } catch {
                throw ScaleError(.partial, error.description)
            }
        }

        /// A partial's line is at most 32 MiB (the longest FetchLab writes, a header's or a user's
        /// sums for every policy, takes 10 to 90 kB a policy: at most 4.3 MB for the standard set's
        /// 48), and its text at most 1,000 times its gzip: refused input costs at most about a
        /// line's worth of memory, three times over (the line, its copy, its decoded text).
        static let maxLineBytes = 32 << 20
        static let maxRatio = 1_000.0

        func next() throws -> Data? {
            do {
                return try reader.nextLine { (bytes) throws(IngestError) -> Data in Data(bytes) }
            } catch {
                // The reader's limits are fixed here: no option raises them.
                let message = error.description.replacingOccurrences(of: "; raise --max-ratio", with: "")
                throw ScaleError(.partial, "\(message) (not a FetchLab partial)")
            }
        }

        var lineNumber: Int { reader.lineNumber }

        /// Refuses lines past the `count` the file's headers gave.
        func expectEnd(after count: Int) throws {
            if try next() != nil {
                throw ScaleError(
                    .partial, "\(path): line \(lineNumber): more lines than the \(count) its header gives")
            }
        }
    }

    /// Reads one partial, its header line `first`, the lines it gives from `lines`.
    static func read(
        header first: Data, from lines: Lines, path: String, remedy: String = "make it again with compare --partial"
    ) throws -> ComparisonPartial {
        // The header is parsed once; only a header that does not decode is parsed again, for its
        // format alone (the whole file: another version's, or JSON on many lines), so that another
        // version's partial says so rather than failing on a field.
        struct Header: Decodable { var format: String? }
        var partial: ComparisonPartial
        do {
            partial = try ComparisonPartial(headerLine: first)
        } catch {
            var header = try? JSONDecoder().decode(Header.self, from: first)
            if header == nil {
                // At most one line's worth: a document of another version is small, and anything
                // longer is not one.
                var whole = first
                while whole.count < Lines.maxLineBytes, let line = try lines.next() { whole += Data("\n".utf8) + line }
                header = try? JSONDecoder().decode(Header.self, from: whole)
            }
            guard let header else {
                throw ScaleError(
                    .partial, "\(path): not a FetchLab partial (not its JSON; make one with compare --partial)")
            }
            guard header.format == ComparisonPartial.currentFormat else { throw formatError(path, header.format) }
            throw ScaleError(
                .partial, "\(path): line \(lines.lineNumber): not a FetchLab partial: \(Self.reason(error))")
        }
        guard partial.format == ComparisonPartial.currentFormat else { throw formatError(path, partial.format) }
        guard partial.fingerprint == partial.configuration.fingerprint else {
            throw ScaleError(
                .partial,
                "\(path): its settings do not match its fingerprint \(partial.fingerprint) (the file was altered)")
        }
        let headerLine = lines.lineNumber
        do {
            try partial.checkHeader()
        } catch {
            throw impossible(path, line: headerLine, error)
        }
        guard let expected = partial.linesToRead, expected >= 0 else {
            throw ScaleError(
                .partial, "\(path): not a FetchLab partial: its header does not say how many lines follow")
        }
        while partial.linesToRead! > 0 {
            guard let line = try lines.next() else {
                throw ScaleError(.partial, "\(path): cut short: \(partial.readSoFar) (\(remedy))")
            }
            do {
                try partial.read(line: line)
            } catch let problem as PartialProblem {
                throw impossible(path, line: lines.lineNumber, problem)
            } catch {
                throw ScaleError(
                    .partial, "\(path): line \(lines.lineNumber): not a line of a partial: \(Self.reason(error))")
            }
        }
        do {
            try partial.checkSums()
        } catch {
            throw impossible(path, line: headerLine, error)
        }
        return partial
    }

    /// A value of a partial that cannot be, as a one-line refusal naming the file, line and field.
    static func impossible(_ path: String, line: Int, _ problem: PartialProblem) -> ScaleError {
        ScaleError(
            .partial,
            "\(path): line \(line): \(problem) (not a partial FetchLab wrote; make it again with compare --partial)")
    }

    static func formatError(_ path: String, _ format: String?) -> ScaleError {
        ScaleError(
            .partial,
            "\(path): partial format '\(format ?? "none")'; this fetchlab reads '\(ComparisonPartial.currentFormat)' "
                + "(make the partials with the same fetchlab)")
    }

    static func reason(_ error: any Error) -> String {
        if let e = error as? DecodingError {
            switch e {
            case .dataCorrupted(let c), .keyNotFound(_, let c), .typeMismatch(_, let c), .valueNotFound(_, let c):
                let at = c.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
                return (at.isEmpty ? "" : "at \(at): ") + c.debugDescription
            @unknown default: break
            }
        }
        return (error as NSError).localizedDescription
    }
}
