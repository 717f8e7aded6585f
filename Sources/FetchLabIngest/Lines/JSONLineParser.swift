/// Reads one JSON Lines record: a flat object whose values are strings, numbers, booleans
/// or null. Nested values are refused. Keys and values point into the line or into the
/// parser's scratch buffer (for strings with escapes) until the next call.
struct JSONLineParser {
    private(set) var keys: [UnsafeRawBufferPointer] = []
    private(set) var values: [UnsafeRawBufferPointer] = []
    /// Owns its memory (freed with the last copy), so a half-built owner cannot leak it.
    private let storage = ScratchBuffer(byteCount: 1 << 12)
    private var scratch: UnsafeMutableRawBufferPointer { storage.bytes }
    private var used = 0

    init() {
    }

    func deallocate() {}

    /// Parses `line`; returns an error message, or nil on success.
    mutating func parse(_ line: UnsafeRawBufferPointer) -> String? {
        keys.removeAll(keepingCapacity: true)
        values.removeAll(keepingCapacity: true)
        storage.reserve(line.count)
        used = 0
        var i = 0
        let n = line.count
        func skipSpace() {
            while i < n, line[i] == 0x20 || line[i] == 0x09 { i += 1 }
        }
        skipSpace()
        guard i < n, line[i] == UInt8(ascii: "{") else { return "not a JSON object" }
        i += 1
        skipSpace()
        if i < n, line[i] == UInt8(ascii: "}") { return nil }
        while true {
            skipSpace()
            guard i < n, line[i] == 0x22 else { return "expected a quoted key at column \(i + 1)" }
            guard let key = string(line, &i) else { return "unterminated or invalid string at column \(i + 1)" }
            skipSpace()
            guard i < n, line[i] == UInt8(ascii: ":") else { return "expected ':' at column \(i + 1)" }
            i += 1
            skipSpace()
            guard i < n else { return "missing value at end of line" }
            let value: UnsafeRawBufferPointer
            switch line[i] {
            case 0x22:
                guard let s = string(line, &i) else { return "unterminated or invalid string at column \(i + 1)" }
                value = s
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                return "nested value for key \"\(String(decoding: key, as: UTF8.self))\" is not supported"
            default:
                let start = i
                while i < n, line[i] != UInt8(ascii: ","), line[i] != UInt8(ascii: "}"), line[i] != 0x20 { i += 1 }
                let token = UnsafeRawBufferPointer(rebasing: line[start..<i])
                if token.elementsEqual("null".utf8) {
                    value = UnsafeRawBufferPointer(start: nil, count: 0)
                } else {
                    value = token
                }
            }
            keys.append(key)
            values.append(value)
            skipSpace()
            guard i < n else { return "missing '}' at end of line" }
            if line[i] == UInt8(ascii: ",") {
                i += 1
                continue
            }
            if line[i] == UInt8(ascii: "}") {
                i += 1
                skipSpace()
                return i == n ? nil : "unexpected text after the object at column \(i + 1)"
            }
            return "expected ',' or '}' at column \(i + 1)"
        }
    }

    /// Reads a string starting at the opening quote; unescapes into scratch when needed.
    private mutating func string(_ line: UnsafeRawBufferPointer, _ i: inout Int) -> UnsafeRawBufferPointer? {
        let n = line.count
        i += 1
        let start = i
        while i < n, line[i] != 0x22, line[i] != UInt8(ascii: "\\") { i += 1 }
        guard i < n else { return nil }
        if line[i] == 0x22 {
            i += 1
            return UnsafeRawBufferPointer(rebasing: line[start..<(i - 1)])
        }
        // Slow path with escapes.
        let outStart = used
        for k in start..<i {
            scratch[used] = line[k]
            used += 1
        }
        while i < n {
            let c = line[i]
            if c == 0x22 {
                i += 1
                return UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(scratch)[outStart..<used])
            }
            if c == UInt8(ascii: "\\") {
                guard i + 1 < n else { return nil }
                let e = line[i + 1]
                i += 2
                var scalar: UInt32
                switch e {
                case UInt8(ascii: "n"): scalar = 0x0A
                case UInt8(ascii: "t"): scalar = 0x09
                case UInt8(ascii: "r"): scalar = 0x0D
                case UInt8(ascii: "b"): scalar = 0x08
                case UInt8(ascii: "f"): scalar = 0x0C
                case UInt8(ascii: "u"):
                    guard i + 4 <= n, let v = UInt32(String(decoding: line[i..<(i + 4)], as: UTF8.self), radix: 16)
                    else { return nil }
                    i += 4
                    scalar = v
                default: scalar = UInt32(e)
                }
                let s = Unicode.Scalar(scalar) ?? "\u{FFFD}"
                for b in String(s).utf8 {
                    scratch[used] = b
                    used += 1
                }
                continue
            }
            scratch[used] = c
            used += 1
            i += 1
        }
        return nil
    }
}
