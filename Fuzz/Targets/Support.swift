// Shared by the fuzz targets: input bytes as a file, kept in memory (tmpfs), reused per input.
import Glibc

nonisolated(unsafe) private var sharedFD: Int32 = -1

/// A file descriptor (at offset 0) of a file holding exactly `size` bytes from `data`. The file
/// lives in /dev/shm (or /tmp), is unlinked, and is reused: do not close it.
func memoryFile(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    if sharedFD < 0 {
        var template = Array((access("/dev/shm", W_OK) == 0 ? "/dev/shm/fuzz-XXXXXX" : "/tmp/fuzz-XXXXXX").utf8CString)
        sharedFD = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        precondition(sharedFD >= 0, "cannot create the fuzz input file")
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
    }
    precondition(ftruncate(sharedFD, 0) == 0)
    var written = 0
    while written < size {
        let n = pwrite(sharedFD, data + written, size - written, off_t(written))
        precondition(n > 0, "write failed")
        written += n
    }
    lseek(sharedFD, 0, SEEK_SET)
    return sharedFD
}
