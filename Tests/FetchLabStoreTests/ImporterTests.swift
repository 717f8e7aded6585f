import _FetchLabTestSupport
import FetchLabCore
import FetchLabIngest
import FetchLabResults
@testable import FetchLabStore
import Foundation
import GRDB
import Testing

/// A fresh database in a temporary directory.
struct Fixture {
    let dir = TemporaryDirectory()
    let db: FetchLabDatabase
    var importer: Importer { Importer(database: db) }

    init() throws {
        db = try FetchLabDatabase(path: dir.path("test.sqlite"))
    }

    func count(_ table: String) throws -> Int {
        try db.writer.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM \(table)") ?? -1 }
    }

    func rows(_ sql: String) throws -> [Row] {
        try db.writer.read { try Row.fetchAll($0, sql: sql) }
    }

    func launches(_ user: String) throws -> [(String, String)] {
        try rows(
            "SELECT app, time_utc FROM usage_events WHERE user = '\(user)' AND event = 'launch' ORDER BY time_us, app"
        ).map { ($0["app"], $0["time_utc"]) }
    }
}

@Suite struct UsageImportTests {
    let csv = """
        timestamp,user,app,event
        2024-03-01T12:00:00Z,alice,com.example.news,launch
        2024-03-01T12:05:00Z,alice,com.example.news,close
        2024-03-01T12:06:00+01:00,bob,com.example.mail,
        1709294400,bob,com.example.mail,force_quit
        1709294400123,bob,com.example.maps,launch

        """

    @Test func importsGzipCSVWithEveryColumn() throws {
        let f = try Fixture()
        let path = try f.dir.writeGzip("usage.csv.gz", csv)
        let summary = try f.importer.importFile(path)
        #expect(summary.status == .imported)
        #expect(summary.format == .usage)
        #expect(summary.compression == "gzip")
        #expect(summary.counts.rows == 5)
        #expect(summary.counts.accepted == 5)
        #expect(summary.counts.rejected == 0)
        #expect(summary.inserted.usageEvents == 5)
        let rows = try f.rows("SELECT user, app, time_utc, event, utc_offset FROM usage_events ORDER BY time_us, app")
        #expect(rows.count == 5)
        #expect(rows.map { $0["event"] as String } == ["launch", "force_quit", "launch", "launch", "close"])
        // 12:06+01:00 is 11:06Z; its offset is kept for local-time profiles.
        #expect(rows[0]["time_utc"] as String == "2024-03-01T11:06:00.000Z")
        #expect(rows[0]["utc_offset"] as Int64? == Seconds.perHour)
        #expect(rows[3]["time_utc"] as String == "2024-03-01T12:00:00.123Z")
        #expect(rows[3]["app"] as String == "com.example.maps")
        #expect(try f.count("user") == 2)
        #expect(try f.count("app") == 3)
    }

    @Test func tsvAndJSONLinesReadTheSame() throws {
        let f = try Fixture()
        let tsv = try f.dir.write(
            "u.tsv", "timestamp\tuser\tapp\n2024-03-01T12:00:00Z\tu1\tcom.a\n2024-03-01T13:00:00Z\tu1\tcom.b\n")
        let jsonl = try f.dir.write(
            "u.jsonl",
            """
            {"timestamp": "2024-03-01T12:00:00Z", "user": "u2", "app": "com.a", "event": "launch"}
            {"app": "com.b", "user": "u2", "timestamp": 1709298000}
            {"timestamp": "2024-03-01T14:00:00Z", "user": "u2", "app": "com.\\"quoted\\""}

            """)
        let s1 = try f.importer.importFile(tsv)
        let s2 = try f.importer.importFile(jsonl)
        #expect(s1.syntax == "tsv" && s1.inserted.usageEvents == 2)
        #expect(s2.syntax == "jsonl" && s2.inserted.usageEvents == 3)
        #expect(try f.launches("u1").map(\.1) == f.launches("u2").prefix(2).map(\.1))
        #expect(try f.launches("u2").last?.0 == "com.\"quoted\"")
    }

