import Foundation

/// Recognises, from the first bytes of a stream, the compressions and text encodings FetchLab
/// does not read, so that such a file fails with one line naming what was found and the command
/// that converts it, instead of a header error full of binary.
///
/// Checked on the raw bytes of a file and again on the first decompressed bytes of a gzip or
/// zlib stream (a gzip'd zstd file).
public enum Sniff {
    /// A compression or encoding FetchLab cannot read, and how to convert it.
    public struct Foreign: Sendable, Hashable, CustomStringConvertible {
        /// What was found: `zstd-compressed`, `UTF-16 (little-endian) text`.
        public var what: String
        /// The command that turns the file into something FetchLab reads.
        public var fix: String

        public var description: String { "\(what) data: \(fix)" }

        /// The one-line message for `source` (the file's name in the command, when it has one),
        /// `inside` the compression it was found in (`gzip`), if any.
        public func message(source: String, inside: String? = nil) -> String {
            let named = source == "-" ? fix : fix.replacingOccurrences(of: "FILE", with: source)
            guard let inside else { return "\(what) data: \(named)" }
            return
                "\(what) data inside \(inside): \(named.replacingOccurrences(of: "first (", with: "first (gunzip, then "))"
        }
    }

    /// The foreign compression or encoding `bytes` start with, nil when they may be plain text
    /// (or gzip/zlib, which the reader handles).
    public static func foreign(_ bytes: UnsafeRawBufferPointer) -> Foreign? {
        func starts(_ magic: [UInt8]) -> Bool {
            bytes.count >= magic.count && zip(bytes, magic).allSatisfy { $0 == $1 }
        }
        func compressed(_ name: String, _ command: String) -> Foreign {
            Foreign(
                what: "\(name)-compressed",
                fix: "FetchLab reads gzip, zlib or plain text; decompress it first (\(command))")
        }
        if starts([0x28, 0xB5, 0x2F, 0xFD]) { return compressed("zstd", "zstd -d FILE") }
        if starts([0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00]) { return compressed("xz", "xz -d FILE") }
        if starts([0x5D, 0x00, 0x00]) && bytes.count >= 13 { return compressed("lzma", "xz -d --format=lzma FILE") }
        if isBzip2(bytes) { return compressed("bzip2", "bunzip2 FILE") }
        if starts([0x50, 0x4B, 0x03, 0x04]) || starts([0x50, 0x4B, 0x05, 0x06]) {
            return Foreign(what: "zip archive", fix: "extract the log first (unzip -p FILE > FILE.csv)")
        }
        if starts([0x37, 0x7A, 0xBC, 0xAF, 0x27, 0x1C]) {
            return Foreign(what: "7z archive", fix: "extract the log first (7z x FILE)")
        }
        if starts([0x04, 0x22, 0x4D, 0x18]) { return compressed("lz4", "lz4 -d FILE") }
        if starts([0x1F, 0x9D]) { return compressed("Unix compress (.Z)", "uncompress FILE") }
        if starts([0xFF, 0xFE, 0x00, 0x00]) { return text("UTF-32 (little-endian)", "UTF-32LE") }
        if starts([0x00, 0x00, 0xFE, 0xFF]) { return text("UTF-32 (big-endian)", "UTF-32BE") }
        if starts([0xFF, 0xFE]) { return text("UTF-16 (little-endian)", "UTF-16") }
        if starts([0xFE, 0xFF]) { return text("UTF-16 (big-endian)", "UTF-16") }
        return utf16WithoutMark(bytes)
    }

    /// Text in `encoding` (`UTF-16 (little-endian)`), converted with `iconv -f from`.
    private static func text(_ encoding: String, _ from: String) -> Foreign {
        Foreign(
            what: "\(encoding) text",
            fix: "FetchLab reads UTF-8; convert it first (iconv -f \(from) -t UTF-8 FILE > FILE.utf8)")
    }

    /// `BZh` and a block size digit, then a block (π's digits) or the end-of-stream mark (√π's).
    private static func isBzip2(_ b: UnsafeRawBufferPointer) -> Bool {
        guard b.count >= 10, b[0] == 0x42, b[1] == 0x5A, b[2] == 0x68, (0x31...0x39).contains(b[3]) else {
            return false
        }
        let block: [UInt8] = [0x31, 0x41, 0x59, 0x26, 0x53, 0x59]
        let end: [UInt8] = [0x17, 0x72, 0x45, 0x38, 0x50, 0x90]
        let mark = Array(b[4..<10])
        return mark == block || mark == end
    }

    /// UTF-16 or UTF-32 text without a byte-order mark: ASCII characters with NUL bytes beside
    /// each of them, in the first (up to) 16 characters. A NUL here and there in UTF-8 text (a
    /// name with a NUL) is not this pattern.
    private static func utf16WithoutMark(_ b: UnsafeRawBufferPointer) -> Foreign? {
        let n = min(b.count, 64)
        func isText(_ x: UInt8) -> Bool { x == 0x09 || x == 0x0A || x == 0x0D || (0x20...0x7E).contains(x) }
        if n >= 16 {
            let units = (n / 4) * 4
            var le32 = units >= 16
            var be32 = units >= 16
            var i = 0
            while i + 3 < units {
                if !(isText(b[i]) && b[i + 1] == 0 && b[i + 2] == 0 && b[i + 3] == 0) { le32 = false }
                if !(b[i] == 0 && b[i + 1] == 0 && b[i + 2] == 0 && isText(b[i + 3])) { be32 = false }
                i += 4
            }
            if le32 {
                return text("UTF-32 (little-endian)", "UTF-32LE")
            }
            if be32 {
                return text("UTF-32 (big-endian)", "UTF-32BE")
            }
        }
        let pairs = n / 2
        guard pairs >= 4 else { return nil }
        var le = true
        var be = true
        for p in 0..<pairs {
            let (x, y) = (b[2 * p], b[2 * p + 1])
            if !(isText(x) && y == 0) { le = false }
            if !(x == 0 && isText(y)) { be = false }
        }
        if le {
            return text("UTF-16 (little-endian)", "UTF-16LE")
        }
        if be {
            return text("UTF-16 (big-endian)", "UTF-16BE")
        }
        return nil
    }
}
