import FetchLabCore
import FetchLabResults
import Foundation
import GRDBSQLite
import Testing
import _FetchLabTestSupport

@testable import FetchLabIngest

/// The Knowledge store reader on real SQLite files built from `Resources/knowledgeC-schema.sql`.
@Suite struct KnowledgeStoreReaderTests {
    typealias O = KnowledgeStoreFixture.Object
    let dir = TemporaryDirectory()

    /// The instant of an ISO-8601 UTC date.
    func us(_ iso: String) -> Instant {
        Instant(sinceEpoch: Microseconds(((KnowledgeStoreFixture.coreData(iso) + 978_307_200) * 1e6).rounded()))
    }

    func store(_ objects: [O], name: String = "knowledgeC.db", sql: String = "") throws -> String {
        let path = dir.path(name)
        try KnowledgeStoreFixture.make(path, objects, sql: sql)
        return path
    }

    struct Read {
        var usage: [UsageEvent] = []
        var context: [ContextSample] = []
        var rejects: [RejectedRow] = []
        var counts = ReadCounts()
        var users: [String] = []
        var apps: [String] = []
        func app(_ e: UsageEvent) -> String { apps[Int(e.app)] }
    }

    func read(_ path: String, _ configure: (inout ReadOptions) -> Void = { _ in }) throws -> Read {
        var options = ReadOptions()
        options.batchSize = 3
        configure(&options)
        let source = try openRecordSource(path: path, options: options)
        #expect(source.format == .knowledgeC)
        var out = Read()
        while let batch = try source.nextBatch() {
            out.users += batch.newUsers
            out.apps += batch.newApps
            out.usage += batch.usage
            out.context += batch.context.map(\.sample)
            out.rejects += batch.rejects
            out.counts += batch.counts
        }
        out.usage.sort { ($0.time, $0.kind.rawValue) < ($1.time, $1.kind.rawValue) }
        return out
    }