    @Test func quotedCSVFieldsKeepTheirCommas() throws {
        let f = try Fixture()
        let path = try f.dir.write("q.csv", "timestamp,user,app\n2024-03-01T12:00:00Z,\"Doe, Jane\",\"com.a\"\"b\"\n")
        let s = try f.importer.importFile(path)
        #expect(s.inserted.usageEvents == 1)
        let row = try #require(f.rows("SELECT user, app FROM usage_events").first)
        #expect(row["user"] as String == "Doe, Jane")
        #expect(row["app"] as String == "com.a\"b")
    }

    @Test func mapRenamesColumns() throws {
        let f = try Fixture()
        let path = try f.dir.write("m.csv", "when,who,bundle_name\n2024-03-01T12:00:00Z,u1,com.a\n")
        let s = try f.importer.importFile(
            path,
            options: {
                var o = ReadOptions(); o.columnMap = ["when": "timestamp", "who": "user", "bundle_name": "app"];
                return o
            }())
        #expect(s.inserted.usageEvents == 1)
    }

    @Test func rejectsCarryLineNumbersAndReasons() throws {
        let f = try Fixture()
        let path = try f.dir.writeGzip(
            "bad.csv.gz",
            """
            timestamp,user,app,event
            2024-03-01T12:00:00Z,u1,com.a,launch
            17x,u1,com.a,launch
            2024-03-01T12:00:00Z,u1,com.a,fly
            2024-03-01T12:00:00Z,,com.a,launch
            2024-03-01T12:00:00Z,u1
            1970-01-01T01:00:00Z,u1,com.a,launch
            2024-03-01T13:00:00Z,u1,com.a,launch

            """)
        let s = try f.importer.importFile(path)
        #expect(s.counts.rows == 7)
        #expect(s.counts.rejected == 5)
        #expect(s.inserted.usageEvents == 2)
        let rejects = try f.rows("SELECT line, reason, raw FROM rejected_rows ORDER BY line")
        #expect(rejects.map { $0["line"] as Int } == [3, 4, 5, 6, 7])
        let reasons = rejects.map { $0["reason"] as String }
        #expect(reasons[0].contains("\"17x\""))
        #expect(reasons[1].contains("unknown event \"fly\""))
        #expect(reasons[2] == "empty user")
        #expect(reasons[3] == "expected 4 fields, found 2")
        #expect(reasons[4].contains("is a placeholder (epoch 0, 1970-01-01)"))
        #expect(s.counts.placeholders == 1)
        #expect(rejects[0]["raw"] as String == "17x,u1,com.a,launch")
    }

