import Foundation

/// Turns the import command's file arguments into a list of files.
public enum InputFiles {
    /// The files named by command-line arguments: a file as it is, a directory's log files (by
    /// name, sorted), a glob pattern's matches, `-` for standard input. A name that does not exist
    /// is passed on, for the importer to report with the file's name.
    public static func expand(_ arguments: [String]) throws(IngestError) -> [String] {
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
                        throw IngestError(
                            .usage, source: argument,
                            message: "directory has no log files (.csv, .tsv, .jsonl, .txt, .log, optionally .gz/.zz)")
                    }
                    paths += files
                } else {
                    paths.append(argument)
                }
                continue
            }
            if argument.contains(where: { "*?[".contains($0) }) {
                let matches = glob(argument)
                if matches.isEmpty { throw IngestError(.usage, source: argument, message: "no file matches") }
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
