import Testing

@testable import FetchLabCore

@Suite struct UserShardTests {
    /// FNV-1a's published 64-bit test vectors.
    @Test func theHashIsFNV1a() {
        #expect(UserShard.hash("") == 0xcbf2_9ce4_8422_2325)
        #expect(UserShard.hash("a") == 0xaf63_dc4c_8601_ec8c)
        #expect(UserShard.hash("foobar") == 0x8594_4171_f739_67e8)
    }

    /// The N shards of a population are disjoint and cover it, for several N.
    @Test(arguments: [1, 2, 3, 7, 16])
    func theShardsPartitionThePopulation(count: Int) {
        let names = (0..<500).map { "user\($0)" } + ["", "é", "名前"]
        var seen = [Int](repeating: 0, count: names.count)
        for i in 1...count {
            let shard = UserShard(index: i, of: count)!
            for (k, name) in names.enumerated() where shard.contains(name) { seen[k] += 1 }
        }
        #expect(seen.allSatisfy { $0 == 1 })
        // Not all in one shard (500 names over up to 16 shards).
        if count > 1 {
            let first = UserShard(index: 1, of: count)!
            let inFirst = names.filter(first.contains).count
            #expect(inFirst > 0 && inFirst < names.count)
        }
    }

    @Test func parsesIOverNAndRefusesTheRest() {
        #expect(UserShard("2/8") == UserShard(index: 2, of: 8))
        #expect(UserShard("1/1")?.description == "1/1")
        for bad in ["0/4", "5/4", "4", "a/b", "1/0", "-1/4", "1/2/3", "", "1/2000000"] {
            #expect(UserShard(bad) == nil, "\(bad)")
        }
    }
}