    @Test func strictModeFailsTheFileAndCommitsNothing() throws {
        let f = try Fixture()
        let path = try f.dir.write("bad.csv", "timestamp,user,app\n2024-03-01T12:00:00Z,u1,com.a\nnope,u1,com.a\n")
        var options = ReadOptions()
        options.strict = true
        #expect {
            try f.importer.importFile(path, options: options)
        } throws: { error in
            "\(error)" == "\(path):3: timestamp \"nope\" is not ISO-8601 or epoch"
                || ("\(error)".hasPrefix("\(path):3: ") && "\(error)".contains("nope"))
        }
        #expect(try f.count("usage_event") == 0)
        #expect(try f.count("import") == 0)
        #expect(try f.count("user") == 0)
    }

    @Test func reimportingTheSameContentIsANoOp() throws {
        let f = try Fixture()
        let path = try f.dir.writeGzip("u.csv.gz", csv)
        let first = try f.importer.importFile(path)
        let second = try f.importer.importFile(path)
        #expect(first.status == .imported)
        #expect(second.status == .unchanged)
        #expect(second.importID == first.importID)
        // The same content under another name and compression is recognised too… by its rows.
        let copy = try f.dir.write("copy.csv", csv)
        let third = try f.importer.importFile(copy)
        #expect(third.status == .imported)
        #expect(third.inserted.total == 0)
        #expect(third.counts.duplicate == 5)
        #expect(try f.count("usage_event") == 5)
        // Importing that copy again is recognised by its hash before any row is read.
        let viaStream = try f.importer.importFile(copy)
        #expect(viaStream.status == .unchanged)
    }

    @Test func overlappingFilesDoNotDuplicateEvents() throws {
        let f = try Fixture()
        var lines = ["timestamp,user,app"]
        for i in 0..<200 { lines.append("\(1_709_294_400 + i * 60),u1,com.app\(i % 7)") }
        let a = try f.dir.write("a.csv", (lines[0...150]).joined(separator: "\n") + "\n")
        let b = try f.dir.write("b.csv", ([lines[0]] + lines[100...]).joined(separator: "\n") + "\n")
        let sa = try f.importer.importFile(a)
        let sb = try f.importer.importFile(b)
        #expect(sa.inserted.usageEvents == 150)
        #expect(sb.inserted.usageEvents == 50)
        #expect(sb.counts.duplicate == 51)
        #expect(try f.count("usage_event") == 200)
    }

    /// `cat a.csv.gz b.csv.gz > ab.csv.gz`: a multi-member gzip whose second header is skipped, not rejected.
    @Test func concatenatedGzipFilesWithHeadersImportAsOne() throws {
        let f = try Fixture()
        let a = try gzip(Data("timestamp,user,app\n2024-03-01T12:00:00Z,u1,com.a\n".utf8))
        let b = try gzip(Data("\u{FEFF}timestamp,user,app\r\n2024-03-01T13:00:00Z,u1,com.b\r\n".utf8))
        let s = try f.importer.importFile(try f.dir.write("ab.csv.gz", a + b))
        #expect(s.counts.rows == 2)
        #expect(s.counts.rejected == 0)
        #expect(s.inserted.usageEvents == 2)
        #expect(try f.launches("u1").map(\.0) == ["com.a", "com.b"])
    }

    /// Two records of a wide file run together (a lost line break) are named as such.
    @Test func gluedLinesAreNamedInTheReject() throws {
        let f = try Fixture()
        let path = try f.dir.write(
            "ctx.csv",
            "timestamp,user,battery,charging\n2024-03-01T12:00:00Z,u1,50,true2024-03-01T13:00:00Z,u1,49,true\n"
                + "2024-03-01T14:00:00Z,u1,48\n")
        let s = try f.importer.importFile(path)
        #expect(
            s.firstRejects.map(\.reason) == [
                "expected 4 fields, found 7 (two lines run together?)", "expected 4 fields, found 3",
            ])
    }

    @Test func backgroundRefreshSwitchesAreEvents() throws {
        let f = try Fixture()
        let path = try f.dir.write(
            "bar.csv",
            """
            timestamp,user,app,event
            2024-03-01T08:00:00Z,u1,com.a,refresh_off
            2024-03-01T09:00:00Z,u1,com.a,launch
            2024-03-03T08:00:00Z,u1,com.a,REFRESH_ON

            """)
        let s = try f.importer.importFile(path)
        #expect(s.counts.rejected == 0)
        let events = try f.rows("SELECT event FROM usage_events ORDER BY time_us").map { $0["event"] as String }
        #expect(events == ["refresh_off", "launch", "refresh_on"])
        // Only launches count as use.
        #expect(try UsageQueries(database: f.db).appUsage(user: "u1").first?.launches == 1)
    }

    @Test func aFileFailingHalfwayLeavesNothing() throws {
        let f = try Fixture()
        var text = "timestamp,user,app\n"
        for i in 0..<200_000 { text += "\(1_709_294_400 + i),u\(i % 50),com.app\(i % 13)\n" }
        let gz = try gzip(Data(text.utf8))
        // Cut the stream in the middle: the reader fails after many batches were written.
        let path = try f.dir.write("truncated.csv.gz", gz.prefix(gz.count * 2 / 3))
        var options = ReadOptions()
        options.batchSize = 10_000
        #expect(throws: IngestError.self) { try f.importer.importFile(path, options: options) }
        #expect(try f.count("usage_event") == 0)
        #expect(try f.count("import") == 0)
        #expect(try f.count("app") == 0)
        // The database still works afterwards.
        let good = try f.dir.write("good.csv", "timestamp,user,app\n2024-03-01T12:00:00Z,u1,com.a\n")
        #expect(try f.importer.importFile(good).inserted.usageEvents == 1)
    }

    @Test func emptyAndHeaderOnlyFilesImportNothing() throws {
        let f = try Fixture()
        let empty = try f.dir.write("empty.csv", "")
        let header = try f.dir.writeGzip("header.csv.gz", "timestamp,user,app,event\n")
        let s1 = try f.importer.importFile(empty)
        let s2 = try f.importer.importFile(header)
        // Recorded, but as an attempt that accepted nothing: it does not block importing the file again.
        #expect(s1.counts.rows == 0 && s1.status == .nothingAccepted)
        #expect(s2.counts.rows == 0 && s2.format == .usage && s2.status == .nothingAccepted)
        #expect(try f.importer.importFile(header).status == .nothingAccepted)
        #expect(try f.count("usage_event") == 0)
    }

    @Test func unknownHeaderIsAClearError() throws {
        let f = try Fixture()
        let path = try f.dir.write("x.csv", "foo,bar\n1,2\n")
        #expect {
            try f.importer.importFile(path)
        } throws: { error in
            let text = "\(error)"
            return text.hasPrefix("\(path):1: header \"foo,bar\" has no timestamp column")
        }
    }

    @Test func localTimesUseTheTimeZoneAndRejectDSTGaps() throws {
        let f = try Fixture()
        let path = try f.dir.write(
            "local.csv",
            "timestamp,user,app\n2024-03-31 01:30:00,u1,com.a\n2024-03-31 02:30:00,u1,com.b\n2024-03-31 03:30:00,u1,com.c\n"
        )
        var options = ReadOptions()
        options.timeZone = TimeZone(identifier: "Europe/Berlin")
        let s = try f.importer.importFile(path, options: options)
        #expect(s.inserted.usageEvents == 2)
        #expect(s.counts.rejected == 1)
        let reject = try #require(f.rows("SELECT line, reason FROM rejected_rows").first)
        #expect(reject["line"] as Int == 3)
        #expect((reject["reason"] as String).contains("does not exist"))
        let rows = try f.rows("SELECT time_utc, utc_offset FROM usage_events ORDER BY time_us")
        #expect(rows.map { $0["time_utc"] as String } == ["2024-03-31T00:30:00.000Z", "2024-03-31T01:30:00.000Z"])
        #expect(rows.map { $0["utc_offset"] as Int64 } == [Seconds.perHour, 2 * Seconds.perHour])
        #expect(try f.rows("SELECT time_zone FROM user").first?["time_zone"] as String? == "Europe/Berlin")
    }

    @Test(arguments: [
        ("2024-03-01T12:00:00Z", "2024-03-01T12:00:00.000Z"),
        ("2024-03-01T12:00:00.250+02:00", "2024-03-01T10:00:00.250Z"),
        ("2024-03-01 12:00:00", "2024-03-01T12:00:00.000Z"),
        ("1709294400", "2024-03-01T12:00:00.000Z"),
        ("1709294400500", "2024-03-01T12:00:00.500Z"),
        ("1709294400500250", "2024-03-01T12:00:00.500Z"),
    ])
    func everyTimestampForm(text: String, utc: String) throws {
        let f = try Fixture()
        let path = try f.dir.write("t.csv", "timestamp,user,app\n\(text),u1,com.a\n")
        #expect(try f.importer.importFile(path).inserted.usageEvents == 1)
        #expect(try f.rows("SELECT time_utc FROM usage_events").first?["time_utc"] as String? == utc)
    }

    @Test func statedEpochUnitOverridesDetection() throws {
        let f = try Fixture()
        let path = try f.dir.write("t.csv", "timestamp,user,app\n1709294400000,u1,com.a\n")
        var options = ReadOptions()
        options.epochUnit = .microseconds
        let s = try f.importer.importFile(path, options: options)
        // 1709294400000 µs is 1970-01-20: outside the default range, so a reject.
        #expect(s.counts.rejected == 1)
        options.earliest = 0
        let t = try f.importer.importFile(
            try f.dir.write("t2.csv", "timestamp,user,app\n1709294400000,u1,com.a\n\n"), options: options)
        #expect(t.inserted.usageEvents == 1)
        #expect(try f.rows("SELECT time_us FROM usage_events").first?["time_us"] as Int64? == 1_709_294_400_000)
    }

    @Test func schemaHasNoDanglingReferences() throws {
        let f = try Fixture()
        _ = try f.importer.importFile(try f.dir.write("u.csv", csv))
        let problems = try f.rows("PRAGMA foreign_key_check")
        #expect(problems.isEmpty)
        let integrity = try f.rows("PRAGMA integrity_check")
        #expect(integrity.first?[0] as String? == "ok")
    }
}

