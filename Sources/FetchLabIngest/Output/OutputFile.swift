import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The one rule for every file FetchLab writes (`--output`, `--partial`, the HTML report, a tune's
/// partial), checked before any work (``check(_:option:force:protecting:)``) and applied by the one
/// atomic writer (`AtomicFile.write(to:what:_:)` of FetchLabScale):
///
/// - a path that does not exist is created, through a temporary file in its directory renamed
///   over it when complete (a reader never sees half a file; a failed write leaves nothing);
/// - an existing regular file (or a link to one) is replaced, the same way, only with `--force`;
/// - a device or a named pipe (`/dev/null`, `/dev/stdout`, a FIFO) is written into in place, never
///   replaced, and its write errors are reported (`/dev/full`: "No space left on device");
/// - the database and its `-wal`, `-shm`, `-journal` and `-checked` files, an input, and any link
///   to one of them, are refused, as are a directory and a path whose directory does not exist.
public enum OutputFile {
    /// A file a command reads, which no output may overwrite, and what to call it in messages.
    public struct Protected: Sendable, Hashable {
        public var path: String
        public var what: String
        /// A SQLite database: its `-wal`, `-shm`, `-journal` and `-checked` files are protected too.
        public var database: Bool

        public init(path: String, what: String, database: Bool = false) {
            self.path = path
            self.what = what
            self.database = database
        }

        /// A command's database (`--db`).
        public static func database(_ path: String) -> Protected {
            Protected(path: path, what: "the database", database: true)
        }

        /// The files FetchLab keeps beside a database, by their suffix.
        public static let databaseCompanions = ["-wal", "-shm", "-journal", "-checked"]
    }

    /// What is at a path now.
    public enum Existing: Sendable, Hashable {
        case nothing
        case regularFile
        /// A device, a named pipe or a socket: written into in place.
        case special
        case directory
    }

    /// What is at `path` (links followed).
    public static func existing(_ path: String) -> Existing {
        var info = stat()
        guard stat(path, &info) == 0 else { return .nothing }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .regularFile
        case S_IFDIR: return .directory
        default: return .special
        }
    }

    /// Refuses `path` as an output (a usage error, one line naming `option`) when it is, or links
    /// to, a protected file; when it is a directory or its directory does not exist; or when it is
    /// an existing regular file and `force` is off. A device or a named pipe passes.
    public static func check(
        _ path: String, option: String = "--output", force: Bool, protecting protected: [Protected] = []
    ) throws(IngestError) {
        func refuse(_ message: String) -> IngestError {
            IngestError(.output, source: "\(option) \(path)", message: message)
        }
        let target = resolved(path)
        let targetID = identity(path)
        for p in protected {
            for suffix in [""] + (p.database ? Protected.databaseCompanions : []) {
                let file = p.path + suffix
                guard resolved(file) == target || (targetID != nil && identity(file) == targetID) else { continue }
                let part = suffix.isEmpty ? p.what : "the \(suffix.dropFirst()) file of \(p.what)"
                throw refuse("is \(part) (\(file)); writing there would destroy it — choose another file")
            }
        }
        let parent = (resolvingLinks(path) as NSString).deletingLastPathComponent
        let directory = parent.isEmpty ? "." : parent
        guard existing(directory) == .directory else { throw refuse("no directory \(directory) to write it in") }
        switch existing(path) {
        case .directory: throw refuse("is a directory")
        case .regularFile where !force:
            throw refuse("the file exists; pass --force to replace it (or choose another name)")
        case .nothing, .regularFile, .special: return
        }
    }

    /// `path` with its symbolic links followed (up to 40, as the kernel does), also when the file
    /// a link names does not exist yet.
    public static func resolvingLinks(_ path: String) -> String {
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

    /// `path` made absolute with every link resolved: the file's own real path when it exists, else
    /// its directory's real path and its name.
    public static func resolved(_ path: String) -> String {
        if let real = realPath(path) { return real }
        let url = URL(fileURLWithPath: resolvingLinks(path))
        let directory = url.deletingLastPathComponent().path
        let base = realPath(directory) ?? URL(fileURLWithPath: directory).standardizedFileURL.path
        return (base as NSString).appendingPathComponent(url.lastPathComponent)
    }

    static func realPath(_ path: String) -> String? {
        guard let p = realpath(path, nil) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }

    /// The device and inode of an existing file.
    static func identity(_ path: String) -> [UInt64]? {
        var s = stat()
        guard stat(path, &s) == 0 else { return nil }
        return [UInt64(s.st_dev), UInt64(s.st_ino)]
    }
}
