import ArgumentParser
import FetchLabCore
import FetchLabIngest
import FetchLabStore
import Foundation

extension LogFormat: ExpressibleByArgument {}
extension EpochUnit: ExpressibleByArgument {}

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

    @Option(
        name: .customLong("input-format"),
        help:
            "Read as this format instead of detecting it (\(LogFormat.allCases.map(\.rawValue).joined(separator: ", ")))."
    )
    var inputFormat: LogFormat?

    @Flag(name: .customLong("raw-deflate"), help: "The input is raw deflate data (no gzip or zlib header).")
    var rawDeflate = false

    @Option(help: "IANA time zone for date-times without an offset (default: UTC), e.g. Europe/Berlin.")
    var timezone: String?

    @Option(name: .customLong("epoch-unit"), help: "Unit of numeric timestamps (auto detects by magnitude).")
    var epochUnit: EpochUnit = .auto

    @Option(
        name: .customLong("map"),
        help:
            "Read header COLUMN as FIELD (timestamp, user, app, event, battery, charging, network, low_power, screen_on). Repeatable."
    )
    var maps: [String] = []

    @Option(help: "User (or device) name for every row; foreground logs default to the file name.")
    var user: String?

    @Option(
        name: .customLong("session-gap"),
        help: "Foreground logs: a sample of the same app after this gap is a new launch (e.g. 300s, 5m).")
    var sessionGap = DurationArgument(ReadOptions().sessionGap)

    @Option(
        name: .customLong("reorder-window"),
        help: "Foreground logs: how far back an out-of-order line may go (e.g. 1h).")
    var reorderWindow = DurationArgument(ReadOptions().reorderWindow)

    @Option(name: .customLong("exclude"), help: "Skip apps matching this glob (e.g. '*launcher*'). Repeatable.")
    var excludes: [String] = []

    @Option(help: "Reject timestamps before this date (ISO-8601).")
    var earliest = "2000-01-01T00:00:00Z"

    @Option(help: "Reject timestamps at or after this date (ISO-8601).")
    var latest = "2100-01-01T00:00:00Z"

    @Flag(help: "Fail the file at its first bad row (nothing of it is committed).")
    var strict = false

    @Flag(
        help:
            "Read a file again even if the same content was imported with the same options (stored rows count as duplicates)."
    )
    var force = false

    @Option(
        name: .customLong("max-ratio"),
        help:
            "Refuse a file that inflates more than this many times its compressed size (a decompression bomb; 0 = no limit)."
    )
    var maxRatio = 200.0

    @Option(
        name: .customLong("max-size"),
        help: "Refuse a file that inflates to more than this (e.g. 50G; default: no limit).")
    var maxSize: ByteSizeArgument?

    @Option(help: "Output: text or json.")
    var format: OutputFormat = .text

    @Option(
        name: .customLong("busy-timeout"), help: "Seconds to wait for another process's import into the same database.")
    var busyTimeout: Double = 600

    func validate() throws {
        if let timezone, TimeZone(identifier: timezone) == nil {
            throw ValidationError("unknown time zone '\(timezone)' (use an IANA name such as Europe/Berlin)")
        }
        for map in maps where map.split(separator: "=").count != 2 {
            throw ValidationError("--map takes COLUMN=FIELD, got '\(map)'")
        }
        guard maxRatio >= 0 else { throw ValidationError("--max-ratio must be 0 (no limit) or positive") }
        _ = try range()
    }

    /// `--earliest` and `--latest` in microseconds.
    func range() throws -> (earliest: Microseconds, latest: Microseconds) {
        var parser = TimestampParser()
        do {
            return (try parser.parse(earliest).microseconds, try parser.parse(latest).microseconds)
        } catch {
            throw ValidationError("--earliest/--latest: \(error)")
        }
    }

    func readOptions() throws -> ReadOptions {
        var options = ReadOptions()
        options.format = inputFormat
        options.rawDeflate = rawDeflate
        options.timeZone = timezone.flatMap(TimeZone.init(identifier:))
        options.epochUnit = epochUnit
        for map in maps {
            let parts = map.split(separator: "=", maxSplits: 1).map(String.init)
            options.columnMap[parts[0]] = parts[1]
        }
        options.user = user
        options.sessionGap = sessionGap.microseconds
        options.reorderWindow = reorderWindow.microseconds
        options.excludedApps = excludes
        options.strict = strict
        options.maxRatio = maxRatio > 0 ? maxRatio : nil
        options.maxDecompressedBytes = maxSize?.bytes
        (options.earliest, options.latest) = try range()
        return options
    }

    func run() throws {
        let options = try readOptions()
        let paths = try InputPaths.expand(files)
        try Exit.reporting {
            let store = try FetchLabDatabase(path: database.db, busyTimeout: busyTimeout)
            let importer = Importer(database: store)
            let showProgress = Terminal.stderrIsTerminal && format == .text
            var summaries: [ImportSummary] = []
            var failures: [String] = []
            for path in paths {
                do {
                    let summary = try importer.importFile(path, options: options, force: force) { p in
                        if showProgress { Terminal.progress(ImportRenderer.progress(p)) }
                    }
                    if showProgress { Terminal.clearProgress() }
                    summaries.append(summary)
                    if format == .text { print(ImportRenderer.text(summary)) }
                    if summary.status == .nothingAccepted {
                        let message = ImportRenderer.nothingAccepted(summary)
                        failures.append(message)
                        Terminal.error(message)
                    }
                } catch {
                    if showProgress { Terminal.clearProgress() }
                    let message = "\(error)"
                    failures.append(message)
                    Terminal.error("\(message) — nothing from this file was imported")
                }
            }
            if format == .json {
                print(Format.json(ImportReport(database: database.db, files: summaries, errors: failures)))
            } else if paths.count > 1 {
                print(ImportRenderer.total(summaries, failed: failures.count))
            }
            if !failures.isEmpty { throw ExitCode(Exit.failure) }
        }
    }
}