@Suite struct ContextAndContentImportTests {
    @Test func fetchLabContextWithMissingColumns() throws {
        let f = try Fixture()
        let path = try f.dir.write(
            "ctx.csv",
            """
            timestamp,user,battery,charging,network,low_power
            2024-03-01T12:00:00Z,u1,80,false,wifi,false
            2024-03-01T12:10:00Z,u1,79.5,,cellular,
            2024-03-01T12:20:00Z,u1,,true,,true
            2024-03-01T12:30:00Z,u1,150,true,wifi,false
            2024-03-01T12:40:00Z,u1,50,maybe,wifi,false
            2024-03-01T12:50:00Z,u1,50,true,satellite,false

            """)
        let s = try f.importer.importFile(path)
        #expect(s.format == .context)
        #expect(s.inserted.contextSamples == 3)
        #expect(s.counts.rejected == 3)
        let rows = try f.rows("SELECT battery, charging, network, low_power FROM context_samples ORDER BY time_us")
        #expect(rows[1]["battery"] as Double? == 79.5)
        #expect(rows[1]["charging"] as String? == nil)
        #expect(rows[1]["network"] as String? == "cellular")
        #expect(rows[2]["low_power"] as String? == "true")
        let reasons = try f.rows("SELECT reason FROM rejected_row ORDER BY line").map { $0["reason"] as String }
        #expect(reasons[0].contains("not a percentage"))
        #expect(reasons[1].contains("charging \"maybe\""))
        #expect(reasons[2].contains("network \"satellite\""))
    }

