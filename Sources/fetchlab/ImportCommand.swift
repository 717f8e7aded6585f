import ArgumentParser
import FetchLabCore
import FetchLabIngest
import FetchLabReport
import FetchLabResults
import FetchLabStore
import FetchLabTerminal
import FetchLabWorkflows
import Foundation

struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import usage, device-context and content-update logs (gzip, zlib or plain) into the database.",
        discussion: """
            Each file is imported in one transaction: all of it or nothing. The compression is read from \
            the bytes and the format from the first line. Malformed rows are recorded as rejects (see the \
            rejected_rows view) and the import goes on, unless --strict. Re-importing the same content \
            changes nothing; overlapping files do not duplicate events.
            """)

    @OptionGroup var database: DatabaseOptions

    @Argument(help: "Files, directories or glob patterns to import; - reads standard input.")
    var files: [String]

    @OptionGroup(title: "Reading") var reading: ReadingOptions

    @Flag(help: "Fail the file at its first bad row (nothing of it is committed).")
    var strict = false

    @Flag(
        help:
            "Read a file again even if the same content was imported with the same options (stored rows count as duplicates)."
    )
    var force = false

    @Option(
        name: .customLong("max-ratio"), parsing: .unconditional,
        help:
            "Refuse a file that inflates more than this many times its compressed size (a decompression bomb; 0 = no limit; at most 1,000,000)."
    )
    var maxRatio = 200.0

    @Option(
        name: .customLong("max-size"), parsing: .unconditional,
        help: "Refuse a file that inflates to more than this (e.g. 50G; a positive size; default: no limit).")
    var maxSize: ByteSizeArgument?

    @Option(help: "Output: text or json.")
    var format: OutputFormat = .text

    @Option(
        name: .customLong("busy-timeout"), parsing: .unconditional,
        help: "Seconds (0 to 86400) to wait for another process's import into the same database.")
    var busyTimeout = BoundedSeconds(600)

    func validate() throws {
        try reading.check()
        try Bounds.check("--max-ratio", maxRatio, 0...1_000_000, note: " (0 = no limit)")
    }

    var readOptions: ReadOptions {
        var options = reading.readOptions
        options.strict = strict
        options.maxRatio = maxRatio > 0 ? maxRatio : nil
        options.maxDecompressedBytes = maxSize?.bytes
        return options
    }

    func run() throws {
        let expansion = InputFiles.expandReporting(files)
        let showProgress = Terminal.stderrIsTerminal && format == .text
        var errors: [String] = []
        func failed(_ message: String, _ shown: String? = nil) {
            if showProgress { Terminal.clearProgress() }
            errors.append(message)
            Terminal.error(shown ?? message)
        }
        // Nothing to read (each argument names nothing): no database is opened, so none is created.
        guard !expansion.paths.isEmpty else {
            for note in expansion.skipped { Terminal.note("fetchlab: note: \(note)") }
            for problem in expansion.problems { failed(problem) }
            if format == .json {
                print(Format.json(ImportReport(database: database.db, files: [], errors: errors)))
            } else if expansion.problems.count > 1 {
                print(ImportRenderer.total([], failed: errors.count))
            }
            if !errors.isEmpty { throw ExitCode(Exit.failure) }
            return
        }
        let store = try openDatabase(showProgress: showProgress)
        let progress: (@Sendable (ImportProgress) -> Void)? =
            showProgress ? { @Sendable p in Terminal.progress(ImportRenderer.progress(p)) } : nil
        let outcome = Import.run(expansion, into: store, options: readOptions, force: force, progress: progress) {
            event in
            switch event {
            case .skipped(let note): Terminal.note("fetchlab: note: \(note)")
            case .unreadable(let problem): failed(problem)
            case .failed(_, let error): failed("\(error)", "\(error) — nothing from this file was imported")
            case .imported(let summary, let waited):
                if showProgress { Terminal.clearProgress() }
                if format == .text {
                    print(ImportRenderer.text(summary, formatStated: reading.inputFormat != nil))
                    // The summary's time is the import's own; waiting for another process is apart.
                    if waited >= 0.05 {
                        print("  waited \(Format.seconds(waited)) for the database (another process was writing)")
                    }
                }
                if summary.status == .nothingAccepted { failed(ImportRenderer.nothingAccepted(summary)) }
            }
        }
        // Once every file is in (a context file may come before the usage log that matches it).
        let warnings = ImportRenderer.contextWarnings(
            outcome.summaries, overlaps: outcome.contextOverlaps, launches: outcome.launches)
        for warning in warnings { Terminal.warning(warning) }
        if let note = ImportRenderer.readAsUTC(outcome.summaries) { Terminal.note("fetchlab: \(note)") }
        if format == .json {
            print(Format.json(ImportReport(database: database.db, files: outcome.summaries, errors: errors)))
        } else if expansion.paths.count + expansion.problems.count > 1 {
            print(ImportRenderer.total(outcome.summaries, failed: errors.count))
        }
        if outcome.failed { throw ExitCode(Exit.failure) }
    }

    /// Opens the database; while another process holds its lock, says so on the progress line
    /// (on a terminal). A failure is one line on stderr (exit 1) and, with --format json, a JSON
    /// document with the error on stdout as well.
    func openDatabase(showProgress: Bool) throws -> FetchLabDatabase {
        let path = database.db
        let timeout = busyTimeout
        do {
            return try FetchLabDatabase(path: path, busyTimeout: timeout.seconds) { waited in
                guard showProgress else { return }
                Terminal.progress(
                    "waiting for the database \(path): another process is writing (\(Format.seconds(waited)) of "
                        + "--busy-timeout \(timeout) s)")
            }
        } catch {
            if format == .json {
                print(Format.json(ImportReport(database: path, files: [], errors: [error.description])))
            }
            throw error
        }
    }
}
