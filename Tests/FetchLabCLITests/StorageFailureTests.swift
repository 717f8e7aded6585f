import Foundation
import GRDB
import Testing
import _FetchLabTestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A full disk and a read-only database: a clear one-line error, the database unchanged.
@Suite(.serialized) struct StorageFailureTests {
    let dir = TemporaryDirectory()

    func counts(_ path: String) throws -> [Int] {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            try ["usage_event", "import", "app", "user"].map {
                try Int.fetchOne(db, sql: "SELECT count(*) FROM \($0)") ?? -1
            }
        }
    }

    func seeded() throws -> (db: String, big: String) {
        let db = dir.path("store.sqlite")
        let small = try dir.write("small.csv", "timestamp,user,app\n2024-03-01T12:00:00Z,u1,com.a\n")
        let first = try dir.fetchlab(["import", "--db", db, small])
        #expect(first.status == 0, "\(first.err)")
        var text = "timestamp,user,app\n"
        for i in 0..<150_000 { text += "\(1_709_294_400 + i),u\(i % 97),com.app\(i % 31)\n" }
        return (db, try dir.writeGzip("big.csv.gz", text))
    }

    @Test func aFullDiskIsAClearErrorAndChangesNothing() throws {
        let (db, big) = try seeded()
        let before = try counts(db)
        // Files may not grow past ~300 KB for this process (and writes fail instead of killing it).
        let result = try run(
            "/bin/sh",
            ["-c", "trap '' XFSZ; ulimit -f 600; exec \"$0\" import --db \"$1\" \"$2\"", fetchlabBinary(), db, big])
        #expect(result.status == 1, "\(result.out) \(result.err)")
        let lines = result.err.split(separator: "\n")
        #expect(lines.count == 1, "\(result.err)")
        #expect(result.err.hasPrefix("fetchlab: error: "))
        #expect(result.err.contains(db) || result.err.contains("big.csv.gz"))
        #expect(
            result.err.contains("full") || result.err.contains("I/O") || result.err.contains("large"), "\(result.err)")
        #expect(!result.err.contains("Fatal error"))
        #expect(try counts(db) == before)
        let again = try dir.fetchlab(["import", "--db", db, big])
        #expect(again.status == 0, "\(again.err)")
        #expect(try counts(db)[0] == before[0] + 150_000)
    }

    @Test func aReadOnlyDatabaseIsAClearErrorAndChangesNothing() throws {
        let (db, big) = try seeded()
        let before = try counts(db)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: db))
        let result: ProcessResult
        if getuid() == 0 {
            // Root ignores file modes: run as nobody, who may read but not write.
            chmod(dir.url.path, 0o755)
            chmod(big, 0o644)
            result = try fetchlabAsNobody(["import", "--db", db, big])
        } else {
            chmod(db, 0o444)
            chmod(dir.url.path, 0o555)
            defer { chmod(dir.url.path, 0o755) }
            result = try dir.fetchlab(["import", "--db", db, big])
        }
        #expect(result.status != 0, "\(result.err)")
        #expect(result.err.split(separator: "\n").count == 1, "\(result.err)")
        #expect(result.err.hasPrefix("fetchlab: error: \(db)"), "\(result.err)")
        #expect(result.err.contains("readonly") && result.err.contains("writable"), "\(result.err)")
        #expect(!result.err.contains("SELECT"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == bytes)
        #expect(try counts(db) == before)
    }
}
