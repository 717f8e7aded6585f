import Foundation

/// Where `fetchlab demo` finds its sample when `--data` is not given, and how the user ran it.
///
/// The sample (`Datasets/sample`, 1.1 MB of gzip files) is not a SwiftPM resource: a resource
/// must live inside the target's directory, and `Bundle.module` stops the program when its bundle
/// is not where the build left it (a binary copied to another machine). The demo looks, in order:
/// `Datasets/sample` in the working directory; `fetchlab-sample` next to the binary, then
/// `../share/fetchlab/sample` from it (where `make install` puts it); and the repository the
/// binary was built from (this file's `#filePath`), so a binary copied elsewhere on the same machine
/// still finds it.
public enum BundledSample {
    /// The default `--data`.
    public static let relative = "Datasets/sample"

    /// The real path of the running binary (links resolved), when known.
    public static var executable: String? {
        guard let url = Bundle.main.executableURL else { return nil }
        return url.resolvingSymlinksInPath().path
    }

    /// The places looked at, in order.
    public static func candidates(executable: String? = executable, filePath: String = #filePath) -> [String] {
        var out = [relative]
        if let executable {
            let dir = URL(fileURLWithPath: executable).deletingLastPathComponent()
            out.append(dir.appendingPathComponent("fetchlab-sample").path)
            out.append(dir.deletingLastPathComponent().appendingPathComponent("share/fetchlab/sample").path)
        }
        // Sources/FetchLabWorkflows/BundledSample.swift → the repository's top.
        let top = URL(fileURLWithPath: filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        out.append(top.appendingPathComponent(relative).path)
        return out
    }

    /// The sample to import: `given` (`--data`), else the first candidate that holds it. A
    /// ``WorkflowError`` when the directory is not there.
    public static func directory(given: String?) throws -> String {
        let dir = given ?? locate() ?? relative
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDirectory), isDirectory.boolValue else {
            if given != nil { throw WorkflowError(.failed, "\(dir): no such sample directory (--data)") }
            throw WorkflowError(
                .failed,
                "no bundled sample found (looked in " + candidates().joined(separator: ", ") + "); give --data DIR")
        }
        return dir
    }

    /// The first candidate that is a directory holding the sample's usage log.
    public static func locate() -> String? {
        candidates().first { dir in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: dir, isDirectory: &isDirectory) && isDirectory.boolValue
                && FileManager.default.fileExists(atPath: (dir as NSString).appendingPathComponent("usage.csv.gz"))
        }
    }

    /// How to run fetchlab again, as the user ran it: `swift run fetchlab` when this binary is a
    /// build product of the SwiftPM package in the working directory (under its `.build/`, what
    /// `swift run` runs); else the binary as it was named on the command line (`argv[0]`: a bare
    /// `fetchlab` found on the PATH, or its path, which works from the same directory).
    public static func commandPrefix(
        executable: String? = executable, invokedAs: String = CommandLine.arguments.first ?? "fetchlab",
        directory: String = FileManager.default.currentDirectoryPath
    ) -> String {
        if let executable, let range = executable.range(of: "/.build/") {
            let package = String(executable[..<range.lowerBound])
            let here = URL(fileURLWithPath: directory).resolvingSymlinksInPath().path
            if package == here { return "swift run fetchlab" }
        }
        let name = invokedAs.isEmpty ? (executable ?? "fetchlab") : invokedAs
        // A name with a space or a quote is quoted for a POSIX shell.
        guard name.contains(where: { " '\"\\$`".contains($0) }) else { return name }
        return "'" + name.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
