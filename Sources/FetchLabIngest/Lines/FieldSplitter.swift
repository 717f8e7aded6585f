/// Splits one delimited line into fields, honouring RFC 4180 double quotes (`"a,b"`, `""`).
///
/// Fields point into the line, or into the splitter's scratch buffer when they had to be
/// unquoted; they are valid until the next call to ``split(_:)``.
struct FieldSplitter {
    let delimiter: UInt8
    private(set) var fields: [UnsafeRawBufferPointer] = []
    private var scratch: UnsafeMutableRawBufferPointer

    init(delimiter: UInt8) {
        self.delimiter = delimiter
        fields.reserveCapacity(32)
        scratch = .allocate(byteCount: 1 << 12, alignment: 1)
    }

    /// Frees the scratch buffer; the splitter must not be used afterwards.
    func deallocate() { scratch.deallocate() }

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
        if scratch.count < line.count {
            scratch.deallocate()
            scratch = .allocate(byteCount: line.count, alignment: 1)
        }
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