    @Test func sameTimeDifferentValuesIsARejectNotASilentDrop() throws {
        let f = try Fixture()
        let path = try f.dir.write(
            "ctx.csv",
            """
            timestamp,user,battery
            2024-03-01T12:00:00Z,u1,80
            2024-03-01T12:00:00Z,u1,80
            2024-03-01T12:00:00Z,u1,60

            """)
        let s = try f.importer.importFile(path)
        #expect(s.inserted.contextSamples == 1)
        #expect(s.counts.duplicate == 1)
        #expect(s.counts.rejected == 1)
        let reject = try #require(f.rows("SELECT line, reason, raw FROM rejected_row").first)
        #expect(reject["line"] as Int == 4)
        #expect(reject["raw"] as String == "2024-03-01T12:00:00Z,u1,60")
    }

    @Test func contentUpdates() throws {
        let f = try Fixture()
        let path = try f.dir.writeGzip(
            "content.csv.gz",
            "timestamp,app\n2024-03-01T06:00:00Z,com.news\n2024-03-01T06:30:00Z,com.news\n2024-03-01T06:30:00Z,com.news\n"
        )
        let s = try f.importer.importFile(path)
        #expect(s.format == .content)
        #expect(s.inserted.contentUpdates == 2)
        #expect(s.counts.duplicate == 1)
    }

    @Test func androidBatterySampler() throws {
        let f = try Fixture()
        let header =
            "_id,ID,level,temperature,voltage,technology,status,health,usage,WiFi,Cellular,Hotspot,GPS,Bluetooth,RAM,Brightness,isInteractive,SampleFreq,brandModel,androidVersion,availCapacityPercentage,Timestamp"
        let path = try f.dir.writeGzip(
            "battery.csv.gz",
            """
            \(header)
            x1,dev1,83,29.9,4.1,Li-ion,3,2,100,true,false,false,false,false,25,78,true,10,m,10,83,1596974946939
            x2,dev1,84,29.9,4.1,Li-ion,2,2,100,false,true,false,false,false,25,78,false,10,m,10,83,1596974956940
            x3,dev1,85,29.9,4.1,Li-ion,5,2,100,false,false,false,false,false,25,78,false,10,m,10,83,1596974966940
            x4,dev1,85,29.9,4.1,Li-ion,9,2,100,false,false,false,false,false,25,78,false,10,m,10,83,1596974976940

            """)
        let s = try f.importer.importFile(path)
        #expect(s.format == .battery)
        #expect(s.inserted.contextSamples == 3)
        #expect(s.counts.rejected == 1)
        let rows = try f.rows(
            "SELECT user, battery, charging, network, screen_on, time_utc FROM context_samples ORDER BY time_us")
        #expect(rows.map { $0["user"] as String } == ["dev1", "dev1", "dev1"])
        #expect(rows.map { $0["charging"] as String } == ["false", "true", "true"])
        #expect(rows.map { $0["network"] as String } == ["wifi", "cellular", "none"])
        #expect(rows[0]["screen_on"] as String == "true")
        #expect(rows[0]["time_utc"] as String == "2020-08-09T12:09:06.939Z")
    }

