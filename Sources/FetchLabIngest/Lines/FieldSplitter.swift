/// Splits one delimited line into fields, honouring RFC 4180 double quotes (`"a,b"`, `""`).
///
/// Fields point into the line, or into the splitter's scratch buffer when they had to be
/// unquoted; they are valid until the next call to ``split(_:)``.
struct FieldSplitter {
    let delimiter: UInt8
    private(set) var fields: [UnsafeRawBufferPointer] = []
    /// Owns its memory (freed with the last copy), so a half-built owner cannot leak it.
    private let storage = ScratchBuffer(byteCount: 1 << 12)
    private var scratch: UnsafeMutableRawBufferPointer { storage.bytes }

    init(delimiter: UInt8) {
        self.delimiter = delimiter
        fields.reserveCapacity(32)
    }

    /// Kept for callers; the buffer frees itself.
    func deallocate() {}

    /// Splits `line`; returns false when a quoted field is not closed.
    @inline(__always)
    mutating func split(_ line: UnsafeRawBufferPointer) -> Bool {
        fields.removeAll(keepingCapacity: true)
        guard let base = line.baseAddress, line.count > 0 else {
            fields.append(UnsafeRawBufferPointer(start: nil, count: 0))
            return true
        }
        if memchr(base, 0x22, line.count) == nil {
            var start = 0
            let count = line.count
            var p = base
            var remaining = count
            while let hit = memchr(p, Int32(delimiter), remaining) {
                let end = base.distance(to: UnsafeRawPointer(hit))
                fields.append(UnsafeRawBufferPointer(start: base + start, count: end - start))
                start = end + 1
                p = base + start
                remaining = count - start
            }
            fields.append(UnsafeRawBufferPointer(start: base + start, count: count - start))
            return true
        }
        return splitQuoted(line)
    }

    private mutating func splitQuoted(_ line: UnsafeRawBufferPointer) -> Bool {
        storage.reserve(line.count)
        var out = 0
        var i = 0
        let n = line.count
        while true {
            let fieldStart = out
            if i < n, line[i] == 0x22 {
                i += 1
                var closed = false
                while i < n {
                    let c = line[i]
                    if c == 0x22 {
                        if i + 1 < n, line[i + 1] == 0x22 {
                            scratch[out] = 0x22
                            out += 1
                            i += 2
                            continue
                        }
                        i += 1
                        closed = true
                        break
                    }
                    scratch[out] = c
                    out += 1
                    i += 1
                }
                if !closed { return false }
                // Anything between the closing quote and the delimiter is kept as is.
                while i < n, line[i] != delimiter {
                    scratch[out] = line[i]
                    out += 1
                    i += 1
                }
            } else {
                while i < n, line[i] != delimiter {
                    scratch[out] = line[i]
                    out += 1
                    i += 1
                }
            }
            fields.append(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(scratch)[fieldStart..<out]))
            if i >= n { return true }
            i += 1  // the delimiter
            if i == n {
                fields.append(UnsafeRawBufferPointer(start: nil, count: 0))
                return true
            }
        }
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A growable raw buffer that frees itself.
final class ScratchBuffer: @unchecked Sendable {
    private(set) var bytes: UnsafeMutableRawBufferPointer

    init(byteCount: Int) { bytes = .allocate(byteCount: max(1, byteCount), alignment: 1) }

    deinit { bytes.deallocate() }

    /// Makes room for `count` bytes (the contents are not kept).
    func reserve(_ count: Int) {
        guard bytes.count < count else { return }
        bytes.deallocate()
        bytes = .allocate(byteCount: count, alignment: 1)
    }
}
