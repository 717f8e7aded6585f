import Foundation

/// The files being written under a temporary name, which must not outlive the process: removed
/// on any error, and by ``removeAllNow()`` (the CLI's SIGINT/SIGTERM/SIGHUP handler). Renaming
/// them to their final names happens under the same lock, so an interrupted run leaves either
/// the finished files or none, never a partial one.
public final class PartialFiles: @unchecked Sendable {
    public static let shared = PartialFiles()

    private let lock = NSLock()
    private var paths: Set<String> = []
    /// Set once the process is being stopped: no file may be created or renamed after it.
    private var stopping = false

    public init() {}

    /// Creates `files` (empty) and registers them, under the lock: a stop either comes first (false,
    /// nothing created) or removes them — a file registered first and created after the stop's
    /// removal would outlive it. False too when one cannot be created (none is left then).
    func create(_ files: [String]) -> Bool {
        lock.withLock {
            guard !stopping else { return false }
            for (i, f) in files.enumerated() where !FileManager.default.createFile(atPath: f, contents: nil) {
                for g in files[..<i] { unlink(g) }
                return false
            }
            paths.formUnion(files)
            return true
        }
    }

    /// Whether the process is being stopped.
    var isStopping: Bool { lock.withLock { stopping } }

    /// Removes `files` and forgets them.
    func discard(_ files: [String]) {
        lock.withLock {
            for f in files { unlink(f) }
            paths.subtract(files)
        }
    }

    /// Renames each temporary file to its final name, all under the lock; false (and every
    /// temporary removed) when one rename fails or the process is being stopped.
    func commit(_ renames: [(from: String, to: String)]) -> Bool {
        lock.withLock {
            // A directory where a file should go would fail its rename half-way: check them all first.
            var ok = !stopping && renames.allSatisfy { !Self.isDirectory($0.to) }
            var renamed: [String] = []
            for (from, to) in renames where ok {
                if rename(from, to) == 0 { renamed.append(to) } else { ok = false }
            }
            for (from, _) in renames {
                if !ok { unlink(from) }
                paths.remove(from)
            }
            // All of the files or none of them.
            if !ok { for f in renamed { unlink(f) } }
            return ok
        }
    }

    private static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Removes every registered file now; later registrations and commits fail. For a signal
    /// handler (run on a dispatch queue, not in the signal context): waits for a commit in progress.
    public func removeAllNow() {
        lock.withLock {
            stopping = true
            for f in paths { unlink(f) }
            paths.removeAll()
        }
    }
}
