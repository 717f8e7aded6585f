import FetchLabCore
import Foundation
import GRDB
import Testing
import _FetchLabTestSupport

@testable import FetchLabIngest
@testable import FetchLabStore

/// Files with many distinct user and app names: the reader keeps at most a bounded number of
/// names and starts its ids again (``RecordBatch/restartsNames``); every stored row must still
/// name the right user and app, whatever bytes the names are made of.
@Suite struct ManyNamesTests {
    /// A name of the pool: plain, non-ASCII, with quotes and commas (quoted in the CSV), emoji.
    static func name(_ kind: String, _ i: Int) -> String {
        switch i % 5 {
        case 0: "\(kind)\(i)"
        case 1: "ünïcødé-\(kind)-\(i)"
        case 2: "\(kind) \"quoted\", with comma \(i)"
        case 3: "\(kind)-😀-\(i)-日本"
        default: "\(kind).x\(String(repeating: "z", count: i % 40))\(i)"
        }
    }

    static func csvField(_ s: String) -> String {
        s.contains(",") || s.contains("\"") ? "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : s
    }

    struct Expected {
        var text = "timestamp,user,app,event\n"
        /// "user|app|time_us" of every row that must be stored.
        var rows: [String] = []
        var users = Set<String>()
        var apps = Set<String>()
    }

    /// `count` rows drawing users and apps at random from pools larger than the reader keeps,
    /// one row in 50 rejected after its user was read (an unknown event), some apps excluded.
    static func file(seed: UInt64, count: Int, users: Int, apps: Int) -> Expected {
        var rng = SplitMix64(seed: seed)
        var e = Expected()
        let t0 = LocalCalendar.midnight(of: CivilDate(year: 2024, month: 3, day: 1).daysSince1970, offset: 0)
        for i in 0..<count {
            let user = name("user", Int(rng.next() % UInt64(users)))
            let app = rng.next() % 17 == 0 ? "com.ads.tracker\(i % 7)" : name("app", Int(rng.next() % UInt64(apps)))
            let t = t0 + .seconds(Int64(i))
            let rejected = rng.next() % 50 == 0
            e.text += "\(t.wholeSeconds),\(csvField(user)),\(csvField(app)),\(rejected ? "bogus" : "launch")\n"
            if rejected || app.hasPrefix("com.ads.") { continue }
            e.rows.append("\(user)|\(app)|\(t.sinceEpoch)")
            e.users.insert(user)
            e.apps.insert(app)
        }
        return e
    }

    /// Imports `path` the way ``Importer`` does, with a reader that keeps at most `maxNames` names;
    /// returns how many batches restarted the names.
    static func importFile(
        _ path: String, into db: FetchLabDatabase, options: ReadOptions, maxNames: Int
    ) throws -> Int {
        let reader = try LogReader(path: path, options: options)
        reader.maxNamesKept = maxNames
        var restarts = 0
        try db.writer.writeWithoutTransaction { db in
            try db.inTransaction(.immediate) {
                var writer = try BatchWriter(db: db, reader: reader, path: path, options: options, sortRunRows: 500)
                while let batch = try reader.nextBatch() {
                    if batch.restartsNames { restarts += 1 }
                    try writer.write(batch)
                }
                _ = try writer.finish(contentSHA256: reader.contentSHA256, seconds: { 0 }, progress: { _, _ in })
                return .commit
            }
        }
        return restarts
    }

    static func stored(_ f: Fixture) throws -> [String] {
        try f.rows("SELECT user, app, time_us FROM usage_events").map {
            "\($0["user"] as String)|\($0["app"] as String)|\($0["time_us"] as Int64)"
        }.sorted()
    }