    @Test func inFocusIntervalsAreLaunchesAndClosesWithTheirOffsets() throws {
        let path = try store([
            O(
                1, "/app/inFocus", start: "2024-03-01T12:00:00Z", end: "2024-03-01T12:10:00Z", string: "com.a",
                offset: 3600),
            O(
                2, "/app/inFocus", start: "2024-03-01T13:00:00Z", end: "2024-03-01T13:01:00Z", string: "com.b",
                offset: -25200),
        ])
        let r = try read(path)
        #expect(r.users == ["knowledgeC"])
        #expect(
            r.usage.map { "\(r.app($0)) \($0.kind)" } == ["com.a launch", "com.a close", "com.b launch", "com.b close"])
        #expect(
            r.usage.map(\.time) == [
                us("2024-03-01T12:00:00Z"), us("2024-03-01T12:10:00Z"), us("2024-03-01T13:00:00Z"),
                us("2024-03-01T13:01:00Z"),
            ])
        #expect(r.usage.map(\.utcOffset) == [3600, 3600, -25200, -25200])
        #expect(r.counts.rows == 2 && r.counts.accepted == 2 && r.counts.rejected == 0)
    }

    @Test func aDSTChangeKeepsEachRowsOffset() throws {
        // Europe/Berlin: +1 h before 2024-03-31T01:00Z, +2 h after.
        let path = try store([
            O(
                1, "/app/inFocus", start: "2024-03-31T00:30:00Z", end: "2024-03-31T00:40:00Z", string: "com.a",
                offset: 3600),
            O(
                2, "/app/inFocus", start: "2024-03-31T01:30:00Z", end: "2024-03-31T01:40:00Z", string: "com.a",
                offset: 7200),
        ])
        let r = try read(path)
        #expect(r.usage.map(\.utcOffset) == [3600, 3600, 7200, 7200])
        #expect(r.usage[2].localSeconds - r.usage[0].localSeconds == 2 * 3600)
    }

    @Test func aRefocusWithinTheSessionGapIsTheSameUse() throws {
        let path = try store([
            O(1, "/app/inFocus", start: "2024-03-01T10:00:00Z", end: "2024-03-01T10:05:00Z", string: "com.a"),
            O(2, "/app/inFocus", start: "2024-03-01T10:07:00Z", end: "2024-03-01T10:10:00Z", string: "com.a"),
            O(3, "/app/inFocus", start: "2024-03-01T10:20:00Z", end: "2024-03-01T10:21:00Z", string: "com.a"),
            O(4, "/app/inFocus", start: "2024-03-01T10:22:00Z", end: "2024-03-01T10:23:00Z", string: "com.b"),
            O(5, "/app/inFocus", start: "2024-03-01T10:24:00Z", end: "2024-03-01T10:25:00Z", string: "com.a"),
        ])
        let r = try read(path)
        #expect(
            r.usage.map { "\(r.app($0)) \($0.kind)" } == [
                "com.a launch", "com.a close", "com.a launch", "com.a close", "com.b launch", "com.b close",
                "com.a launch", "com.a close",
            ])
        #expect(r.usage[1].time == us("2024-03-01T10:10:00Z"))
        #expect(r.counts.merged == 1 && r.counts.rows == 5)
        // A shorter gap: every focus is a launch.
        let apart = try read(path) { $0.sessionGap = Microseconds.perMinute }
        #expect(apart.usage.filter { $0.kind == .launch }.count == 5)
    }

    @Test func appUsageIsReadWhenThereIsNoInFocus() throws {
        let only = try store(
            [
                O(
                    1, "/app/usage", start: "2024-03-01T10:00:00Z", end: "2024-03-01T10:05:00Z", string: "com.a",
                    offset: 0)
            ],
            name: "usage.db")
        let r = try read(only)
        #expect(r.usage.count == 2 && r.apps == ["com.a"])
        let both = try store(
            [
                O(1, "/app/usage", start: "2024-03-01T10:00:00Z", end: "2024-03-01T10:05:00Z", string: "com.u"),
                O(2, "/app/inFocus", start: "2024-03-01T11:00:00Z", end: "2024-03-01T11:05:00Z", string: "com.f"),
            ], name: "both.db")
        let b = try read(both)
        #expect(b.apps == ["com.f"])
        #expect(b.counts.rows == 1)
    }

    @Test func deviceStreamsAreContextSamples() throws {
        let path = try store([
            O(1, "/device/isPluggedIn", start: "2024-03-01T10:00:00Z", integer: 1, offset: 3600),
            O(2, "/device/batteryPercentage", start: "2024-03-01T10:00:00Z", double: 55, offset: 3600),
            O(3, "/device/isLocked", start: "2024-03-01T11:00:00Z", integer: 1, offset: 3600),
            O(4, "/device/isLocked", start: "2024-03-01T11:30:00Z", integer: 0, offset: 3600),
            O(5, "/device/lowPowerMode", start: "2024-03-01T12:00:00Z", integer: 1, offset: 3600),
            O(6, "/app/intents", start: "2024-03-01T12:00:00Z", string: "ignored"),
        ])
        let r = try read(path)
        // The unlock (isLocked going to 0) is also a signal event of the device.
        #expect(r.usage.map(\.kind) == [.unlock] && r.usage.first?.time == us("2024-03-01T11:30:00Z"))
        #expect(r.context.count == 4)
        #expect(
            r.context[0]
                == ContextSample(time: us("2024-03-01T10:00:00Z"), battery: 55, charging: true, utcOffset: 3600))
        #expect(r.context[1].screenOn == false && r.context[2].screenOn == true)
        #expect(r.context[3].lowPower == true && r.context[3].battery == nil)
        #expect(r.counts.rows == 5 && r.counts.merged == 1)
    }

    @Test func badRowsAreRejectsNamedByTheirPrimaryKey() throws {
        let path = try store([
            O(7, "/app/inFocus", start: nil, end: "2024-03-01T10:05:00Z", string: "com.a"),
            O(8, "/app/inFocus", start: "2024-03-01T10:05:00Z", end: "2024-03-01T10:00:00Z", string: "com.a"),
            O(9, "/app/inFocus", start: "2024-03-01T11:00:00Z", end: "2024-03-01T11:05:00Z", string: nil),
            O(10, "/device/batteryPercentage", start: "2024-03-01T10:00:00Z", double: 250),
            O(11, "/app/inFocus", start: "2024-03-01T12:00:00Z", end: "2024-03-01T12:05:00Z", string: "com.ok"),
        ])
        let r = try read(path)
        #expect(r.rejects.map(\.line).sorted() == [7, 8, 9, 10])
        #expect(r.rejects.first { $0.line == 7 }?.reason == "ZSTARTDATE is NULL")
        #expect(r.rejects.first { $0.line == 8 }?.reason == "ZENDDATE is before ZSTARTDATE")
        #expect(r.rejects.allSatisfy { $0.raw.hasPrefix("Z_PK=\($0.line) ") })
        #expect(r.usage.count == 2)

        #expect {
            _ = try read(path) { $0.strict = true }
        } throws: { error in
            let e = error as? IngestError
            return e?.code == .malformedRow && e?.line == 7 && "\(error)" == "\(path):7: ZSTARTDATE is NULL"
        }
    }

    /// Issue 26: an unlock (`/device/isLocked` 0), the screen lit (`/display/isBacklit` 1) and a
    /// notification (`/notification/usage`, of its bundle id) are signal events, never launches.
    @Test func unlocksBacklightAndNotificationsAreSignals() throws {
        let path = try store([
            O(1, "/device/isLocked", start: "2024-03-01T08:00:00Z", integer: 1, offset: 3600),
            O(2, "/display/isBacklit", start: "2024-03-01T08:00:05Z", integer: 1, offset: 3600),
            O(3, "/device/isLocked", start: "2024-03-01T08:00:10Z", integer: 0, offset: 3600),
            O(4, "/notification/usage", start: "2024-03-01T08:01:00Z", string: "com.chat", offset: 3600),
            O(5, "/app/inFocus", start: "2024-03-01T08:01:30Z", end: "2024-03-01T08:05:00Z", string: "com.chat"),
            O(6, "/display/isBacklit", start: "2024-03-01T08:06:00Z", integer: 0, offset: 3600),
            O(7, "/notification/usage", start: "2024-03-01T08:07:00Z", offset: 3600),
        ])
        let r = try read(path)
        #expect(
            r.usage.map { "\(r.app($0)) \($0.kind)" } == [
                "(device) screen_on", "(device) unlock", "com.chat notification", "com.chat launch", "com.chat close",
            ])
        #expect(r.usage.first?.time == us("2024-03-01T08:00:05Z") && r.usage.first?.utcOffset == 3600)
        #expect(r.context.map(\.screenOn) == [false, true])
        #expect(r.rejects.map(\.line) == [7] && r.rejects.first?.reason == "no bundle id (ZVALUESTRING is NULL)")
        // Rows: 7 = 3 signals (one derived beside its sample) + 2 samples + a launch (its close derived)
        // + the backlight off (excluded) + the reject.
        #expect(r.counts.rows == 7 && r.counts.signals == 3 && r.counts.derived == 2 && r.counts.excluded == 1)
    }

    @Test func theDeviceIsTheUserUnlessUserIsGiven() throws {
        let path = try store(
            [
                O(
                    1, "/app/inFocus", start: "2024-03-01T10:00:00Z", end: "2024-03-01T10:01:00Z", string: "com.a",
                    source: 1),
                O(
                    2, "/app/inFocus", start: "2024-03-01T10:02:00Z", end: "2024-03-01T10:03:00Z", string: "com.a",
                    source: 2),
            ], sql: "INSERT INTO ZSOURCE (Z_PK, ZDEVICEID) VALUES (1, 'iPhone-42'), (2, NULL);")
        let r = try read(path)
        #expect(Set(r.users) == ["iPhone-42", "knowledgeC"])
        #expect(r.usage.filter { $0.kind == .launch }.count == 2)
        let fixed = try read(path) { $0.user = "alice" }
        #expect(fixed.users == ["alice"])
        // Same user now: the refocus within the gap is one use.
        #expect(fixed.usage.filter { $0.kind == .launch }.count == 1)
    }

    /// Device ids whose bytes are not UTF-8 stay two devices (`\xFFA`, `\xFEA`), not one "\u{FFFD}A";
    /// a bundle id with a NUL byte, or bytes that are not UTF-8, is rejected saying so; one stored as
    /// a BLOB of UTF-8 text is read; every row is accounted for (a close counts as derived).
    @Test func oddBytesInIdsAreKeptApartOrRejectedByName() throws {
        let path = try store(
            [
                O(
                    1, "/app/inFocus", start: "2024-03-01T10:00:00Z", end: "2024-03-01T10:01:00Z", string: "com.a",
                    source: 1),
                O(
                    2, "/app/inFocus", start: "2024-03-01T10:00:00Z", end: "2024-03-01T10:01:00Z", string: "com.a",
                    source: 2),
                O(
                    3, "/app/inFocus", start: "2024-03-01T11:00:00Z", end: "2024-03-01T11:01:00Z", string: "x",
                    source: 1),
                O(
                    4, "/app/inFocus", start: "2024-03-01T12:00:00Z", end: "2024-03-01T12:01:00Z", string: "y",
                    source: 1),
                O(
                    5, "/app/inFocus", start: "2024-03-01T13:00:00Z", end: "2024-03-01T13:01:00Z", string: "z",
                    source: 1),
                O(6, "/device/batteryPercentage", start: "2024-03-01T10:00:00Z", double: 80, source: 1),
            ],
            sql: """
                INSERT INTO ZSOURCE (Z_PK, ZDEVICEID) VALUES (1, X'FF41'), (2, X'FE41');
                UPDATE ZOBJECT SET ZVALUESTRING = CAST(X'636F6D0061' AS TEXT) WHERE Z_PK = 3;
                UPDATE ZOBJECT SET ZVALUESTRING = X'FF61' WHERE Z_PK = 4;
                UPDATE ZOBJECT SET ZVALUESTRING = X'636F6D2E62' WHERE Z_PK = 5;
                """)
        let r = try read(path)
        #expect(Set(r.users) == ["\\xFFA", "\\xFEA"], "\(r.users)")
        #expect(Set(r.rejects.map(\.line)) == [3, 4])
        #expect(r.rejects.contains { $0.line == 3 && $0.reason.contains("NUL byte") })
        #expect(r.rejects.contains { $0.line == 4 && $0.reason.contains("not UTF-8") })
        #expect(r.apps.contains("com.b"))  // a BLOB of text is its text
        // 6 rows: 3 launches and their 3 closes (derived), 1 sample, 2 rejected: none unaccounted.
        let inserted = r.usage.count + r.context.count
        #expect(r.counts.rows + r.counts.derived == inserted + r.counts.rejected + r.counts.merged + r.counts.excluded)
    }

    @Test func olderStoresWithoutOffsetsOrSourcesAreRead() throws {
        let path = dir.path("old.db")
        let db = try SQLiteConnection(path)
        try db.execute(
            """
            CREATE TABLE ZOBJECT (Z_PK INTEGER PRIMARY KEY, ZSTREAMNAME VARCHAR, ZSTARTDATE TIMESTAMP, ZENDDATE TIMESTAMP,
              ZVALUESTRING VARCHAR, ZVALUEINTEGER INTEGER);
            INSERT INTO ZOBJECT VALUES (1, '/app/inFocus', \(KnowledgeStoreFixture.coreData("2018-05-01T10:00:00Z")),
              \(KnowledgeStoreFixture.coreData("2018-05-01T10:01:00Z")), 'com.old', NULL);
            INSERT INTO ZOBJECT VALUES (2, '/device/batteryPercentage', \(KnowledgeStoreFixture.coreData("2018-05-01T10:00:00Z")),
              NULL, NULL, 80);
            """)
        let r = try read(path)
        #expect(r.users == ["old"])
        #expect(r.usage.map(\.utcOffset) == [nil, nil])
        #expect(r.context.map(\.battery) == [80])
    }

    @Test func missingStreamsReadAsNothing() throws {
        let path = try store([])
        let r = try read(path)
        #expect(r.usage.isEmpty && r.context.isEmpty && r.rejects.isEmpty)
    }

    @Test(arguments: ["ZSTARTDATE", "ZVALUESTRING", "ZSTREAMNAME"])
    func aMissingColumnIsNamed(column: String) throws {
        let path = try store(
            [], sql: "DROP INDEX ZOBJECT_ZSTREAMNAME_ZSTARTDATE_ZENDDATE; ALTER TABLE ZOBJECT DROP COLUMN \(column);")
        #expect {
            _ = try read(path)
        } throws: { error in
            "\(error)" == "\(path): unknown Knowledge store version: table ZOBJECT has no \(column) column"
        }
    }

    @Test func aSQLiteFileWithoutZOBJECTIsNotAKnowledgeStore() throws {
        let path = dir.path("other.sqlite")
        try SQLiteConnection(path).execute("CREATE TABLE t (x); INSERT INTO t VALUES (1);")
        #expect {
            _ = try read(path)
        } throws: { error in
            "\(error)" == "\(path): a SQLite database but not a Knowledge store (no ZOBJECT table)"
        }
    }

    @Test func aGzippedStoreIsInflatedToATemporaryFileThatGoes() throws {
        let plain = try store([
            O(1, "/app/inFocus", start: "2024-03-01T10:00:00Z", end: "2024-03-01T10:01:00Z", string: "com.a")
        ])
        let path = try dir.write("knowledgeC.db.gz", try gzip(Data(contentsOf: URL(fileURLWithPath: plain))))
        func drain() throws -> String? {
            let reader = try #require(try openRecordSource(path: path) as? KnowledgeStoreReader)
            #expect(reader.compression == .gzip)
            let scratch = try #require(reader.scratchDirectory)
            #expect(FileManager.default.fileExists(atPath: scratch))
            var launches = 0
            while let batch = try reader.nextBatch() { launches += batch.usage.filter { $0.kind == .launch }.count }
            #expect(launches == 1)
            #expect(reader.contentSHA256 == (try SHA256.hexDigest(ofFile: path)))
            return scratch
        }
        let scratch = try #require(try drain())
        #expect(!FileManager.default.fileExists(atPath: scratch))
    }

    /// A live store's copy: rows only in the `-wal` are read, and neither file changes.
    @Test(arguments: [false, true])
    func aCopyWithItsWALIsReadWithoutChangingIt(withSHM: Bool) throws {
        let live = dir.path("live.db")
        let db = try SQLiteConnection(live)
        try db.execute("PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0;")
        try db.execute(try KnowledgeStoreFixture.schema())
        try db.execute("PRAGMA wal_checkpoint(TRUNCATE);")
        try db.execute(
            KnowledgeStoreFixture.insert(
                O(1, "/app/inFocus", start: "2024-03-01T10:00:00Z", end: "2024-03-01T10:01:00Z", string: "com.wal")))
        // Copy while the connection is open: the row is only in the WAL.
        let copyDir = dir.path("copy")
        try FileManager.default.createDirectory(atPath: copyDir, withIntermediateDirectories: true)
        let copy = copyDir + "/knowledgeC.db"
        for suffix in withSHM ? ["", "-wal", "-shm"] : ["", "-wal"] {
            try FileManager.default.copyItem(atPath: live + suffix, toPath: copy + suffix)
        }
        let before = try snapshot(copyDir)
        let r = try read(copy)
        #expect(r.apps == ["com.wal"])
        #expect(r.usage.count == 2)
        let after = try snapshot(copyDir)
        // The database and its WAL are byte for byte the same, with the same mtime; no file appears.
        #expect(after.keys.sorted() == before.keys.sorted())
        for name in ["knowledgeC.db", "knowledgeC.db-wal"] { #expect(after[name] == before[name], "\(name)") }
        _ = db
    }

    @Test func thePlainFileIsUnchanged() throws {
        let path = try store([
            O(1, "/app/inFocus", start: "2024-03-01T10:00:00Z", end: "2024-03-01T10:01:00Z", string: "com.a")
        ])
        let before = try snapshot(dir.url.path)
        _ = try read(path)
        #expect(try snapshot(dir.url.path) == before)
    }

    /// Each file's bytes and modification time.
    func snapshot(_ directory: String) throws -> [String: [String]] {
        var out: [String: [String]] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
            let path = directory + "/" + name
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir), !isDir.boolValue else { continue }
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            let mtime = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
            out[name] = [try SHA256.hexDigest(ofFile: path), "\(mtime)"]
        }
        return out
    }
}
