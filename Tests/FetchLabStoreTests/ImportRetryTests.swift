import FetchLabCore
import FetchLabIngest
import FetchLabResults
import Foundation
import GRDB
import Testing
import _FetchLabTestSupport

@testable import FetchLabStore

/// "The same import" is the same content read with the same options, and only when it gave rows.
@Suite struct ImportRetryTests {
    /// Epoch milliseconds: read as microseconds they are in 1970, so every row is rejected.
    let milliseconds = "timestamp,user,app\n1709294400000,u1,com.a\n1709294460000,u1,com.b\n"

    func options(_ configure: (inout ReadOptions) -> Void) -> ReadOptions {
        var o = ReadOptions()
        configure(&o)
        return o
    }

    @Test func aFileWithEveryRowRejectedDoesNotBlockARetry() throws {
        let f = try Fixture()
        let path = try f.dir.write("ms.csv", milliseconds)
        let wrong = options { $0.epochUnit = .microseconds }
        let first = try f.importer.importFile(path, options: wrong)
        #expect(first.status == .nothingAccepted)
        #expect(first.counts.rejected == 2)
        // The attempt is recorded with its rejects, for inspection.
        #expect(try UsageQueries(database: f.db).rejects(ofImport: first.importID).map(\.line) == [2, 3])
        // The same options again: read again (and rejected again), not "unchanged".
        let again = try f.importer.importFile(path, options: wrong)
        #expect(again.status == .nothingAccepted)
        #expect(again.importID != first.importID)
        // Fixed options: imported.
        let fixed = try f.importer.importFile(path, options: options { $0.epochUnit = .milliseconds })
        #expect(fixed.status == .imported)
        #expect(fixed.inserted.usageEvents == 2)
        #expect(try f.count("usage_event") == 2)
    }

    @Test func theSameBytesReadWithOtherOptionsAreAnotherImport() throws {
        let f = try Fixture()
        let path = try f.dir.write("local.csv", "timestamp,user,app\n2024-03-01 12:00:00,u1,com.a\n")
        let utc = try f.importer.importFile(path)
        #expect(utc.status == .imported)
        #expect(try f.importer.importFile(path).status == .unchanged)
        let berlin = options { $0.timeZone = TimeZone(identifier: "Europe/Berlin") }
        let local = try f.importer.importFile(path, options: berlin)
        #expect(local.status == .imported)
        #expect(local.inserted.usageEvents == 1)  // 11:00Z, another instant than 12:00Z
        #expect(try f.importer.importFile(path, options: berlin).status == .unchanged)
        // The in-transaction check (standard input, or a hash that could not be read first) agrees.
        let stdinLike = try f.db.writer.read { db in
            try Importer.sameImport(
                contentSHA256: try Importer.sha256(ofFile: path), fingerprint: ReadFingerprint.of(berlin)
            ).fetchAll(db)
        }
        #expect(stdinLike.map(\.id) == [local.importID])
    }

    @Test func forceReadsAgainAndStoresNothingTwice() throws {
        let f = try Fixture()
        let path = try f.dir.writeGzip(
            "u.csv.gz",
            "timestamp,user,app\n2024-03-01T12:00:00Z,u1,com.a\n2024-03-01T13:00:00Z,u1,com.b\n2024-03-01T13:00:00Z,u1,com.b\n"
        )
        let first = try f.importer.importFile(path)
        #expect(first.inserted.usageEvents == 2 && first.counts.duplicate == 1)
        #expect(try f.importer.importFile(path).status == .unchanged)
        let forced = try f.importer.importFile(path, force: true)
        #expect(forced.status == .imported)
        #expect(forced.importID != first.importID)
        #expect(forced.inserted.total == 0)
        #expect(forced.counts.duplicate == 3)
        #expect(forced.unaccounted == 0)
        #expect(try f.count("usage_event") == 2)
        #expect(try f.count("import") == 2)
    }

