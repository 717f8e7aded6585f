import Foundation
import GRDB
import Testing
import _FetchLabTestSupport

/// Runs the built `fetchlab` binary as a user would.
@Suite struct EndToEndTests {
    let dir = TemporaryDirectory()
    var db: String { dir.path("e2e.sqlite") }

    func usageText(users: Int, events: Int, seed: Int = 1, userPrefix: String = "user") -> String {
        var text = "timestamp,user,app,event\n"
        var draws = SeededDraws(seed: UInt64(seed))
        for i in 0..<events {
            let x = draws.next()
            text += "\(1_709_294_400 + i * 7),\(userPrefix)\(Int(x >> 33) % users),com.app\(Int(x >> 40) % 9),launch\n"
        }
        return text
    }

    /// A phone export with the date and the time in two columns, day-first dates, a 12-hour clock
    /// and durations: the hint names the options, then the options import it.
    @Test func splitDayFirstExportsImportWithMapsAndADateFormat() throws {
        let file = try dir.write(
            "export.csv",
            "Date,Time,Person,App,Seconds\n13/04/2024,9:05 PM,ann,com.mail,90\n14/04/2024,7:30 AM,ann,com.news,12\n")
        let bare = try dir.fetchlab(["import", "--db", db, file])
        #expect(bare.status == 1)
        #expect(bare.err.contains("--map Date=date --map Time=time"), "\(bare.err)")
        #expect(bare.err.split(separator: "\n").count == 1, "\(bare.err)")
        let maps = ["--map", "Date=date", "--map", "Time=time", "--map", "Person=user", "--map", "Seconds=duration"]
        let noLayout = try dir.fetchlab(["import", "--db", db] + maps + [file])
        #expect(noLayout.status == 1)
        #expect(noLayout.err.contains("--date-format \"%d/%m/%Y %I:%M %p\""), "\(noLayout.err)")
        let badLayout = try dir.fetchlab(["import", "--db", db, "--date-format", "%d/%m/%Y %Q"] + maps + [file])
        #expect(badLayout.status == 64)
        #expect(badLayout.err.contains("unknown directive %Q"), "\(badLayout.err)")
        let good = try dir.fetchlab(
            ["import", "--db", db, "--date-format", "%d/%m/%Y %I:%M %p", "--timezone", "Europe/Berlin"] + maps + [file])
        #expect(good.status == 0, "\(good.err)")
        #expect(good.out.contains("2 rows → 4 new events, 0 duplicate, 0 rejected, 0 excluded"), "\(good.out)")
        #expect(!good.out.contains("unaccounted"))
        let rows = try GRDB.DatabaseQueue(path: db).read {
            try Row.fetchAll($0, sql: "SELECT app, event, time_utc FROM usage_events ORDER BY time_us")
        }
        #expect(
            rows.map { $0["time_utc"] as String } == [
                "2024-04-13T19:05:00.000Z", "2024-04-13T19:06:30.000Z", "2024-04-14T05:30:00.000Z",
                "2024-04-14T05:30:12.000Z",
            ])
        #expect(rows.map { $0["event"] as String } == ["launch", "close", "launch", "close"])
    }

    @Test func importThenInspect() throws {
        let file = try dir.writeGzip("usage.csv.gz", usageText(users: 3, events: 500))
        let imported = try dir.fetchlab(["import", "--db", db, file])
        #expect(imported.status == 0, "\(imported.err)")
        #expect(imported.out.contains("usage.csv.gz (usage/csv, gzip"))
        #expect(imported.out.contains("500 rows → 500 new events, 0 duplicate, 0 rejected, 0 excluded"))
        #expect(imported.err.isEmpty)  // no progress bar when stderr is not a terminal
        // Several files: a total, in the singular when it is one; the good file still imports.
        let other = try dir.writeGzip("more.csv.gz", usageText(users: 3, events: 20, seed: 9))
        let mixed = try dir.fetchlab(["import", "--db", db, "missing.csv", other])
        #expect(mixed.status == 1)
        #expect(mixed.out.contains("total: 1 file imported, 1 failed"), "\(mixed.out)")

        let inspect = try dir.fetchlab(["inspect", "--db", db])
        #expect(inspect.status == 0)
        let lines = inspect.out.split(separator: "\n")
        #expect(lines.first?.hasPrefix("user") == true)
        #expect(lines.filter { $0.hasPrefix("user0") }.count == 9)

        let json = try dir.fetchlab(["inspect", "--db", db, "--user", "user1", "--format", "json"])
        let decoded = try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any]
        let rows = try #require(decoded?["launches"] as? [[String: Any]])
        #expect((decoded?["context"] as? [Any])?.isEmpty == true)
        #expect(rows.count == 9)
        #expect(rows.allSatisfy { $0["user"] as? String == "user1" && ($0["hourly"] as? [Int])?.count == 24 })
        let total = try GRDB.DatabaseQueue(path: db).read {
            try Int.fetchOne(
                $0, sql: "SELECT count(*) FROM usage_event WHERE user_id = (SELECT id FROM user WHERE name = 'user1')")
        }
        #expect(rows.reduce(0) { $0 + ($1["launches"] as? Int ?? 0) } == total)
    }

    @Test func jsonSummaryAndReimportIsANoOp() throws {
        let file = try dir.write("usage.csv", usageText(users: 2, events: 50))
        let first = try dir.fetchlab(["import", "--db", db, "--format", "json", file])
        #expect(first.status == 0)
        let object = try first.json()
        let files = try #require(object["files"] as? [[String: Any]])
        #expect(files.first?["status"] as? String == "imported")
        #expect((files.first?["counts"] as? [String: Any])?["rows"] as? Int == 50)

        let again = try dir.fetchlab(["import", "--db", db, file])
        #expect(again.status == 0)
        #expect(again.out.contains("unchanged — the same content was imported before"))
    }

    @Test func standardInputIsRecognisedAfterReading() throws {
        let text = usageText(users: 2, events: 40)
        let gz = try gzip(Data(text.utf8))
        let first = try dir.fetchlab(["import", "--db", db, "-"], input: gz)
        #expect(first.status == 0, "\(first.err)")
        #expect(first.out.contains("40 new events"))
        let second = try dir.fetchlab(["import", "--db", db, "-"], input: gz)
        #expect(second.out.contains("unchanged"))
    }

    @Test func directoriesAndGlobsExpand() throws {
        let sub = dir.url.appendingPathComponent("logs")
        try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
        try Data(usageText(users: 2, events: 10, seed: 1).utf8).write(to: sub.appendingPathComponent("a.csv"))
        try gzip(Data(usageText(users: 2, events: 10, seed: 2).utf8)).write(to: sub.appendingPathComponent("b.csv.gz"))
        // Files that are not logs (ground truth, notes) are skipped when a directory is expanded.
        try Data("{\"users\": []}".utf8).write(to: sub.appendingPathComponent("habits.json"))
        try Data("notes".utf8).write(to: sub.appendingPathComponent("README.md"))
        let result = try dir.fetchlab(["import", "--db", db, sub.path])
        #expect(result.status == 0)
        #expect(result.out.contains("total: 2 files imported, 0 failed"))
        #expect(!result.out.contains("habits.json") && !result.err.contains("habits.json"))
        let globbed = try dir.fetchlab(["import", "--db", dir.path("g.sqlite"), sub.path + "/*.gz"])
        #expect(globbed.status == 0)
        #expect(globbed.out.contains("b.csv.gz"))
        #expect(!globbed.out.contains("a.csv "))
    }

    @Test func unknownTimeZonesAndDirectoriesAreRefused() throws {
        let file = try dir.write("local.csv", "timestamp,user,app\n2024-03-01 12:00:00,u,a\n")
        let zone = try dir.fetchlab(["import", "--db", db, "--timezone", "Mars/Olympus_Mons", file])
        #expect(zone.status == 64)
        #expect(
            zone.err.contains("'Mars/Olympus_Mons' is invalid for '--timezone <timezone>'; expected: IANA time zone"))
        #expect(!FileManager.default.fileExists(atPath: db))
        let asDB = try dir.fetchlab(["import", "--db", dir.url.path, file])
        #expect(asDB.status != 0)
        #expect(asDB.err.contains("is a directory"))
    }

    @Test func badInputsGiveOneLineErrorsAndNonZeroExit() throws {
        let missing = try dir.fetchlab(["import", "--db", db, "nope.csv.gz"])
        #expect(missing.status == 1)
        #expect(missing.err.hasPrefix("fetchlab: error: nope.csv.gz: "))
        #expect(missing.err.split(separator: "\n").count == 1)

        var gz = try gzip(Data(usageText(users: 2, events: 2000).utf8))
        gz[gz.count - 6] ^= 0xFF  // corrupt the CRC in the trailer
        let corrupt = try dir.write("corrupt.csv.gz", gz)
        let crc = try dir.fetchlab(["import", "--db", db, corrupt])
        #expect(crc.status == 1)
        #expect(crc.err.contains("corrupt.csv.gz: byte "))
        #expect(!crc.err.contains("Fatal error"))

        let strictFile = try dir.write("strict.csv", "timestamp,user,app\n2024-03-01T12:00:00Z,u,a\nbad,u,a\n")
        let strict = try dir.fetchlab(["import", "--db", db, "--strict", strictFile])
        #expect(strict.status == 1)
        #expect(strict.err.contains("strict.csv:3: "))

        let notDB = try dir.write("text.sqlite", "not a database")
        let refused = try dir.fetchlab(["import", "--db", notDB, strictFile])
        #expect(refused.status == 1)  // like every failure to open the database
        #expect(refused.err.contains("refusing to touch it"))

        let badZone = try dir.fetchlab(["import", "--db", db, "--timezone", "Mars/Olympus", strictFile])
        #expect(badZone.status != 0)
        #expect(badZone.err.contains("'Mars/Olympus' is invalid for '--timezone <timezone>'; expected: IANA time zone"))

        // Nothing of the failed files reached the database.
        let count = try GRDB.DatabaseQueue(path: db).read {
            try Int.fetchOne($0, sql: "SELECT count(*) FROM usage_event")
        }
        #expect(count == 0)
    }

    @Test func twoConcurrentImportsBothSucceed() throws {
        let a = try dir.writeGzip("a.csv.gz", usageText(users: 20, events: 150_000, seed: 1))
        let b = try dir.writeGzip("b.csv.gz", usageText(users: 20, events: 150_000, seed: 2, userPrefix: "other"))
        // Create the database first so both processes find the schema.
        _ = try dir.fetchlab([
            "import", "--db", db, try dir.write("seed.csv", "timestamp,user,app\n2024-03-01T12:00:00Z,u,a\n"),
        ])
        nonisolated(unsafe) var results: [ProcessResult?] = [nil, nil]
        let group = DispatchGroup()
        for (i, file) in [a, b].enumerated() {
            group.enter()
            DispatchQueue.global().async {
                results[i] = try? dir.fetchlab(["import", "--db", db, file])
                group.leave()
            }
        }
        group.wait()
        for result in results {
            let r = try #require(result)
            #expect(r.status == 0, "\(r.err)")
        }
        let count = try GRDB.DatabaseQueue(path: db).read {
            try Int.fetchOne($0, sql: "SELECT count(*) FROM usage_event")
        }
        #expect(count == 300_001)
    }

    @Test func helpListsTheCommands() throws {
        let help = try dir.fetchlab(["--help"])
        #expect(help.status == 0)
        #expect(help.out.contains("import"))
        #expect(help.out.contains("inspect"))
    }
}
