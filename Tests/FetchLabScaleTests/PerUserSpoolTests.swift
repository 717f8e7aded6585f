import FetchLabCore
import FetchLabResults
import Foundation
import Testing

@testable import FetchLabScale

/// `--per-user` rows on disk (`PerUserSpool`) read back exactly as the rows held in memory
/// (`MemoryPerUserRows`) give them, in the order added, and splice into the report's JSON the
/// same; a spool that cannot be made says where, in one line.
@Suite struct PerUserSpoolTests {
    /// Seeded metrics for `users` users and `policies` policies; enough users that the spool's
    /// buffer is written out several times along the way.
    static func metrics(users: Int, policies: Int) -> [(String, [PolicyMetrics])] {
        var rng = SplitMix64(seed: 48)
        return (0..<users).map { u in
            let row = (0..<policies).map { _ in
                let scored = Int(rng.next() % 500)
                let fresh = Double(rng.next() % 1_000) / 1_000
                return PolicyMetrics(
                    scoredLaunches: scored, fresh: [fresh, fresh / 2], fetchesPerAppDay: Double(u % 7))
            }
            return ("user-\(u)", row)
        }
    }

    static func encoded(_ rows: any PerUserRows, policy: Int) throws -> [[UInt8]] {
        var out: [[UInt8]] = []
        try rows.forEachEncoded(policy: policy) { out.append($0) }
        return out
    }

    @Test func rowsOnDiskReadBackAsTheRowsInMemory() throws {
        let dir = FileManager.default.temporaryDirectory.path
        let policies = 3
        let spool = try PerUserSpool(policies: policies, directory: dir)
        let memory = MemoryPerUserRows(policies: policies)
        let users = Self.metrics(users: 400, policies: policies)
        for (name, row) in users {
            spool.add(user: name, metrics: row)
            memory.add(user: name, metrics: row)
        }
        try spool.finish()
        try memory.finish()
        #expect(spool.users == 400 && memory.users == 400)
        var bytes = 0
        for p in 0..<policies {
            let onDisk = try Self.encoded(spool, policy: p)
            #expect(onDisk == (try Self.encoded(memory, policy: p)))
            #expect(onDisk.count == 400)
            bytes += onDisk.reduce(0) { $0 + $1.count }
            var names: [String] = []
            try spool.forEach(policy: p) { names.append($0.name) }
            #expect(names == users.map(\.0))
        }
        #expect(bytes > 2 * PerUserSpool.bufferSize)  // written out along the way, not only at the end
    }

    @Test func theSplicedJSONIsTheJSONWithTheRowsHeld() throws {
        let users = Self.metrics(users: 30, policies: 2)
        let spool = try PerUserSpool(policies: 2)
        for (name, row) in users { spool.add(user: name, metrics: row) }
        try spool.finish()
        let settings = ComparisonSettings(
            tau: .minutes(15), taus: [.minutes(15), .minutes(60)], launchRefreshes: true, warmUpDays: 7,
            minLaunches: 20,
            platform: .none, users: 30, pairs: 30, scoredLaunches: 100)
        let overall = PolicyMetrics(scoredLaunches: 100, fresh: [0.5, 0.25], fetchesPerAppDay: 1)
        let held = ComparisonReport(
            settings: settings,
            policies: (0..<2).map { p in
                PolicyResult(
                    name: p == 0 ? "never" : "fixed(1h)", family: p == 0 ? "never" : "fixed", params: [:],
                    metrics: overall, perUser: users.map { GroupResult(name: $0.0, metrics: $0.1[p]) })
            })
        var spooled = held
        for p in spooled.policies.indices {
            spooled.policies[p].perUser = nil
            spooled.policies[p].spooledPerUser = p
        }
        let encoder = OutputJSON.encoder()
        let expected = String(decoding: try encoder.encode(held), as: UTF8.self)
        var written = ""
        try spool.writeJSON(String(decoding: try encoder.encode(spooled), as: UTF8.self)) { written += $0 }
        // A row with an empty array (no fresh intervals) splices as the encoder writes it.
        let row = try encoder.encode(GroupResult(name: users[0].0, metrics: users[0].1[0]))
        #expect(String(decoding: row, as: UTF8.self).contains("[\n\n"))
        #expect(written == expected)
    }

    @Test func aSpoolThatCannotBeMadeSaysWhereInOneLine() {
        #expect {
            _ = try PerUserSpool(policies: 2, directory: "/nonexistent-fetchlab-dir")
        } throws: { error in
            let message = "\(error)"
            return error is SpoolError && message.contains("/nonexistent-fetchlab-dir") && !message.contains("\n")
        }
    }
}
