import ArgumentParser
import FetchLabReport
import FetchLabResults
import FetchLabSimulation
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How a comparison is printed (`compare`, `demo`, `runs show`): the format, and where to.
struct ReportOutputOptions: ParsableArguments {
    @Option(help: "Output: table, markdown, json, csv or html (a self-contained report; best with --output).")
    var format: CompareFormat = .table

    @Option(
        help: ArgumentHelp(
            "Write the output to this file instead of standard output (an existing file only with --force).", valueName: "file"))
    var output: String?

    @Flag(help: "Replace the --output file when it exists (without it, an existing file is refused).")
    var force = false

    @Option(help: "Order of the table: band (fresh@τ within budget bands), fresh, share, fetches, energy or given.")
    var sort: CompareSort = .band

    /// A file that cannot be written is refused before any work (the write can still fail later).
    func validate() throws {
        guard let output else { return }
        try Self.checkWritable(output)
    }

    /// Throws unless `output` names a file in an existing directory (`--output`, or `option`).
    static func checkWritable(_ output: String, option: String = "--output") throws {
        var isDirectory: ObjCBool = false
        let parent = URL(fileURLWithPath: output).deletingLastPathComponent().path
        guard FileManager.default.fileExists(atPath: parent, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ValidationError("\(option) \(output): no directory \(parent) to write it in")
        }
        if FileManager.default.fileExists(atPath: output, isDirectory: &isDirectory), isDirectory.boolValue {
            throw ValidationError("\(option) \(output): is a directory")
        }
    }

    /// The report in the chosen format (JSON with `run_id` when the run is stored, and
    /// `platform_inputs` when given); `source` names the data in the HTML report.
    func render(
        _ report: ComparisonReport, runID: Int64?, source: String = "", platformInputs: PlatformInputs? = nil
    ) -> String {
        switch format {
        case .html: HTMLReport.render(report, source: source)
        case .table, .text: CompareRenderer.text(report, sort: sort)
        case .markdown: CompareRenderer.markdown(report, sort: sort)
        case .json: CompareRenderer.json(report, runID: runID, platformInputs: platformInputs)
        case .csv: CompareRenderer.csv(report)
        }
    }

    /// Prints `text` (and a line break) on stdout, or writes it to `--output`.
    func emit(_ text: String) throws { try Self.emit(text, to: output) }

    /// Renders and emits `report`; in JSON, spooled per-user rows are spliced in as they are read
    /// back (``PerUserSpool/writeJSON(_:to:)``), so that the output is never one string in memory.
    func emit(
        _ report: ComparisonReport, runID: Int64?, source: String = "", platformInputs: PlatformInputs? = nil,
        perUser spool: PerUserSpool?
    ) throws {
        let text = render(report, runID: runID, source: source, platformInputs: platformInputs)
        guard format == .json, let spool else { return try emit(text) }
        let produce = { (write: (String) throws -> Void) throws in
            try spool.writeJSON(text, to: write)  // a SpoolError is reported at the root
            try write("\n")
        }
        guard let output else {
            try produce { print($0, terminator: "") }
            return
        }
        try OutputFile.write(to: output, produce)
    }

    /// Prints `text` (and a line break) on stdout, or writes it to `output` when given.
    static func emit(_ text: String, to output: String?) throws {
        guard let output else {
            print(text)
            return
        }
        try OutputFile.write(text + "\n", to: output)
    }
}

extension CompareSort: CaseInsensitiveArgument {}

enum CompareFormat: String, CaseInsensitiveArgument {
    case table, markdown, json, csv, html, text
    static var allValueStrings: [String] { ["table", "markdown", "json", "csv", "html"] }
}

/// A file written whole or not at all: a temporary file next to it, renamed over it.
enum OutputFile {
    /// - Throws: ``CommandFailure`` naming the file, with nothing left behind (an existing file
    ///   stays as it was).
    static func write(_ text: String, to path: String) throws {
        try write(to: path) { try $0(text) }
    }

    /// The file made of the pieces `produce` hands to its argument, in order.
    ///
    /// A symbolic link is followed: the file it names is replaced (the link stays). An existing
    /// file that is not a regular file — a device such as /dev/stdout or /dev/null, a named pipe —
    /// is written to as it is, never replaced. A regular file keeps its permissions.
    static func write(to path: String, _ produce: ((String) throws -> Void) throws -> Void) throws {
        func failure(_ code: Int32) -> CommandFailure {
            CommandFailure("\(path): cannot write the output: \(String(cString: strerror(code)))")
        }
        let target = resolvingLinks(path)
        var info = stat()
        let exists = stat(target, &info) == 0
        if exists && (info.st_mode & S_IFMT) != S_IFREG {
            // A device or a pipe: written in place (O_TRUNC means nothing to them).
            let fd = open(target, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { throw failure(errno) }
            defer { close(fd) }
            try produce { text in if let code = writeAll(fd, text) { throw failure(code) } }
            return
        }
        let url = URL(fileURLWithPath: target)
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp").path
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        guard fd >= 0 else { throw failure(errno) }
        var code: Int32 = 0
        if exists { _ = fchmod(fd, info.st_mode & 0o7777) }
        do {
            try produce { text in
                if let error = writeAll(fd, text) {
                    code = error
                    throw failure(error)
                }
            }
        } catch {
            close(fd)
            unlink(temporary)
            throw error
        }
        if code == 0 && fsync(fd) != 0 { code = errno }
        if close(fd) != 0 && code == 0 { code = errno }
        if code == 0 && rename(temporary, target) != 0 { code = errno }
        if code != 0 {
            unlink(temporary)
            throw failure(code)
        }
    }

    /// `path` with its symbolic links followed (up to 40, as the kernel does), also when the file
    /// a link names does not exist yet.
    static func resolvingLinks(_ path: String) -> String {
        var current = path
        for _ in 0..<40 {
            guard let destination = try? FileManager.default.destinationOfSymbolicLink(atPath: current) else {
                return current
            }
            let directory = (current as NSString).deletingLastPathComponent
            current = destination.hasPrefix("/") || directory.isEmpty ? destination : directory + "/" + destination
        }
        return current
    }

    /// write(2) of the whole text, retried on EINTR and short writes; the errno of a failure.
    static func writeAll(_ fd: Int32, _ text: String) -> Int32? {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes { systemWrite(fd, $0.baseAddress, $0.count) }
            if n > 0 {
                bytes = bytes.dropFirst(n)
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                return n < 0 ? errno : EIO
            }
        }
        return nil
    }
}

/// write(2), out of the reach of `OutputFile.write`'s name.
private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    write(fd, buffer, count)
}
