import ArgumentParser
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Keeps an output file off the files a command reads: a database (with its `-wal`, `-shm` and
/// `-journal` files) or an input. An output path is the same file when it resolves to the same
/// path (symbolic links, `./`, `..`) or, when both exist, is the same inode (a hard link).
enum OutputGuard {
    /// A file the command must not overwrite, and what to call it in the message.
    struct Protected {
        var path: String
        var what: String
        /// A SQLite database: its `-wal`, `-shm` and `-journal` files are protected too.
        var database: Bool
    }

    /// Throws a one-line ``ValidationError`` (exit 64) when `output` names a protected file.
    static func refuse(_ output: String?, option: String = "--output", protecting protected: [Protected]) throws {
        guard let output else { return }
        let target = resolved(output)
        let targetID = identity(output)
        for p in protected {
            let names = p.database ? ["", "-wal", "-shm", "-journal"] : [""]
            for suffix in names {
                let path = p.path + suffix
                let same = resolved(path) == target || (targetID != nil && identity(path) == targetID)
                guard same else { continue }
                let part = suffix.isEmpty ? p.what : "the \(suffix.dropFirst()) file of \(p.what)"
                throw ValidationError(
                    "\(option) \(output): is \(part) (\(p.path)\(suffix)); writing there would destroy it — choose "
                        + "another file")
            }
        }
    }

    /// Throws a one-line ``ValidationError`` (exit 64) when `path` is an existing regular file (a
    /// link to one included) and `force` is off: no file is replaced silently. A device or a pipe
    /// (/dev/null, /dev/stdout) is written to, not replaced, and is never refused.
    static func refuseExisting(_ path: String?, option: String = "--output", force: Bool) throws {
        guard let path, !force else { return }
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return }
        throw ValidationError("\(option) \(path): the file exists; pass --force to replace it (or choose another name)")
    }

    /// The database of a command as a protected file.
    static func database(_ path: String) -> Protected { Protected(path: path, what: "the database", database: true) }

    /// `path` made absolute with every link resolved: the file's own real path when it exists, else
    /// its directory's real path and its name.
    static func resolved(_ path: String) -> String {
        if let real = realPath(path) { return real }
        let url = URL(fileURLWithPath: path)
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