    @Test func lsappEvents() throws {
        let f = try Fixture()
        let path = try f.dir.write(
            "lsapp.tsv",
            """
            user_id\tsession_id\ttimestamp\tapp_name\tevent_type
            1\t1\t2018-01-16 06:01:05\tGmail\tOpened
            1\t1\t2018-01-16 06:01:07\tGmail\tUser_Interaction
            1\t1\t2018-01-16 06:01:30\tGmail\tClosed
            1\t1\t2018-01-16 06:01:31\tChrome\tOpened
            1\t1\t2018-01-16 06:01:32\tChrome\tExploded

            """)
        let s = try f.importer.importFile(path)
        #expect(s.format == .lsapp)
        #expect(s.inserted.usageEvents == 3)
        #expect(s.counts.excluded == 1)
        #expect(s.counts.rejected == 1)
        #expect(try f.launches("1").map(\.0) == ["Gmail", "Chrome"])
    }

    @Test func lsappWithoutHeader() throws {
        let f = try Fixture()
        let path = try f.dir.write(
            "lsapp.tsv", "7\t1\t2018-01-16 06:01:05\tGmail\tOpened\n7\t1\t2018-01-16 06:01:30\tGmail\tClosed\n")
        let s = try f.importer.importFile(path)
        #expect(s.format == .lsapp)
        #expect(s.inserted.usageEvents == 2)
    }
}

@Suite struct ForegroundImportTests {
    func importForeground(_ text: String, _ configure: (inout ReadOptions) -> Void = { _ in }) throws -> (
        Fixture, ImportSummary
    ) {
        let f = try Fixture()
        let path = try f.dir.writeGzip("foreground-user_x.csv.gz", text)
        var options = ReadOptions()
        configure(&options)
        return (f, try f.importer.importFile(path, options: options))
    }