    @Test(arguments: [(UInt64(1), 40), (2, 7), (3, 1_000_000)])
    func everyStoredRowNamesItsUserAndAppAcrossRestarts(seed: UInt64, maxNames: Int) throws {
        let f = try Fixture()
        let e = Self.file(seed: seed, count: 6_000, users: 400, apps: 250)
        let path = try f.dir.write("many.csv", e.text)
        var options = ReadOptions()
        options.batchSize = 64
        options.excludedApps = ["com.ads.*"]
        let restarts = try Self.importFile(path, into: f.db, options: options, maxNames: maxNames)
        if maxNames < 400 { #expect(restarts > 10) } else { #expect(restarts == 0) }
        #expect(try Self.stored(f) == e.rows.sorted())
        #expect(try f.count("user") == e.users.count)
        #expect(try f.count("app") == e.apps.count)
    }

    /// A second file over the same names (after restarts) finds the stored ids instead of adding rows.
    @Test func aSecondFileReusesTheStoredNames() throws {
        let f = try Fixture()
        let first = Self.file(seed: 4, count: 2_000, users: 300, apps: 100)
        let second = Self.file(seed: 5, count: 2_000, users: 300, apps: 100)
        var options = ReadOptions()
        options.batchSize = 50
        options.excludedApps = ["com.ads.*"]
        _ = try Self.importFile(try f.dir.write("a.csv", first.text), into: f.db, options: options, maxNames: 20)
        // Same times in both files: shift the second one by a day so that no row is a duplicate.
        let shifted = second.text.split(separator: "\n").enumerated().map { k, line -> String in
            guard k > 0, let comma = line.firstIndex(of: ","), let s = Int64(line[..<comma]) else {
                return String(line)
            }
            return "\(s + Seconds.perDay)\(line[comma...])"
        }.joined(separator: "\n")
        _ = try Self.importFile(try f.dir.write("b.csv", shifted), into: f.db, options: options, maxNames: 20)
        let expected =
            first.rows
            + second.rows.map { row -> String in
                let parts = row.split(separator: "|", omittingEmptySubsequences: false)
                return "\(parts[0])|\(parts[1])|\(Int64(parts[2])! + Microseconds.days(1).value)"
            }
        #expect(try Self.stored(f) == expected.sorted())
        #expect(try f.count("user") == first.users.union(second.users).count)
        #expect(try f.count("app") == first.apps.union(second.apps).count)
    }

    /// The reader's side: after a restart, ids start at 0 and the batch announces its names again.
    @Test func batchesAnnounceEveryNameTheirRowsUse() throws {
        let e = Self.file(seed: 6, count: 3_000, users: 500, apps: 300)
        let dir = TemporaryDirectory()
        var options = ReadOptions()
        options.batchSize = 100
        let reader = try LogReader(path: try dir.write("r.csv", e.text), options: options)
        reader.maxNamesKept = 30
        var users: [String] = []
        var apps: [String] = []
        var rows: [String] = []
        var restarts = 0
        while let batch = try reader.nextBatch() {
            if batch.restartsNames {
                restarts += 1
                users = []
                apps = []
            }
            #expect(Int(batch.firstNewUser) == users.count)
            #expect(Int(batch.firstNewApp) == apps.count)
            users += batch.newUsers
            apps += batch.newApps
            #expect(users.count <= 30 + 2 * options.batchSize)
            for u in batch.usage where !apps[Int(u.app)].hasPrefix("com.ads.") {
                rows.append("\(users[Int(u.user)])|\(apps[Int(u.app)])|\(u.time.sinceEpoch)")
            }
        }
        #expect(restarts > 10)
        #expect(rows == e.rows)
    }

    /// A file through the real importer with its default limits and more names than fit one batch.
    @Test func theImporterStoresManyDistinctNames() throws {
        let f = try Fixture()
        var text = "timestamp,user,app,event\n"
        var expected: [String] = []
        for i in 0..<20_000 {
            let (user, app) = (Self.name("u", i), Self.name("a", 19_999 - i))
            text += "\(1_709_294_400 + i),\(Self.csvField(user)),\(Self.csvField(app)),launch\n"
            expected.append("\(user)|\(app)|\(Int64(1_709_294_400 + i) * Microseconds.perSecond)")
        }
        var options = ReadOptions()
        options.batchSize = 1_000
        let summary = try f.importer.importFile(try f.dir.write("distinct.csv", text), options: options)
        #expect(summary.inserted.usageEvents == 20_000)
        #expect(try Self.stored(f) == expected.sorted())
        #expect(try f.count("user") == 20_000)
        #expect(try f.count("app") == 20_000)
    }
}