    /// Every option that changes what is read changes the fingerprint; the others do not.
    @Test func theFingerprintCoversTheReadingOptions() {
        let base = ReadFingerprint.of(ReadOptions())
        let changes: [(String, (inout ReadOptions) -> Void)] = [
            ("format", { $0.format = .usage }),
            ("raw deflate", { $0.rawDeflate = true }),
            ("time zone", { $0.timeZone = TimeZone(identifier: "Europe/Berlin") }),
            ("epoch unit", { $0.epochUnit = .milliseconds }),
            ("column map", { $0.columnMap = ["ts": "timestamp"] }),
            ("user", { $0.user = "pat" }),
            ("session gap", { $0.sessionGap = .minutes(Int64(2)) }),
            ("reorder window", { $0.reorderWindow = .hours(2) }),
            ("excludes", { $0.excludedApps = ["*launcher*"] }),
            ("keep system apps", { $0.keepSystemApps = true }),
            ("earliest", { $0.earliest = 0 }),
            ("latest", { $0.latest = .epoch + .days(365) }),
        ]
        var seen: Set<String> = [base]
        for (name, change) in changes {
            let fingerprint = ReadFingerprint.of(options(change))
            #expect(!seen.contains(fingerprint), "\(name) does not change the fingerprint")
            seen.insert(fingerprint)
        }
        // Failing or not, batching: the same rows when the file is read.
        #expect(ReadFingerprint.of(options { $0.strict = true }) == base)
        #expect(ReadFingerprint.of(options { $0.batchSize = 10 }) == base)
        #expect(ReadFingerprint.of(options { $0.maxRatio = nil }) == base)
        #expect(ReadFingerprint.of(options { $0.maxDecompressedBytes = 1 << 30 }) == base)
        // Canonical: the order of the excludes does not matter.
        #expect(
            ReadFingerprint.of(options { $0.excludedApps = ["a", "b"] })
                == ReadFingerprint.of(options { $0.excludedApps = ["b", "a"] }))
    }

    /// A database of the previous schema (v2) gains the columns; its imports, which have no
    /// fingerprint, never block a new read, whose rows are then duplicates.
    @Test func migratesADatabaseOfSchemaV2() throws {
        let dir = TemporaryDirectory()
        let path = dir.path("v2.sqlite")
        let file = try dir.write("u.csv", "timestamp,user,app\n2024-03-01T12:00:00Z,u,a\n")
        let size = try #require(
            (try FileManager.default.attributesOfItem(atPath: file)[.size] as? NSNumber)?.int64Value)
        do {
            let queue = try DatabaseQueue(path: path)
            try Schema.migrator.migrate(queue, upTo: "v2: Background App Refresh events")
            try queue.write { db in
                try db.execute(
                    sql: "INSERT INTO user (id, name) VALUES (1, 'u'); INSERT INTO app (id, name) VALUES (1, 'a')")
                try db.execute(
                    sql: """
                        INSERT INTO import (id, path, content_sha256, format, bytes, decompressed_bytes, rows_read,
                                            rows_accepted, records_inserted, started_at, finished_at)
                        VALUES (1, ?, ?, 'usage', ?, ?, 1, 1, 1, '', '');
                        INSERT INTO usage_event VALUES (1, 1, 1709294400000000, 0, 0, 1);
                        """, arguments: [file, try Importer.sha256(ofFile: file), size, size])
            }
            try queue.close()
        }
        let db = try FetchLabDatabase(path: path)
        #expect(try db.writer.read { try Schema.migrator.appliedMigrations($0) }.last == Schema.v8)
        let old = try #require(try UsageQueries(database: db).imports().first)
        #expect(old.readFingerprint == nil)
        #expect(old.counts.merged == 0 && old.counts.rows == 1)
        let merged = try db.writer.read { try Int.fetchOne($0, sql: "SELECT rows_merged FROM imports") }
        #expect(merged == 0)
        let again = try Importer(database: db).importFile(file)
        #expect(again.status == .imported)
        #expect(again.inserted.total == 0 && again.counts.duplicate == 1)
        #expect(try Importer(database: db).importFile(file).status == .unchanged)
    }
}

