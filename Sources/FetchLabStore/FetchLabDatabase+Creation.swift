import Foundation
import GRDB

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Creating a new database so that it appears whole or not at all.
extension Opening {
    /// Creates the database with its whole schema under a temporary name in the same directory
    /// (`.NAME.creating-PID-RANDOM`), closes it (the WAL is checkpointed into the file and removed), then
    /// links it to `path`, which succeeds only while nothing is there: if another process created
    /// the database meanwhile, its file stays and this one is removed. A kill at any moment leaves
    /// either no file at `path` or a complete, empty database; files of creations whose process is
    /// gone are removed by the next creation in the directory.
    ///
    /// Best effort: where the directory allows no temporary file or no hard link (some network and
    /// FAT file systems), the database is created in place as before, and that path reports any
    /// error under the database's own name.
    func createAtomically() {
        removeAbandonedCreations()
        // Unique per creation, also among threads of one process (which share SQLite's file state).
        let temporary = creationPrefix + "\(getpid())-" + String(UInt64.random(in: 1...UInt64.max), radix: 16)
        Self.removeWithSidecars(temporary)
        let made: Bool
        do {
            let pool = try DatabasePool(path: temporary, configuration: configuration(readOnly: false))
            do {
                try Opening(path: temporary, waiting: waiting).complete(pool)
                try pool.close()
                made = true
            } catch {
                try? pool.close()
                throw error
            }
        } catch {
            made = false
        }
        guard made, !FileManager.default.fileExists(atPath: temporary + "-wal") else {
            Self.removeWithSidecars(temporary)
            return
        }
        TestHook.kill(at: .created)
        // EEXIST: another process's database is there; anything else: create in place instead.
        let linked = link(temporary, path) == 0
        Self.removeWithSidecars(temporary)
        // Sound as made (after the unlink, which moves the file's status-change time): the open
        // that follows need not check it.
        if linked { CheckStamp(database: path).record() }
    }

    /// `DIR/.NAME.creating-`: the temporary names of this database's creations, before `PID-RANDOM`.
    var creationPrefix: String {
        directory + "/." + (path as NSString).lastPathComponent + ".creating-"
    }

    /// Removes temporary files of creations of this database whose process no longer runs.
    func removeAbandonedCreations() {
        let prefix = (creationPrefix as NSString).lastPathComponent
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for name in names where name.hasPrefix(prefix) {
            let rest = name.dropFirst(prefix.count)
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            guard let pid = pid_t(digits), pid > 0, rest.dropFirst(digits.count).hasPrefix("-"),
                kill(pid, 0) != 0, errno == ESRCH
            else { continue }
            unlink(directory + "/" + name)
        }
    }

    static func removeWithSidecars(_ file: String) {
        for suffix in ["-wal", "-shm", "-journal", ""] { unlink(file + suffix) }
    }
}
