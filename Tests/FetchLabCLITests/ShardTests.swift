import FetchLabCore
import Foundation
import Testing
import _FetchLabTestSupport

/// `compare --shard I/N` run as a user would: the shards of a generated population are disjoint,
/// cover it, and hold the users the stable hash of their names puts there.
@Suite struct ShardTests {
    let dir = TemporaryDirectory()
    var db: String { dir.path("fleet.sqlite") }

    func population() throws { try dir.importGenerated(users: 9, days: 14, seed: 5, into: db) }

    /// The users each shard replays (from `--per-user`), and their scored launches.
    func shard(_ text: String?) throws -> (users: [String], scored: Int) {
        let result = try dir.fetchlab(
            [
                "compare", "--db", db, "--format", "json", "--no-store", "--per-user", "--warm-up", "3", "--policies",
                "fixed(1h)",
            ]
                + (text.map { ["--shard", $0] } ?? []))
        #expect(result.status == 0, "\(result.err)")
        let object = try result.json()
        let policy = try #require((object["policies"] as? [[String: Any]])?.first)
        let users = try #require(policy["per_user"] as? [[String: Any]]).compactMap { $0["name"] as? String }
        let settings = try #require(object["settings"] as? [String: Any])
        #expect(settings["users"] as? Int == users.count)
        return (users, try #require(settings["scored_launches"] as? Int))
    }

    @Test func theShardsOfAPopulationAreDisjointAndCoverIt() throws {
        try population()
        let whole = try shard(nil)
        #expect(whole.users.count == 9)
        for n in [2, 3] {
            var users: [String] = []
            var scored = 0
            for i in 1...n {
                let part = try shard("\(i)/\(n)")
                #expect(part.users.allSatisfy { UserShard(index: i, of: n)!.contains($0) }, "\(part.users)")
                users += part.users
                scored += part.scored
            }
            #expect(users.sorted() == whole.users.sorted())
            #expect(scored == whole.scored)
        }
    }

    @Test func aBadShardIsOneLine() throws {
        try population()
        for bad in ["0/3", "4/3", "three", "1/0"] {
            let result = try dir.fetchlab(["compare", "--db", db, "--shard", bad])
            #expect(result.status == 64, "\(bad): \(result.err)")
            #expect(result.err.contains("--shard \(bad)"), "\(result.err)")
        }
        // Shard 1 of many more shards than users holds none of them: said in one line.
        var empty: String?
        for i in 1...1_000 where empty == nil {
            let result = try dir.fetchlab(["compare", "--db", db, "--no-store", "--shard", "\(i)/1000"])
            if result.status != 0 { empty = result.err }
        }
        let err = try #require(empty)
        #expect(err.contains("holds none of the 9 users"), "\(err)")
        #expect(err.split(separator: "\n").count == 1, "\(err)")
    }
}
