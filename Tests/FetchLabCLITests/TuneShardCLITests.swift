import Foundation
import Testing
import _FetchLabTestSupport

/// `tune --shard I/N --partial FILE` and `tune --search-from` run as a user would: the search
/// spread over shards, then finished in one process, gives the tune one process makes, byte for
/// byte; partials that are not one search's shards are refused in one line.
@Suite struct TuneShardCLITests {
    let dir = TemporaryDirectory()
    var db: String { dir.path("fleet.sqlite") }

    func population() throws { try dir.importGenerated(users: 14, days: 21, seed: 3, into: db) }

    let tune = ["tune", "--family", "predictive", "--grid", "lead=5m,15m;threshold=0.2,0.4", "--folds", "2"]

    /// Shards 1 to `n`'s partials, each made by its own process (`--force`: made again over the
    /// files of an earlier call).
    func shards(_ n: Int) throws -> [String] {
        try (1...n).map { i in
            let path = dir.path("search-\(i)-of-\(n).gz")
            let made = try dir.fetchlab(
                tune + ["--db", db, "--shard", "\(i)/\(n)", "--partial", path, "--format", "json", "--force"])
            #expect(made.status == 0, "\(made.err)")
            let line = try made.json()
            #expect(line["shard"] as? String == "\(i)/\(n)" && line["settings"] as? Int == 4)
            #expect((line["users"] as? [Int])?.count == 2)
            return path
        }
    }

    @Test func aSearchSpreadOverShardsGivesTheTuneOneProcessMakes() throws {
        try population()
        let whole = try dir.fetchlab(tune + ["--db", db, "--format", "json", "--no-store"])
        #expect(whole.status == 0, "\(whole.err)")
        #expect(whole.out.contains("\"chosen\""))
        for n in [1, 2, 3] {
            let merged = try dir.fetchlab(
                tune + ["--db", db, "--format", "json", "--no-store", "--search-from"] + shards(n))
            #expect(merged.status == 0, "\(merged.err)")
            #expect(merged.out == whole.out, "\(n) shards")
        }
        // Stored like any tune.
        let stored = try dir.fetchlab(tune + ["--db", db, "--search-from"] + shards(2))
        #expect(stored.status == 0, "\(stored.err)")
        let runs = try dir.fetchlab(["runs", "--db", db])
        #expect(runs.out.contains("tune"), "\(runs.out)")
    }

    @Test func partialsThatAreNotOneSearchsShardsAreRefusedInOneLine() throws {
        try population()
        let three = try shards(3)
        func refusal(_ extra: [String], _ expected: String) throws {
            try dir.expectUsageError(tune + ["--db", db] + extra, [expected])
        }
        try refusal(["--search-from", three[0], three[2]], "shard 2/3 missing")
        try refusal(["--search-from"] + three + [three[0]], "shard 1/3 is given twice")
        try refusal(["--search-from"] + three + ["--grid", "lead=5m;threshold=0.2"], "not a shard of this search")
        try refusal(["--search-from"] + three + ["--users", "5"], "another population")
        let cut = Data(try Data(contentsOf: URL(fileURLWithPath: three[1])).prefix(200))
        let cutPath = try dir.write("cut.gz", cut)
        try refusal(["--search-from", three[0], cutPath, three[2]], cutPath)
        try refusal(["--search-from"] + three + ["--search", "coordinate"], "cannot be sharded")
        try refusal(["--shard", "1/2"], "--shard 1/2 needs --partial FILE")
        try refusal(["--shard", "3/2", "--partial", dir.path("x.gz")], "--shard 3/2: give I/N with 1 ≤ I ≤ N ≤ 1,000,000")
        // A partial is never written over the database, by tune or compare.
        try refusal(["--shard", "1/2", "--partial", db], "--partial \(db): is the database")
        try dir.expectUsageError(["compare", "--db", db, "--partial", db], ["--partial \(db): is the database"])
    }
}
