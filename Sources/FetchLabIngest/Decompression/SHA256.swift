import Crypto

/// Incremental SHA-256 hasher, backed by swift-crypto (BoringSSL's assembly on Linux,
/// CryptoKit on Apple platforms); used to fingerprint the raw bytes of imported files.
///
/// ```swift
/// var hasher = SHA256()
/// hasher.update(bufferA)
/// hasher.update(bufferB)
/// let hex = SHA256.hex(hasher.finalize())
/// ```
///
/// It is a value: copying it forks the hash state (copy on write), which is how
/// ``DecompressingReader/contentSHA256Hex`` reports a digest while reading continues.
/// In a module that also imports Crypto, name this one `FetchLabIngest.SHA256`.
///
/// Sendable like an `Array`: swift-crypto's state is a class that is copied before a
/// shared copy is mutated (`isKnownUniquelyReferenced`), and only read otherwise; swift-crypto
/// itself does not declare the conformance.
public struct SHA256: @unchecked Sendable {
    private var state = Crypto.SHA256()

    /// Size of a digest in bytes.
    public static let digestByteCount = 32

    /// Creates a hasher in the initial state.
    public init() {}

    /// Feeds `bytes` into the hash.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        state.update(bufferPointer: bytes)
    }

    /// Feeds `bytes` into the hash.
    public mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// Feeds the UTF-8 bytes of `string` into the hash.
    public mutating func update(_ string: String) {
        var s = string
        s.withUTF8 { update(UnsafeRawBufferPointer($0)) }
    }

    /// Returns the 32-byte digest of everything fed so far. The hasher is reset to its
    /// initial state afterwards (copy it first to keep hashing).
    public mutating func finalize() -> [UInt8] {
        let digest = Array(state.finalize())
        state = Crypto.SHA256()
        return digest
    }

    /// One-shot digest of `bytes`.
    public static func hash(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finalize()
    }

    /// Lower-case hexadecimal form of `bytes` (two characters per byte).
    public static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Lower-case hex SHA-256 of the bytes of the file at `path` (`"-"` is not special here).
    /// Reads are retried when a signal interrupts them (EINTR).
    ///
    /// - Parameters:
    ///   - path: the file.
    ///   - source: the name used in errors; defaults to `path`.
    /// - Throws: ``IngestError`` with code `.io`, one line naming the file, if it cannot be
    ///   opened or read (a directory, for example).
    public static func hexDigest(ofFile path: String, source: String? = nil) throws(IngestError) -> String {
        var hasher = SHA256()
        try update(&hasher, withFile: path, source: source ?? path)
        return hex(hasher.finalize())
    }

    /// Feeds the bytes of the file at `path` to `hasher` (several files make one digest).
    static func update(_ hasher: inout SHA256, withFile path: String, source: String) throws(IngestError) {
        let file = try RawFile(path: path, source: source)
        defer { file.close() }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var offset: Int64 = 0
        while true {
            let n = try file.read(into: buffer, at: offset)
            if n == 0 { break }
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            offset += Int64(n)
        }
    }
}
