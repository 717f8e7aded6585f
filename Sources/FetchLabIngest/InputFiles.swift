import Foundation

/// Turns the import command's file arguments into a list of files.
public enum InputFiles {
    /// What the arguments name: the files to read, and what a directory held that is not read.
    public struct Expansion: Sendable, Equatable {
        /// The files to read, in order.
        public var paths: [String] = []
        /// Entries of a directory skipped because they are not regular files (a FIFO, a socket, a
        /// device): one line each, for a note on stderr.
        public var skipped: [String] = []
        /// Arguments and directory entries that name nothing to read (a path that does not exist, a
        /// directory without log files, a pattern that matches nothing, a dangling symbolic link): one
        /// line each, an error of the import (the other files are still read).
        public var problems: [String] = []

        public init(paths: [String] = [], skipped: [String] = [], problems: [String] = []) {
            self.paths = paths
            self.skipped = skipped
            self.problems = problems
        }
    }

    /// The files named by command-line arguments (see ``expandReporting(_:)``).
    /// - Throws: ``IngestError`` (`io`) for the first argument or entry that names nothing to read.
    public static func expand(_ arguments: [String]) throws(IngestError) -> [String] {
        let (expansion, problems) = expanding(arguments)
        if let first = problems.first { throw first }
        return expansion.paths
    }

    /// The files named by command-line arguments: a file as it is, a directory's log files (by
    /// name, sorted), a glob pattern's matches, `-` for standard input. A name that does not exist,
    /// a directory without log files and a pattern that matches nothing are problems, found before
    /// anything is opened (an import with nothing to read creates no database). A directory
    /// contributes only its regular files (and symbolic links to them): a FIFO, socket or device in
    /// it is skipped with a note (it could block the import forever), a dangling symbolic link is a
    /// problem. A FIFO named by itself is read.
    public static func expandReporting(_ arguments: [String]) -> Expansion {
        let (expansion, problems) = expanding(arguments)
        var result = expansion
        result.problems = problems.map(\.description)
        return result
    }

    /// The expansion, and its problems in argument order.
    private static func expanding(_ arguments: [String]) -> (Expansion, [IngestError]) {
        var result = Expansion()
        var problems: [IngestError] = []
        func problem(_ source: String, _ message: String) {
            problems.append(IngestError(.io, source: source, message: message))
        }
        for argument in arguments {
            if argument == "-" {
                result.paths.append(argument)
                continue
            }
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory) {
                if isDirectory.boolValue {
                    let entries = (try? FileManager.default.contentsOfDirectory(atPath: argument)) ?? []
                    // A directory contributes its log files (by name); files named one by one are always read.
                    let candidates = entries.sorted().filter { !$0.hasPrefix(".") && looksLikeLog($0) }
                        .map { (argument as NSString).appendingPathComponent($0) }
                    var files: [String] = []
                    let problemsBefore = problems.count, skippedBefore = result.skipped.count
                    for path in candidates {
                        switch kind(of: path) {
                        case .regular: files.append(path)
                        case .directory: break
                        case .dangling(let target):
                            problem(path, "dangling symbolic link (to \(target)); it was not imported")
                        case .other(let what):
                            result.skipped.append("\(path): skipped: \(what), not a regular file")
                        }
                    }
                    if files.isEmpty && problems.count == problemsBefore && result.skipped.count == skippedBefore {
                        problem(
                            argument, "directory has no log files (.csv, .tsv, .jsonl, .txt, .log, optionally .gz/.zz)")
                    }
                    result.paths += files
                } else {
                    result.paths.append(argument)
                }
                continue
            }
            if argument.contains(where: { "*?[".contains($0) }) {
                let matches = glob(argument)
                if matches.isEmpty { problem(argument, "no file matches") }
                result.paths += matches
                continue
            }
            // Nothing there (or nothing this process may look at).
            var info = stat()
            let found = stat(argument, &info) == 0
            let reason = String(cString: strerror(errno))
            if found {
                result.paths.append(argument)
            } else if case .dangling(let target) = kind(of: argument) {
                problem(argument, "dangling symbolic link (to \(target))")
            } else {
                problem(argument, reason)
            }
        }
        return (result, problems)
    }

    enum Kind: Equatable {
        case regular, directory
        case dangling(String)
        case other(String)
    }

    /// What a directory entry is, following symbolic links.
    static func kind(of path: String) -> Kind {
        var info = stat()
        guard stat(path, &info) == 0 else {
            var link = stat()
            if lstat(path, &link) == 0 && (link.st_mode & S_IFMT) == S_IFLNK {
                let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? "?"
                return .dangling(target)
            }
            return .other("cannot be examined (\(String(cString: strerror(errno))))")
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .regular
        case S_IFDIR: return .directory
        case S_IFIFO: return .other("a FIFO (named pipe)")
        case S_IFSOCK: return .other("a socket")
        case S_IFCHR: return .other("a character device")
        case S_IFBLK: return .other("a block device")
        default: return .other("not a file")
        }
    }

    /// Whether a file name in a directory is a log to import: a text-log extension, optionally
    /// followed by a compression one (`usage.csv.gz`). Other files (`habits.json`, `README.md`) are skipped.
    public static func looksLikeLog(_ name: String) -> Bool {
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
