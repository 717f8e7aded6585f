// A pure-Swift SHA-256 (FIPS 180-4), used to fingerprint the raw bytes of
// imported files. The compression function is fully unrolled (64 rounds with
// a 16-word rolling message schedule held in locals) so that the optimizer
// keeps the whole working state in registers. The round code is generated;
// the round constants are the first 32 bits of the fractional parts of the
// cube roots of the first 64 primes.

/// Incremental SHA-256 hasher (FIPS 180-4).
///
/// ```swift
/// var hasher = SHA256()
/// hasher.update(bufferA)
/// hasher.update(bufferB)
/// let hex = SHA256.hex(hasher.finalize())
/// ```
///
/// It is a plain value without heap storage: copying it forks the hash state,
/// which is how ``DecompressingReader/contentSHA256Hex`` reports a digest
/// while reading continues.
public struct SHA256: Sendable {
    /// The hash state words H0…H7.
    private var h0: UInt32 = 0x6a09e667, h1: UInt32 = 0xbb67ae85
    private var h2: UInt32 = 0x3c6ef372, h3: UInt32 = 0xa54ff53a
    private var h4: UInt32 = 0x510e527f, h5: UInt32 = 0x9b05688c
    private var h6: UInt32 = 0x1f83d9ab, h7: UInt32 = 0x5be0cd19
    /// Bytes of an incomplete block (64 bytes of inline storage).
    private var pending: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
    private var pendingCount = 0
    /// Total message length in bytes.
    private var length: UInt64 = 0

    /// Size of a digest in bytes.
    public static let digestByteCount = 32

    /// Creates a hasher in the initial state.
    public init() {}

    /// Feeds `bytes` into the hash.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard var p = bytes.baseAddress, bytes.count > 0 else { return }
        var n = bytes.count
        length &+= UInt64(n)
        if pendingCount > 0 {
            let take = min(64 - pendingCount, n)
            let filled = pendingCount
            withUnsafeMutableBytes(of: &pending) { buf in
                guard let base = buf.baseAddress else { return }
                (base + filled).copyMemory(from: p, byteCount: take)
            }
            pendingCount += take
            p += take
            n -= take
            guard pendingCount == 64 else { return }
            var block = pending
            withUnsafeBytes(of: &block) { buf in
                guard let base = buf.baseAddress else { return }
                compress(base, blocks: 1)
            }
            pendingCount = 0
        }
        let blocks = n / 64
        if blocks > 0 {
            compress(p, blocks: blocks)
            p += blocks * 64
            n -= blocks * 64
        }
        if n > 0 {
            withUnsafeMutableBytes(of: &pending) { buf in
                guard let base = buf.baseAddress else { return }
                base.copyMemory(from: p, byteCount: n)
            }
            pendingCount = n
        }
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

