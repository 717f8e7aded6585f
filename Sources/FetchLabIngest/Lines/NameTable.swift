/// Interns names (users, apps) given as raw bytes, without building a `String` for names
/// already seen. Ids are dense, starting at 0, in first-seen order.
///
/// Memory: the names' bytes in one arena plus about 24-32 bytes a name (start offset, hash, and
/// an open-addressing slot array at most half full), no `String` per name. The reader keeps a
/// table only up to ``maxNames`` names or ``maxBytes`` bytes of names, then starts a new one
/// (``LogReader`` and ``RecordBatch/restartsNames``), so a file with millions of distinct names
/// is read in bounded memory.
public struct NameTable {
    /// Names a reader keeps before it starts its tables again.
    public static let maxNames = 1 << 19
    /// Bytes of names a reader keeps before it starts its tables again.
    public static let maxBytes = 16 << 20

    private var arena: [UInt8] = []
    private var starts: [Int] = [0]
    private var hashes: [UInt64] = []
    private var slots: [Int32]  // -1 = empty
    private var mask: Int

    public init() {
        slots = Array(repeating: -1, count: 64)
        mask = 63
    }

    /// How many names are known.
    public var count: Int { hashes.count }

    /// Bytes of the names (their text, not the table).
    public var byteCount: Int { arena.count }

    /// Forgets every name (ids start again at 0), keeping the memory for the next ones.
    public mutating func removeAll() {
        arena.removeAll(keepingCapacity: true)
        starts.removeAll(keepingCapacity: true)
        starts.append(0)
        hashes.removeAll(keepingCapacity: true)
        for i in slots.indices { slots[i] = -1 }
    }

    /// The name with id `id`.
    public func name(_ id: Int32) -> String {
        let range = starts[Int(id)]..<starts[Int(id) + 1]
        return String(decoding: arena[range], as: UTF8.self)
    }

    /// The id of `bytes`, adding the name if it is new.
    @inline(__always)
    public mutating func id(of bytes: UnsafeRawBufferPointer) -> Int32 {
        let (h, slot, existing) = find(bytes)
        return existing ?? insert(bytes, hash: h, slot: slot)
    }

    /// The id of a name, or nil when the name is new and not valid UTF-8 (names are stored as
    /// text: invalid bytes would be changed, so such rows are rejected instead).
    public mutating func validID(of bytes: UnsafeRawBufferPointer) -> Int32? {
        let (h, slot, existing) = find(bytes)
        if let existing { return existing }
        if !bytes.allSatisfy({ $0 < 0x80 }) && String(validating: bytes, as: UTF8.self) == nil { return nil }
        return insert(bytes, hash: h, slot: slot)
    }

    /// The name's hash, its slot (free when the name is new) and its id if it is known.
    @inline(__always)
    private func find(_ bytes: UnsafeRawBufferPointer) -> (hash: UInt64, slot: Int, id: Int32?) {
        let h = Self.hash(bytes)
        var slot = Int(truncatingIfNeeded: h) & mask
        while true {
            let existing = slots[slot]
            if existing < 0 { return (h, slot, nil) }
            if hashes[Int(existing)] == h, equals(Int(existing), bytes) { return (h, slot, existing) }
            slot = (slot + 1) & mask
        }
    }

    private mutating func insert(_ bytes: UnsafeRawBufferPointer, hash h: UInt64, slot: Int) -> Int32 {
        let id = Int32(hashes.count)
        hashes.append(h)
        arena.append(contentsOf: bytes)
        starts.append(arena.count)
        slots[slot] = id
        if hashes.count * 2 > slots.count { grow() }
        return id
    }

    /// The id of a name given as a string.
    public mutating func id(of name: String) -> Int32 {
        var name = name
        return name.withUTF8 { id(of: UnsafeRawBufferPointer($0)) }
    }

    private func equals(_ id: Int, _ bytes: UnsafeRawBufferPointer) -> Bool {
        let start = starts[id]
        let count = starts[id + 1] - start
        guard count == bytes.count else { return false }
        if count == 0 { return true }
        return arena.withUnsafeBytes { arena in
            guard let a = arena.baseAddress, let b = bytes.baseAddress else { return false }
            return memcmp(a + start, b, count) == 0
        }
    }

    private mutating func grow() {
        let size = slots.count * 2
        slots = Array(repeating: -1, count: size)
        mask = size - 1
        for (id, h) in hashes.enumerated() {
            var slot = Int(truncatingIfNeeded: h) & mask
            while slots[slot] >= 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(id)
        }
    }

    @inline(__always)
    static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes {
            h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01b3
        }
        return h ^ (h >> 29)
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
