import SystemPackage

/// A readable file descriptor with errors as ``IngestError`` (code `.io`, one line naming
/// the input). Reads are retried when a signal interrupts them (EINTR).
struct RawFile {
    let descriptor: FileDescriptor
    /// The name of the input used in errors.
    let source: String

    /// Wraps an open descriptor (standard input is `FileDescriptor.standardInput`).
    init(descriptor: FileDescriptor, source: String) {
        self.descriptor = descriptor
        self.source = source
    }

    /// Opens `path` read-only (close-on-exec).
    ///
    /// - Throws: ``IngestError`` `.io` if it does not exist, cannot be opened or is a directory.
    init(path: String, source: String) throws(IngestError) {
        let descriptor: FileDescriptor
        do {
            descriptor = try FileDescriptor.open(FilePath(path), .readOnly, options: [.closeOnExec])
        } catch {
            throw IngestError(.io, source: source, message: "cannot open: \(Self.text(error))")
        }
        self.init(descriptor: descriptor, source: source)
        if kind == .directory {
            close()
            throw IngestError(.io, source: source, message: "cannot read: is a directory")
        }
    }

    /// The type of the file (regular, FIFO, directory …), `nil` if `fstat` fails.
    var kind: FileType? { try? descriptor.stat().type }

    /// The size in bytes when the descriptor is a regular file, else `nil` (pipes, terminals).
    var regularFileSize: Int64? {
        guard let info = try? descriptor.stat(), info.type == .regular else { return nil }
        return info.size
    }

    /// Reads up to `buffer.count` bytes; 0 at the end of the input. `offset` is the number
    /// of bytes read before, for the error message only.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(IngestError) -> Int {
        do {
            return try descriptor.read(into: buffer, retryOnInterrupt: true)
        } catch {
            let message =
                (error as? Errno) == .isDirectory ? "cannot read: is a directory" : "read failed: \(Self.text(error))"
            throw IngestError(.io, source: source, offset: offset, message: message)
        }
    }

    /// Closes the descriptor; errors on close are ignored (the input was only read).
    func close() {
        try? descriptor.close()
    }

    /// The system's text for an `Errno` ("No such file or directory"), else the error's description.
    private static func text(_ error: any Error) -> String {
        (error as? Errno)?.description ?? "\(error)"
    }
}