/// Turns the command's file arguments into a list of files.
enum InputPaths {
    static func expand(_ arguments: [String]) throws -> [String] {
        var paths: [String] = []
        for argument in arguments {
            if argument == "-" {
                paths.append(argument)
                continue
            }
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory) {
                if isDirectory.boolValue {
                    let entries = (try? FileManager.default.contentsOfDirectory(atPath: argument)) ?? []
                    // A directory contributes its log files (by name); files named one by one are always read.
                    let files = entries.sorted().filter { !$0.hasPrefix(".") && looksLikeLog($0) }
                        .map { (argument as NSString).appendingPathComponent($0) }
                        .filter { path in
                            var dir: ObjCBool = false
                            return FileManager.default.fileExists(atPath: path, isDirectory: &dir) && !dir.boolValue
                        }
                    if files.isEmpty {
                        throw ValidationError(
                            "\(argument): directory has no log files (.csv, .tsv, .jsonl, .txt, .log, optionally .gz/.zz)"
                        )
                    }
                    paths += files
                } else {
                    paths.append(argument)
                }
                continue
            }
            if argument.contains(where: { "*?[".contains($0) }) {
                let matches = glob(argument)
                if matches.isEmpty { throw ValidationError("\(argument): no file matches") }
                paths += matches
                continue
            }
            // Let the importer report it with the file's name.
            paths.append(argument)
        }
        return paths
    }

    /// Whether a file name in a directory is a log to import: a text-log extension, optionally
    /// followed by a compression one (`usage.csv.gz`). Other files (`habits.json`, `README.md`) are skipped.
    static func looksLikeLog(_ name: String) -> Bool {
        var parts = name.lowercased().split(separator: ".").dropFirst()
        if let last = parts.last, ["gz", "gzip", "z", "zz", "zlib", "deflate"].contains(last) { parts.removeLast() }
        guard let ext = parts.last else { return false }
        return ["csv", "tsv", "jsonl", "ndjson", "txt", "log"].contains(ext)
    }

    private static func glob(_ pattern: String) -> [String] {
        var result = glob_t()
        defer { globfree(&result) }
        guard systemGlob(pattern, 0, nil, &result) == 0 else { return [] }
        return (0..<Int(result.gl_pathc)).compactMap { i in result.gl_pathv[i].map { String(cString: $0) } }
    }
}

#if canImport(Glibc)
    import Glibc
    private let systemGlob = Glibc.glob
#elseif canImport(Darwin)
    import Darwin
    private let systemGlob = Darwin.glob
#endif
