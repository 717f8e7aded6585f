/// Shard I of N of a population: the users whose stable hash of their name is I − 1 modulo N.
///
/// The hash is FNV-1a (64 bits) of the name's UTF-8 bytes: it depends on the name alone, not on a
/// database's row ids or the order users were imported in, so the same user falls in the same
/// shard whichever machine or database holds them, and the N shards of any population are
/// disjoint and cover it.
public struct UserShard: Sendable, Hashable, CustomStringConvertible {
    /// Which shard, from 1 to ``count``.
    public let index: Int
    /// How many shards.
    public let count: Int

    /// Shard `index` (1…`count`) of `count`; nil when out of range.
    public init?(index: Int, of count: Int) {
        guard count >= 1, (1...count).contains(index) else { return nil }
        self.index = index
        self.count = count
    }

    /// `I/N`, e.g. `2/8`; nil when it is not two whole numbers with 1 ≤ I ≤ N ≤ 1,000,000.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]), n <= 1_000_000
        else { return nil }
        self.init(index: i, of: n)
    }

    public var description: String { "\(index)/\(count)" }

    /// FNV-1a, 64 bits, of `name`'s UTF-8 bytes.
    public static func hash(_ name: String) -> UInt64 { hash(bytes: name.utf8) }

    /// FNV-1a, 64 bits, of `bytes`.
    public static func hash<Bytes: Sequence>(bytes: Bytes) -> UInt64 where Bytes.Element == UInt8 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            h ^= UInt64(byte)
            h &*= 0x0000_0100_0000_01b3
        }
        return h
    }

    /// Whether the user named `name` is in this shard.
    public func contains(_ name: String) -> Bool {
        Self.hash(name) % UInt64(count) == UInt64(index - 1)
    }
}