    @Test func consecutiveSamplesAreOneLaunchAndGapsStartANewOne() throws {
        let (f, s) = try importForeground(
            """
            2023-12-19 13:00:00.000000,com.a
            2023-12-19 13:01:00.000000,com.a
            2023-12-19 13:02:00.000000,com.a
            2023-12-19 13:03:00.000000,com.b
            2023-12-19 13:04:00.000000,com.a
            2023-12-19 13:20:00.000000,com.a

            """)
        #expect(s.format == .foreground)
        #expect(s.counts.rows == 6)
        #expect(s.inserted.usageEvents == 4)
        // The user is named after the file.
        #expect(
            try f.launches("foreground-user_x").map(\.1) == [
                "2023-12-19T13:00:00.000Z", "2023-12-19T13:03:00.000Z", "2023-12-19T13:04:00.000Z",
                "2023-12-19T13:20:00.000Z",
            ])
    }

    @Test func sessionGapIsAnOption() throws {
        let text = "2023-12-19 13:00:00,com.a\n2023-12-19 13:03:00,com.a\n"
        let (_, fiveMinutes) = try importForeground(text)
        let (_, twoMinutes) = try importForeground(text) { $0.sessionGap = .minutes(Int64(2)) }
        #expect(fiveMinutes.inserted.usageEvents == 1)
        #expect(twoMinutes.inserted.usageEvents == 2)
    }

    @Test func duplicatesDroppedOutOfOrderSortedPlaceholdersRejected() throws {
        let (f, s) = try importForeground(
            """
            2023-12-19 13:00:00.000000,com.a
            2023-12-19 13:00:00.000000,com.a
            2023-12-19 13:30:00.000000,com.b
            2023-12-19 13:10:00.000000,com.c
            1970-01-01 01:00:00.000000,com.d
            \u{0}\u{0}2023-12-19 13:40:00.000000,com.e
                 2023-12-19 13:50:00.000000,com.f

            """)
        #expect(s.counts.duplicate == 1)
        #expect(s.counts.rejected == 2)
        #expect(try f.launches("foreground-user_x").map(\.0) == ["com.a", "com.c", "com.b", "com.f"])
        let reasons = try f.rows("SELECT line, reason FROM rejected_row ORDER BY line")
        #expect(reasons.map { $0["line"] as Int } == [5, 6])
        #expect((reasons[1]["reason"] as String).contains("NUL"))
    }

    /// The launch rule of the evaluation protocol: excluded samples are dropped first, so a return to
    /// an app within the session gap after only excluded samples is the same use.
    @Test func excludedAppsAreDroppedBeforeSessionising() throws {
        let (f, s) = try importForeground(
            """
            2023-12-19 13:00:00,com.a
            2023-12-19 13:01:00,com.android.launcher
            2023-12-19 13:02:00,com.a

            """
        ) { $0.excludedApps = ["*launcher*"] }
        #expect(s.counts.excluded == 1)
        #expect(s.counts.merged == 1)
        #expect(try f.launches("foreground-user_x").map(\.0) == ["com.a"])
        #expect(try f.count("app") == 1)
    }

    /// Without options the launcher, `android`, system UI and the logger are dropped; the summary
    /// and the stored import say how many, and `--keep-system-apps` (another read, another
    /// fingerprint) keeps them.
    @Test func systemAppsAreDroppedByDefaultAndTheImportSaysSo() throws {
        let log = """
            2023-12-19 13:00:00,com.a
            2023-12-19 13:01:00,com.android.launcher
            2023-12-19 13:01:30,com.example.nextapp
            2023-12-19 13:02:00,com.a
            2023-12-19 13:30:00,android
            2023-12-19 13:31:00,com.b

            """
        let (f, s) = try importForeground(log)
        // The launcher is a system-UI signal (issue 26); the logger and `android` are dropped.
        #expect(s.counts.systemApps == 2 && s.counts.excluded == 2 && s.counts.signals == 1)
        #expect(try f.launches("foreground-user_x").map(\.0) == ["com.a", "com.b"])
        let stored = try #require(try UsageQueries(database: f.db).imports().first)
        #expect(stored.counts.systemApps == 2)
        #expect(stored.options.contains("\"system_apps\":\"drop\""))

        let path = f.dir.path("foreground-user_x.csv.gz")
        #expect(try f.importer.importFile(path).status == .unchanged)
        var keep = ReadOptions()
        keep.keepSystemApps = true
        let kept = try f.importer.importFile(path, options: keep)
        #expect(kept.status == .imported && kept.counts.systemApps == 0)
        #expect(
            try f.launches("foreground-user_x").map(\.0) == [
                "com.a", "com.android.launcher", "com.example.nextapp", "com.a", "android", "com.b",
            ])
    }

    @Test func userOptionNamesTheUser() throws {
        let (f, _) = try importForeground("2023-12-19 13:00:00,com.a\n") { $0.user = "pat" }
        #expect(try f.launches("pat").count == 1)
    }
}

