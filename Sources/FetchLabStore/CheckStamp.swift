import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What lets opening skip `PRAGMA quick_check` (which reads every page: about 0.5 s for a
/// 5-million-event, 120 MB database) when the file is exactly as FetchLab left it: the file's
/// identity, size, modification and status-change times (to the nanosecond), recorded in
/// `DB-checked` beside the database after a check passed and again when FetchLab closes the
/// database it wrote. Any other change to the file (even `touch -r`, which moves the status-change
/// time) makes the next open check again; so does a missing or unwritable stamp.
struct CheckStamp {
    let database: String

    var path: String { database + "-checked" }

    /// The database file's stamp now, or nil when it cannot be read.
    var current: String? {
        var info = stat()
        guard stat(database, &info) == 0 else { return nil }
        #if canImport(Darwin)
            let (modified, changed) = (info.st_mtimespec, info.st_ctimespec)
        #else
            let (modified, changed) = (info.st_mtim, info.st_ctim)
        #endif
        return "quick_check ok: device \(info.st_dev) inode \(info.st_ino) size \(info.st_size) "
            + "modified \(modified.tv_sec).\(modified.tv_nsec) changed \(changed.tv_sec).\(changed.tv_nsec)\n"
    }

    /// Whether the file is as it was when the stamp was recorded.
    var matches: Bool {
        guard let current, let recorded = try? String(contentsOfFile: path, encoding: .utf8) else { return false }
        return recorded == current
    }

    /// Records the file's state now (best effort: without a stamp, the next open checks).
    func record() {
        guard let current else { return }
        try? current.write(toFile: path, atomically: true, encoding: .utf8)
    }
}
