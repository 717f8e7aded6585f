import FetchLabScale
import Foundation

/// The files being written under a temporary name (each an `AtomicFile` of FetchLabScale, the one
/// atomic writer), which must not outlive the process: removed on any error, and by
/// ``removeAllNow()`` (the CLI's SIGINT/SIGTERM/SIGHUP handler). Renaming them to their final
/// names happens under the same lock, so an interrupted run leaves either the finished files or
/// none, never a partial one.
public final class PartialFiles: @unchecked Sendable {
    public static let shared = PartialFiles()

    private let lock = NSLock()
    private var paths: Set<String> = []
    /// Set once the process is being stopped: no file may be created or renamed after it.
    private var stopping = false

    public init() {}

    /// Opens a temporary file for each of `files` (the final path, and the temporary file's name in
    /// its directory) and registers them, under the lock: a stop either comes first (nil, nothing
    /// created) or removes them — a file registered first and created after the stop's removal
    /// would outlive it. Nil too when one cannot be created (none is left then).
    func create(_ files: [(path: String, temporaryName: String)]) -> [AtomicFile]? {
        lock.withLock {
            guard !stopping else { return nil }
            var made: [AtomicFile] = []
            for f in files {
                guard let file = try? AtomicFile(replacing: f.path, temporaryName: f.temporaryName) else {
                    for g in made { g.discard() }
                    return nil
                }
                made.append(file)
            }
            paths.formUnion(made.map(\.temporaryPath))
            return made
        }
    }

    /// Whether the process is being stopped.
    var isStopping: Bool { lock.withLock { stopping } }

    /// Removes `files` and forgets them.
    func discard(_ files: [AtomicFile]) {
        lock.withLock {
            for f in files { f.discard() }
            paths.subtract(files.map(\.temporaryPath))
        }
    }

    /// Syncs each file, then renames each temporary file to its final name, all under the lock;
    /// false (and every temporary removed) when one sync or rename fails or the process is being
    /// stopped.
    func commit(_ files: [AtomicFile]) -> Bool {
        // Synced before the lock, so that a stop meanwhile does not wait for the disk.
        let synced = files.allSatisfy { (try? $0.sync()) != nil }
        return lock.withLock {
            // A directory where a file should go would fail its rename half-way: check them all first.
            var ok = synced && !stopping && files.allSatisfy { !Self.isDirectory($0.path) }
            var renamed: [String] = []
            for f in files where ok {
                if (try? f.rename()) != nil { renamed.append(f.path) } else { ok = false }
            }
            for f in files {
                if !ok { f.discard() }
                paths.remove(f.temporaryPath)
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