@Suite struct DatabaseTests {
    @Test func refusesAFileThatIsNotADatabase() throws {
        let dir = TemporaryDirectory()
        let path = try dir.write("notes.sqlite", "hello, I am a text file\n")
        #expect {
            _ = try FetchLabDatabase(path: path)
        } throws: { error in
            "\(error)" == "\(path): not a SQLite database; refusing to touch it"
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "hello, I am a text file\n")
    }

    @Test func refusesAnotherApplicationsDatabase() throws {
        let dir = TemporaryDirectory()
        let path = dir.path("other.sqlite")
        let queue = try DatabaseQueue(path: path)
        try queue.write { try $0.execute(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (1)") }
        try queue.close()
        #expect(throws: StoreError.self) { _ = try FetchLabDatabase(path: path) }
        let check = try DatabaseQueue(path: path)
        #expect(try check.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM sqlite_master") } == 1)
    }

    @Test func reopensItsOwnDatabase() throws {
        let dir = TemporaryDirectory()
        let path = dir.path("own.sqlite")
        do {
            let db = try FetchLabDatabase(path: path)
            _ = try Importer(database: db).importFile(
                try dir.write("u.csv", "timestamp,user,app\n2024-03-01T12:00:00Z,u,a\n"))
        }
        let again = try FetchLabDatabase(path: path)
        #expect(try again.writer.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM usage_event") } == 1)
        #expect(try again.writer.read { try String.fetchOne($0, sql: "PRAGMA journal_mode") } == "wal")
        // WAL with synchronous=NORMAL (1): atomic commits without an fsync per transaction.
        #expect(try again.writer.write { try Int.fetchOne($0, sql: "PRAGMA synchronous") } == 1)
    }

    @Test func migratesADatabaseOfAnEarlierVersion() throws {
        let dir = TemporaryDirectory()
        let path = dir.path("v1.sqlite")
        do {
            let queue = try DatabaseQueue(path: path)
            try Schema.migrator.migrate(queue, upTo: "v1")
            try queue.write { db in
                try db.execute(
                    sql: "INSERT INTO user (id, name) VALUES (1, 'u'); INSERT INTO app (id, name) VALUES (1, 'a')")
                try db.execute(
                    sql: """
                        INSERT INTO import (id, path, content_sha256, format, bytes, decompressed_bytes, started_at)
                        VALUES (1, 'x', 'h', 'usage', 0, 0, '');
                        INSERT INTO usage_event VALUES (1, 1, 0, 3, NULL, 1);
                        """)
            }
        }
        let db = try FetchLabDatabase(path: path)
        let applied = try db.writer.read { try Schema.migrator.appliedMigrations($0) }
        #expect(applied == ["v1", "v2: Background App Refresh events", Schema.v3, Schema.v4, Schema.v5, Schema.v6, Schema.v7, Schema.v8])
        #expect(try db.writer.read { try String.fetchOne($0, sql: "SELECT event FROM usage_events") } == "refresh_off")
    }
}


/// Context samples are matched to launches by user name: a device that matches no user is said so
/// in the summary (for a warning), against the users in the database when the file is imported.
@Suite struct UnmatchedContextTests {
    static let battery = """
        _id,ID,level,status,WiFi,Cellular,isInteractive,Timestamp
        1,0826c571f98a4a818945860bc9091705,80,3,true,false,true,1709294400000
        2,0826c571f98a4a818945860bc9091705,79,3,true,false,true,1709294410000
        3,pat,50,2,false,true,true,1709294400000

        """

    @Test func devicesWithoutLaunchesAreListed() throws {
        let f = try Fixture()
        let usage = try f.dir.write("u.csv", "timestamp,user,app\n2024-03-01T12:00:00Z,pat,com.a\n")
        _ = try f.importer.importFile(usage)
        let s = try f.importer.importFile(try f.dir.write("battery-x.csv", Self.battery))
        #expect(s.format == .battery)
        #expect(s.inserted.contextSamples == 3)
        #expect(s.unmatchedContextUsers == ["0826c571f98a4a818945860bc9091705"])
    }

    @Test func everyDeviceMatchedListsNone() throws {
        let f = try Fixture()
        var options = ReadOptions()
        options.user = "pat"
        let usage = try f.dir.write("u.csv", "timestamp,user,app\n2024-03-01T12:00:00Z,pat,com.a\n")
        _ = try f.importer.importFile(usage)
        let s = try f.importer.importFile(try f.dir.write("battery-x.csv", Self.battery), options: options)
        #expect(s.unmatchedContextUsers.isEmpty)
    }

    /// Usage imported after the context: the import could not know; `inspect` says so then.
    @Test func contextImportedBeforeItsUsageIsListedByTheQueries() throws {
        let f = try Fixture()
        let s = try f.importer.importFile(try f.dir.write("battery-x.csv", Self.battery))
        #expect(s.unmatchedContextUsers == ["0826c571f98a4a818945860bc9091705", "pat"])
        let queries = UsageQueries(database: f.db)
        #expect(try queries.importNotes().unmatchedContextUsers == ["0826c571f98a4a818945860bc9091705", "pat"])
        _ = try f.importer.importFile(try f.dir.write("u.csv", "timestamp,user,app\n2024-03-01T12:00:00Z,pat,com.a\n"))
        #expect(try queries.importNotes().unmatchedContextUsers == ["0826c571f98a4a818945860bc9091705"])
    }
}
