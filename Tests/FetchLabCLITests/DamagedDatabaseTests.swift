import Foundation
import GRDB
import Testing
import _FetchLabTestSupport

/// Every command refuses a damaged database the way import does — one line with the recovery
/// command, exit 1 — and leaves it exactly as it was, with no new file beside it.
@Suite struct DamagedDatabaseTests {
    let dir = TemporaryDirectory()

    /// A database of some size with four pages in the middle overwritten (header and roots intact).
    func damaged() throws -> String {
        let db = dir.path("damaged.sqlite")
        var text = "timestamp,user,app\n"
        for i in 0..<40_000 { text += "\(1_709_294_400 + i * 30),u\(i % 50),com.app\(i % 17)\n" }
        let file = try dir.write("big.csv", text)
        #expect(try dir.fetchlab(["import", "--db", db, file]).status == 0)
        #expect(try dir.fetchlab(["compare", "--db", db, "--policies", "never"]).status == 0)
        let (pageSize, roots) = try {
            let queue = try DatabaseQueue(path: db)
            defer { try? queue.close() }
            return try queue.read { d in
                (
                    try Int.fetchOne(d, sql: "PRAGMA page_size") ?? 4096,
                    try Set(Int.fetchAll(d, sql: "SELECT rootpage FROM sqlite_master WHERE rootpage > 0"))
                )
            }
        }()
        let handle = try #require(FileHandle(forUpdatingAtPath: db))
        defer { try? handle.close() }
        let pages = Int(try handle.seekToEnd()) / pageSize
        var draws = SeededDraws(seed: 7)
        for page in (pages / 2)..<(pages / 2 + 4) where !roots.contains(page) && page > 1 {
            try handle.seek(toOffset: UInt64((page - 1) * pageSize))
            handle.write(
                Data(
                    (0..<pageSize).map { _ in
                        let x = draws.next()
                        return UInt8(truncatingIfNeeded: x >> 33)
                    }))
        }
        return db
    }

    @Test func everyCommandRefusesItInOneLineAndLeavesItAsItWas() throws {
        let db = try damaged()
        for suffix in ["-wal", "-shm"] { unlink(db + suffix) }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: db))
        let listing = try FileManager.default.contentsOfDirectory(atPath: dir.url.path).sorted()
        for command in [
            ["inspect"], ["describe"], ["compare", "--policies", "never"], ["tune", "--family", "fixed"],
            ["predict"], ["report", "--output", dir.path("r.html")], ["runs"],
        ] {
            let r = try dir.fetchlab(command + ["--db", db])
            #expect(r.status == 1, "\(command): \(r.status) \(r.err)")
            #expect(r.err.split(separator: "\n").count == 1, "\(command): \(r.err)")
            #expect(r.err.contains("the database is damaged") && r.err.contains("sqlite3"), "\(command): \(r.err)")
            #expect(!r.err.contains("SELECT"), "\(command): \(r.err)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == bytes, "\(command)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.path).sorted() == listing, "\(command)")
        }
    }
}