    /// Pads the message and returns the 32-byte digest. The hasher is reset to
    /// its initial state afterwards (copy it first to keep hashing).
    public mutating func finalize() -> [UInt8] {
        let bitLength = length &* 8
        var tail = [UInt8](repeating: 0, count: pendingCount < 56 ? 64 : 128)
        let count = pendingCount
        withUnsafeBytes(of: &pending) { buf in
            for i in 0..<count { tail[i] = buf[i] }
        }
        tail[count] = 0x80
        for i in 0..<8 {
            tail[tail.count - 1 - i] = UInt8(truncatingIfNeeded: bitLength >> (8 * UInt64(i)))
        }
        tail.withUnsafeBytes { buf in
            if let base = buf.baseAddress { compress(base, blocks: buf.count / 64) }
        }
        var digest = [UInt8]()
        digest.reserveCapacity(SHA256.digestByteCount)
        for word in [h0, h1, h2, h3, h4, h5, h6, h7] {
            digest.append(UInt8(truncatingIfNeeded: word >> 24))
            digest.append(UInt8(truncatingIfNeeded: word >> 16))
            digest.append(UInt8(truncatingIfNeeded: word >> 8))
            digest.append(UInt8(truncatingIfNeeded: word))
        }
        self = SHA256()
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

    // MARK: - Compression function

    /// Processes `blocks` consecutive 64-byte blocks starting at `p`.
    private mutating func compress(_ p: UnsafeRawPointer, blocks: Int) {
        @inline(__always) func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x &>> n) | (x &<< (32 &- n)) }
        @inline(__always) func S0(_ x: UInt32) -> UInt32 { rotr(x, 2) ^ rotr(x, 13) ^ rotr(x, 22) }
        @inline(__always) func S1(_ x: UInt32) -> UInt32 { rotr(x, 6) ^ rotr(x, 11) ^ rotr(x, 25) }
        @inline(__always) func s0(_ x: UInt32) -> UInt32 { rotr(x, 7) ^ rotr(x, 18) ^ (x &>> 3) }
        @inline(__always) func s1(_ x: UInt32) -> UInt32 { rotr(x, 17) ^ rotr(x, 19) ^ (x &>> 10) }
        @inline(__always) func ch(_ x: UInt32, _ y: UInt32, _ z: UInt32) -> UInt32 { z ^ (x & (y ^ z)) }
        @inline(__always) func maj(_ x: UInt32, _ y: UInt32, _ z: UInt32) -> UInt32 { (x & y) | (z & (x | y)) }
        @inline(__always) func load(_ p: UnsafeRawPointer, _ i: Int) -> UInt32 {
            UInt32(bigEndian: p.loadUnaligned(fromByteOffset: i &* 4, as: UInt32.self))
        }
        var p = p
        for _ in 0..<blocks {
            var w0 = load(p, 0), w1 = load(p, 1), w2 = load(p, 2), w3 = load(p, 3)
            var w4 = load(p, 4), w5 = load(p, 5), w6 = load(p, 6), w7 = load(p, 7)
            var w8 = load(p, 8), w9 = load(p, 9), w10 = load(p, 10), w11 = load(p, 11)
            var w12 = load(p, 12), w13 = load(p, 13), w14 = load(p, 14), w15 = load(p, 15)
            var a = h0, b = h1, c = h2, d = h3, e = h4, f = h5, g = h6, h = h7
            h = h &+ S1(e) &+ ch(e, f, g) &+ 0x428a2f98 &+ w0
            d = d &+ h
            h = h &+ S0(a) &+ maj(a, b, c)
            g = g &+ S1(d) &+ ch(d, e, f) &+ 0x71374491 &+ w1
            c = c &+ g
            g = g &+ S0(h) &+ maj(h, a, b)
            f = f &+ S1(c) &+ ch(c, d, e) &+ 0xb5c0fbcf &+ w2
            b = b &+ f
            f = f &+ S0(g) &+ maj(g, h, a)
            e = e &+ S1(b) &+ ch(b, c, d) &+ 0xe9b5dba5 &+ w3
            a = a &+ e
            e = e &+ S0(f) &+ maj(f, g, h)
            d = d &+ S1(a) &+ ch(a, b, c) &+ 0x3956c25b &+ w4
            h = h &+ d
            d = d &+ S0(e) &+ maj(e, f, g)
            c = c &+ S1(h) &+ ch(h, a, b) &+ 0x59f111f1 &+ w5
            g = g &+ c
            c = c &+ S0(d) &+ maj(d, e, f)
            b = b &+ S1(g) &+ ch(g, h, a) &+ 0x923f82a4 &+ w6
            f = f &+ b
            b = b &+ S0(c) &+ maj(c, d, e)
            a = a &+ S1(f) &+ ch(f, g, h) &+ 0xab1c5ed5 &+ w7
            e = e &+ a
            a = a &+ S0(b) &+ maj(b, c, d)
            h = h &+ S1(e) &+ ch(e, f, g) &+ 0xd807aa98 &+ w8
            d = d &+ h
            h = h &+ S0(a) &+ maj(a, b, c)
            g = g &+ S1(d) &+ ch(d, e, f) &+ 0x12835b01 &+ w9
            c = c &+ g
            g = g &+ S0(h) &+ maj(h, a, b)
            f = f &+ S1(c) &+ ch(c, d, e) &+ 0x243185be &+ w10
            b = b &+ f
            f = f &+ S0(g) &+ maj(g, h, a)
            e = e &+ S1(b) &+ ch(b, c, d) &+ 0x550c7dc3 &+ w11
            a = a &+ e
            e = e &+ S0(f) &+ maj(f, g, h)
            d = d &+ S1(a) &+ ch(a, b, c) &+ 0x72be5d74 &+ w12
            h = h &+ d
            d = d &+ S0(e) &+ maj(e, f, g)
            c = c &+ S1(h) &+ ch(h, a, b) &+ 0x80deb1fe &+ w13
            g = g &+ c
            c = c &+ S0(d) &+ maj(d, e, f)
            b = b &+ S1(g) &+ ch(g, h, a) &+ 0x9bdc06a7 &+ w14
            f = f &+ b
            b = b &+ S0(c) &+ maj(c, d, e)
            a = a &+ S1(f) &+ ch(f, g, h) &+ 0xc19bf174 &+ w15
            e = e &+ a
            a = a &+ S0(b) &+ maj(b, c, d)
            w0 = s1(w14) &+ w9 &+ s0(w1) &+ w0
            h = h &+ S1(e) &+ ch(e, f, g) &+ 0xe49b69c1 &+ w0
            d = d &+ h
            h = h &+ S0(a) &+ maj(a, b, c)
            w1 = s1(w15) &+ w10 &+ s0(w2) &+ w1
            g = g &+ S1(d) &+ ch(d, e, f) &+ 0xefbe4786 &+ w1
            c = c &+ g
            g = g &+ S0(h) &+ maj(h, a, b)
            w2 = s1(w0) &+ w11 &+ s0(w3) &+ w2
            f = f &+ S1(c) &+ ch(c, d, e) &+ 0x0fc19dc6 &+ w2
            b = b &+ f
            f = f &+ S0(g) &+ maj(g, h, a)
            w3 = s1(w1) &+ w12 &+ s0(w4) &+ w3
            e = e &+ S1(b) &+ ch(b, c, d) &+ 0x240ca1cc &+ w3
            a = a &+ e
            e = e &+ S0(f) &+ maj(f, g, h)
            w4 = s1(w2) &+ w13 &+ s0(w5) &+ w4
            d = d &+ S1(a) &+ ch(a, b, c) &+ 0x2de92c6f &+ w4
            h = h &+ d
            d = d &+ S0(e) &+ maj(e, f, g)
            w5 = s1(w3) &+ w14 &+ s0(w6) &+ w5
            c = c &+ S1(h) &+ ch(h, a, b) &+ 0x4a7484aa &+ w5
            g = g &+ c
            c = c &+ S0(d) &+ maj(d, e, f)
            w6 = s1(w4) &+ w15 &+ s0(w7) &+ w6
            b = b &+ S1(g) &+ ch(g, h, a) &+ 0x5cb0a9dc &+ w6
            f = f &+ b
            b = b &+ S0(c) &+ maj(c, d, e)
            w7 = s1(w5) &+ w0 &+ s0(w8) &+ w7
            a = a &+ S1(f) &+ ch(f, g, h) &+ 0x76f988da &+ w7
            e = e &+ a
            a = a &+ S0(b) &+ maj(b, c, d)
            w8 = s1(w6) &+ w1 &+ s0(w9) &+ w8
            h = h &+ S1(e) &+ ch(e, f, g) &+ 0x983e5152 &+ w8
            d = d &+ h
            h = h &+ S0(a) &+ maj(a, b, c)
            w9 = s1(w7) &+ w2 &+ s0(w10) &+ w9
            g = g &+ S1(d) &+ ch(d, e, f) &+ 0xa831c66d &+ w9
            c = c &+ g
            g = g &+ S0(h) &+ maj(h, a, b)
            w10 = s1(w8) &+ w3 &+ s0(w11) &+ w10
            f = f &+ S1(c) &+ ch(c, d, e) &+ 0xb00327c8 &+ w10
            b = b &+ f
            f = f &+ S0(g) &+ maj(g, h, a)
            w11 = s1(w9) &+ w4 &+ s0(w12) &+ w11
            e = e &+ S1(b) &+ ch(b, c, d) &+ 0xbf597fc7 &+ w11
            a = a &+ e
            e = e &+ S0(f) &+ maj(f, g, h)
            w12 = s1(w10) &+ w5 &+ s0(w13) &+ w12
            d = d &+ S1(a) &+ ch(a, b, c) &+ 0xc6e00bf3 &+ w12
            h = h &+ d
            d = d &+ S0(e) &+ maj(e, f, g)
            w13 = s1(w11) &+ w6 &+ s0(w14) &+ w13
            c = c &+ S1(h) &+ ch(h, a, b) &+ 0xd5a79147 &+ w13
            g = g &+ c
            c = c &+ S0(d) &+ maj(d, e, f)
            w14 = s1(w12) &+ w7 &+ s0(w15) &+ w14
            b = b &+ S1(g) &+ ch(g, h, a) &+ 0x06ca6351 &+ w14
            f = f &+ b
            b = b &+ S0(c) &+ maj(c, d, e)
            w15 = s1(w13) &+ w8 &+ s0(w0) &+ w15
            a = a &+ S1(f) &+ ch(f, g, h) &+ 0x14292967 &+ w15
            e = e &+ a
            a = a &+ S0(b) &+ maj(b, c, d)
            w0 = s1(w14) &+ w9 &+ s0(w1) &+ w0
            h = h &+ S1(e) &+ ch(e, f, g) &+ 0x27b70a85 &+ w0
            d = d &+ h
            h = h &+ S0(a) &+ maj(a, b, c)
            w1 = s1(w15) &+ w10 &+ s0(w2) &+ w1
            g = g &+ S1(d) &+ ch(d, e, f) &+ 0x2e1b2138 &+ w1
            c = c &+ g
            g = g &+ S0(h) &+ maj(h, a, b)
            w2 = s1(w0) &+ w11 &+ s0(w3) &+ w2
            f = f &+ S1(c) &+ ch(c, d, e) &+ 0x4d2c6dfc &+ w2
            b = b &+ f
            f = f &+ S0(g) &+ maj(g, h, a)
            w3 = s1(w1) &+ w12 &+ s0(w4) &+ w3
            e = e &+ S1(b) &+ ch(b, c, d) &+ 0x53380d13 &+ w3
            a = a &+ e
            e = e &+ S0(f) &+ maj(f, g, h)
            w4 = s1(w2) &+ w13 &+ s0(w5) &+ w4
            d = d &+ S1(a) &+ ch(a, b, c) &+ 0x650a7354 &+ w4
            h = h &+ d
            d = d &+ S0(e) &+ maj(e, f, g)
            w5 = s1(w3) &+ w14 &+ s0(w6) &+ w5
            c = c &+ S1(h) &+ ch(h, a, b) &+ 0x766a0abb &+ w5
            g = g &+ c
            c = c &+ S0(d) &+ maj(d, e, f)
            w6 = s1(w4) &+ w15 &+ s0(w7) &+ w6
            b = b &+ S1(g) &+ ch(g, h, a) &+ 0x81c2c92e &+ w6
            f = f &+ b
            b = b &+ S0(c) &+ maj(c, d, e)
            w7 = s1(w5) &+ w0 &+ s0(w8) &+ w7
            a = a &+ S1(f) &+ ch(f, g, h) &+ 0x92722c85 &+ w7
            e = e &+ a
            a = a &+ S0(b) &+ maj(b, c, d)
            w8 = s1(w6) &+ w1 &+ s0(w9) &+ w8
            h = h &+ S1(e) &+ ch(e, f, g) &+ 0xa2bfe8a1 &+ w8
            d = d &+ h
            h = h &+ S0(a) &+ maj(a, b, c)
            w9 = s1(w7) &+ w2 &+ s0(w10) &+ w9
            g = g &+ S1(d) &+ ch(d, e, f) &+ 0xa81a664b &+ w9
            c = c &+ g
            g = g &+ S0(h) &+ maj(h, a, b)
            w10 = s1(w8) &+ w3 &+ s0(w11) &+ w10
            f = f &+ S1(c) &+ ch(c, d, e) &+ 0xc24b8b70 &+ w10
            b = b &+ f
            f = f &+ S0(g) &+ maj(g, h, a)
            w11 = s1(w9) &+ w4 &+ s0(w12) &+ w11
            e = e &+ S1(b) &+ ch(b, c, d) &+ 0xc76c51a3 &+ w11
            a = a &+ e
            e = e &+ S0(f) &+ maj(f, g, h)
            w12 = s1(w10) &+ w5 &+ s0(w13) &+ w12
            d = d &+ S1(a) &+ ch(a, b, c) &+ 0xd192e819 &+ w12
            h = h &+ d
            d = d &+ S0(e) &+ maj(e, f, g)
            w13 = s1(w11) &+ w6 &+ s0(w14) &+ w13
            c = c &+ S1(h) &+ ch(h, a, b) &+ 0xd6990624 &+ w13
            g = g &+ c
            c = c &+ S0(d) &+ maj(d, e, f)
            w14 = s1(w12) &+ w7 &+ s0(w15) &+ w14
            b = b &+ S1(g) &+ ch(g, h, a) &+ 0xf40e3585 &+ w14
            f = f &+ b
            b = b &+ S0(c) &+ maj(c, d, e)
            w15 = s1(w13) &+ w8 &+ s0(w0) &+ w15
            a = a &+ S1(f) &+ ch(f, g, h) &+ 0x106aa070 &+ w15
            e = e &+ a
            a = a &+ S0(b) &+ maj(b, c, d)
            w0 = s1(w14) &+ w9 &+ s0(w1) &+ w0
            h = h &+ S1(e) &+ ch(e, f, g) &+ 0x19a4c116 &+ w0
            d = d &+ h
            h = h &+ S0(a) &+ maj(a, b, c)
            w1 = s1(w15) &+ w10 &+ s0(w2) &+ w1
            g = g &+ S1(d) &+ ch(d, e, f) &+ 0x1e376c08 &+ w1
            c = c &+ g
            g = g &+ S0(h) &+ maj(h, a, b)
            w2 = s1(w0) &+ w11 &+ s0(w3) &+ w2
            f = f &+ S1(c) &+ ch(c, d, e) &+ 0x2748774c &+ w2
            b = b &+ f
            f = f &+ S0(g) &+ maj(g, h, a)
            w3 = s1(w1) &+ w12 &+ s0(w4) &+ w3
            e = e &+ S1(b) &+ ch(b, c, d) &+ 0x34b0bcb5 &+ w3
            a = a &+ e
            e = e &+ S0(f) &+ maj(f, g, h)
            w4 = s1(w2) &+ w13 &+ s0(w5) &+ w4
            d = d &+ S1(a) &+ ch(a, b, c) &+ 0x391c0cb3 &+ w4
            h = h &+ d
            d = d &+ S0(e) &+ maj(e, f, g)
            w5 = s1(w3) &+ w14 &+ s0(w6) &+ w5
            c = c &+ S1(h) &+ ch(h, a, b) &+ 0x4ed8aa4a &+ w5
            g = g &+ c
            c = c &+ S0(d) &+ maj(d, e, f)
            w6 = s1(w4) &+ w15 &+ s0(w7) &+ w6
            b = b &+ S1(g) &+ ch(g, h, a) &+ 0x5b9cca4f &+ w6
            f = f &+ b
            b = b &+ S0(c) &+ maj(c, d, e)
            w7 = s1(w5) &+ w0 &+ s0(w8) &+ w7
            a = a &+ S1(f) &+ ch(f, g, h) &+ 0x682e6ff3 &+ w7
            e = e &+ a
            a = a &+ S0(b) &+ maj(b, c, d)
            w8 = s1(w6) &+ w1 &+ s0(w9) &+ w8
            h = h &+ S1(e) &+ ch(e, f, g) &+ 0x748f82ee &+ w8
            d = d &+ h
            h = h &+ S0(a) &+ maj(a, b, c)
            w9 = s1(w7) &+ w2 &+ s0(w10) &+ w9
            g = g &+ S1(d) &+ ch(d, e, f) &+ 0x78a5636f &+ w9
            c = c &+ g
            g = g &+ S0(h) &+ maj(h, a, b)
            w10 = s1(w8) &+ w3 &+ s0(w11) &+ w10
            f = f &+ S1(c) &+ ch(c, d, e) &+ 0x84c87814 &+ w10
            b = b &+ f
            f = f &+ S0(g) &+ maj(g, h, a)
            w11 = s1(w9) &+ w4 &+ s0(w12) &+ w11
            e = e &+ S1(b) &+ ch(b, c, d) &+ 0x8cc70208 &+ w11
            a = a &+ e
            e = e &+ S0(f) &+ maj(f, g, h)
            w12 = s1(w10) &+ w5 &+ s0(w13) &+ w12
            d = d &+ S1(a) &+ ch(a, b, c) &+ 0x90befffa &+ w12
            h = h &+ d
            d = d &+ S0(e) &+ maj(e, f, g)
            w13 = s1(w11) &+ w6 &+ s0(w14) &+ w13
            c = c &+ S1(h) &+ ch(h, a, b) &+ 0xa4506ceb &+ w13
            g = g &+ c
            c = c &+ S0(d) &+ maj(d, e, f)
            w14 = s1(w12) &+ w7 &+ s0(w15) &+ w14
            b = b &+ S1(g) &+ ch(g, h, a) &+ 0xbef9a3f7 &+ w14
            f = f &+ b
            b = b &+ S0(c) &+ maj(c, d, e)
            w15 = s1(w13) &+ w8 &+ s0(w0) &+ w15
            a = a &+ S1(f) &+ ch(f, g, h) &+ 0xc67178f2 &+ w15
            e = e &+ a
            a = a &+ S0(b) &+ maj(b, c, d)
            h0 = h0 &+ a; h1 = h1 &+ b; h2 = h2 &+ c; h3 = h3 &+ d
            h4 = h4 &+ e; h5 = h5 &+ f; h6 = h6 &+ g; h7 = h7 &+ h
            p += 64
        }
    }
}
