import FetchLabCore
import GRDB
import Testing
import _FetchLabTestSupport

@testable import FetchLabStore

/// An instant goes into a `time` column as its microseconds since 1970 and comes back the same,
/// through the statement's column (`Instant.fetchAll`) and through a row.
@Suite struct InstantColumnTests {
    @Test func anInstantIsStoredAsItsMicrosecondsAndReadBack() throws {
        let db = try DatabaseQueue()
        let times = [Instant(sinceEpoch: 1_710_913_800_000_123), Instant(sinceEpoch: -1), .epoch]
        try db.write { db in
            try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, time INTEGER NOT NULL)")
            for t in times { try db.execute(sql: "INSERT INTO t(time) VALUES (?)", arguments: [t]) }
        }
        try db.read { db in
            #expect(try Int64.fetchAll(db, sql: "SELECT time FROM t ORDER BY id") == times.map(\.sinceEpoch.value))
            #expect(try Instant.fetchAll(db, sql: "SELECT time FROM t ORDER BY id") == times)
            let row = try #require(try Row.fetchOne(db, sql: "SELECT MIN(time), MAX(time) FROM t"))
            #expect(row[0] as Instant == Instant(sinceEpoch: -1))
            #expect(row[1] as Instant? == times[0])
            #expect(
                try Instant.fetchOne(db, sql: "SELECT time FROM t WHERE time < ?", arguments: [Instant.epoch]) == -1)
        }
    }
}
