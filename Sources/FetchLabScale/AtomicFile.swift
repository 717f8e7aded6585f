import FetchLabIngest
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The one atomic file writer: a file written whole under a temporary name in the directory of the
/// file it replaces, synced to disk, then renamed over it. A reader sees the old file or the new
/// one, never half of one; a failure removes the temporary file and leaves the old file as it was.
///
/// Every file FetchLab writes goes through it: the output rule's files (`--output`, `--partial`,
/// the HTML report, a tune's partial: ``write(to:what:_:)``, after `OutputFile.check` of
/// FetchLabIngest), and `generate`'s files, renamed together by FetchLabDatasets' `PartialFiles`
/// (``sync()`` each, then ``rename()`` each).
///
/// One thread writes to it at a time.
public final class AtomicFile: @unchecked Sendable {
    /// The file it replaces (or creates).
    public let path: String
    /// Where it is written until it is renamed over ``path``: in the same directory.
    public let temporaryPath: String
    /// The file as messages name it (the path as given, before its links were followed).
    let source: String
    /// What messages call it ("the output", "the partial").
    let what: String
    private var descriptor: Int32

    /// Opens a temporary file beside `path` for writing, keeping an existing file's permissions.
    ///
    /// - Parameters:
    ///   - path: the file to replace or create (taken as it is: a link there is replaced, not followed).
    ///   - temporaryName: the temporary file's name in `path`'s directory, created or truncated; by
    ///     default a new name (`.NAME.UUID.tmp`) that no other file has.
    ///   - what: what messages call the file ("cannot write the output: …").
    ///   - source: the file as messages name it (by default `path`).
    /// - Throws: a ``ScaleError`` (``ScaleError/Code/write``) naming the file when the temporary
    ///   file cannot be made.
    public init(
        replacing path: String, temporaryName: String? = nil, what: String = "the output", source: String? = nil
    ) throws(ScaleError) {
        self.path = path
        self.source = source ?? path
        self.what = what
        let url = URL(fileURLWithPath: path)
        let name = temporaryName ?? ".\(url.lastPathComponent).\(UUID().uuidString).tmp"
        temporaryPath = url.deletingLastPathComponent().appendingPathComponent(name).path
        var info = stat()
        let exists = stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
        let flags = O_WRONLY | O_CREAT | O_CLOEXEC | (temporaryName == nil ? O_EXCL : O_TRUNC)
        descriptor = open(temporaryPath, flags, 0o666)
        guard descriptor >= 0 else { throw Self.failure(errno, source: self.source, what: what) }
        if exists { _ = fchmod(descriptor, info.st_mode & 0o7777) }
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Appends `bytes` to the temporary file.
    public func write(_ bytes: [UInt8]) throws(ScaleError) {
        if let code = Self.writeAll(descriptor, bytes) { throw failure(code) }
    }

    /// Appends `data` to the temporary file.
    public func write(_ data: Data) throws(ScaleError) { try write([UInt8](data)) }

    /// Syncs the temporary file to disk and closes it (the first half of ``commit()``); the
    /// temporary file is removed when that fails.
    public func sync() throws(ScaleError) {
        guard descriptor >= 0 else { return }
        var code: Int32 = 0
        if fsync(descriptor) != 0 { code = errno }
        if close(descriptor) != 0 && code == 0 { code = errno }
        descriptor = -1
        if code != 0 {
            unlink(temporaryPath)
            throw failure(code)
        }
    }

    /// Renames the synced temporary file over ``path`` (the second half of ``commit()``); the
    /// temporary file is removed when that fails, and the file at ``path`` stays as it was.
    public func rename() throws(ScaleError) {
        if systemRename(temporaryPath, path) != 0 {
            let code = errno
            unlink(temporaryPath)
            throw failure(code)
        }
    }

    /// Puts the file in place: synced, then renamed over ``path``. On failure nothing is left
    /// behind and the file at ``path`` stays as it was.
    public func commit() throws(ScaleError) {
        try sync()
        try rename()
    }

    /// Closes and removes the temporary file: ``path`` stays as it was.
    public func discard() {
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
        unlink(temporaryPath)
    }

    private func failure(_ code: Int32) -> ScaleError { Self.failure(code, source: source, what: what) }

    static func failure(_ code: Int32, source: String, what: String) -> ScaleError {
        ScaleError(.write, "\(source): cannot write \(what): \(String(cString: strerror(code)))")
    }

    // MARK: - The output rule's writer

    /// Writes `text` to `path` (``write(to:what:_:)``).
    public static func write(_ text: String, to path: String, what: String = "the output") throws {
        try write(to: path, what: what) { put in try put(Array(text.utf8)) }
    }

    /// Writes `bytes` to `path` (``write(to:what:_:)``).
    public static func write(_ bytes: [UInt8], to path: String, what: String = "the output") throws {
        try write(to: path, what: what) { put in try put(bytes) }
    }

    /// Writes the pieces `produce` hands to its argument, in order, to `path`, under the output rule
    /// (the command checked the path first with `OutputFile.check`): into a device or a pipe in
    /// place (`/dev/null`, `/dev/stdout`, a FIFO: nothing to replace, and its write errors are
    /// reported); otherwise atomically, through a temporary file beside it (keeping an existing
    /// file's permissions), synced and renamed over `path` once whole. A link is followed: the file
    /// it names is replaced, the link stays. `what` names the file in messages ("cannot write the
    /// output: No space left on device").
    ///
    /// - Throws: a ``ScaleError`` naming the file, with nothing left behind (an existing file stays
    ///   as it was); or the error `produce` threw.
    public static func write(
        to path: String, what: String = "the output", _ produce: (_ put: ([UInt8]) throws -> Void) throws -> Void
    ) throws {
        let target = OutputFile.resolvingLinks(path)
        var info = stat()
        if stat(target, &info) == 0 && (info.st_mode & S_IFMT) != S_IFREG {
            // A device or a pipe: written in place (O_TRUNC means nothing to them).
            let fd = open(target, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { throw failure(errno, source: path, what: what) }
            do {
                try produce { bytes in
                    if let code = writeAll(fd, bytes) { throw failure(code, source: path, what: what) }
                }
            } catch {
                close(fd)
                throw error
            }
            if close(fd) != 0 && errno != EINTR { throw failure(errno, source: path, what: what) }
            return
        }
        let file = try AtomicFile(replacing: target, what: what, source: path)
        do {
            try produce { bytes in try file.write(bytes) }
        } catch {
            file.discard()
            throw error
        }
        try file.commit()
    }

    /// write(2) of all of `bytes`, retried on EINTR and short writes; the errno of a failure.
    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Int32? {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { systemWrite(fd, $0.baseAddress! + done, $0.count - done) }
            if n > 0 {
                done += n
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                return n < 0 ? errno : EIO
            }
        }
        return nil
    }
}

/// write(2), out of the reach of `AtomicFile.write`'s name.
private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    write(fd, buffer, count)
}

/// rename(2), out of the reach of `AtomicFile.rename`'s name.
private func systemRename(_ from: String, _ to: String) -> Int32 {
    rename(from, to)
}