/// The importer's cold-path records and an injected (in-memory) database.
@Suite struct RecordTests {
    @Test func importsASmallFileIntoAnInMemoryDatabase() throws {
        let dir = TemporaryDirectory()
        let db = try FetchLabDatabase(writer: try DatabaseQueue())
        let path = try dir.write(
            "u.csv", "timestamp,user,app\n2024-03-01T12:00:00Z,u1,com.a\nbad,u1,com.a\n2024-03-01T13:00:00Z,u2,com.b\n")
        let summary = try Importer(database: db).importFile(path)
        #expect(summary.status == .imported)
        #expect(summary.inserted.usageEvents == 2)
        #expect(try db.writer.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM usage_event") } == 2)
        #expect(try UsageQueries(database: db).appUsage().map(\.user) == ["u1", "u2"])
        #expect(try Importer(database: db).importFile(path).status == .unchanged)
    }

    @Test func theStoredImportIsWhatTheSummarySaid() throws {
        let f = try Fixture()
        let path = try f.dir.writeGzip(
            "u.csv.gz", "timestamp,user,app\n2024-03-01T12:00:00Z,u1,com.a\nnope,u1,com.a\n17x,u1,com.b\n")
        let summary = try f.importer.importFile(
            path,
            options: {
                var o = ReadOptions(); o.user = "pat"; return o
            }())
        let queries = UsageQueries(database: f.db)
        let record = try #require(try queries.imports().first)
        #expect(record.id == summary.importID)
        #expect(record.path == path)
        #expect(record.counts == summary.counts)
        #expect(record.recordsInserted == summary.inserted.total)
        #expect(record.bytes == summary.bytes && record.decompressedBytes == summary.decompressedBytes)
        #expect(record.compression == "gzip" && record.format == "usage" && record.syntax == "csv")
        #expect(record.contentSHA256 == (try Importer.sha256(ofFile: path)))
        #expect(
            record.readFingerprint
                == ReadFingerprint.of(
                    {
                        var o = ReadOptions(); o.user = "pat"; return o
                    }()))
        #expect(record.options.contains("\"user\":\"pat\""))
        #expect(record.finishedAt != nil)
        #expect(try queries.rejects(ofImport: summary.importID) == summary.firstRejects)
        #expect(try queries.rejects(ofImport: summary.importID, limit: 1).map(\.line) == [3])
    }

    @Test func refusesAnotherApplicationsDatabaseGivenAsAWriter() throws {
        let queue = try DatabaseQueue()
        try queue.write { try $0.execute(sql: "CREATE TABLE t(x)") }
        #expect {
            _ = try FetchLabDatabase(writer: queue, path: "other")
        } throws: { error in
            (error as? StoreError)?.code == .notFetchLab && "\(error)".hasPrefix("other: ")
        }
    }
}

/// Every row read is new, duplicate, rejected, excluded or merged into a session.
@Suite struct SummaryArithmeticTests {
    @Test func mergedRowsAreAccountedFor() {
        var counts = ReadCounts()
        counts.rows = 1_000
        counts.accepted = 990
        counts.rejected = 10
        counts.duplicate = 400
        counts.excluded = 537 - 400
        counts.merged = 39
        var summary = ImportSummary(
            path: "f.csv.gz", status: .imported, importID: 1, format: .foreground, bytes: 1, counts: counts,
            inserted: .init(usageEvents: 1_000 - 10 - 400 - 137 - 39))
        #expect(summary.unaccounted == 0)
        summary.counts.merged = 0  // what a reader that does not count them would report
        #expect(summary.unaccounted == 39)
    }

    @Test func readCountsAddMerged() {
        var a = ReadCounts()
        a.merged = 2
        var b = ReadCounts()
        b.merged = 3
        a += b
        #expect(a.merged == 5)
    }
}
