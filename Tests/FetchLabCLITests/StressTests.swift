import Foundation
import GRDB
import Testing
import _FetchLabTestSupport

/// Many `fetchlab import` processes started together into one database, new or existing: every
/// one of them succeeds (they wait for each other's lock) and every row is stored exactly once.
/// Repeated rounds provoke the races of creating the schema; no outcome depends on timing.
@Suite(.serialized) struct StressTests {
    let dir = TemporaryDirectory()
    static let processes = 8
    static let rounds = 8
    static let rowsPerFile = 1_500

    /// One file per process, each with its own users, so the files' events never overlap.
    func files() throws -> [String] {
        try (0..<Self.processes).map { k in
            var text = "timestamp,user,app,event\n"
            for i in 0..<Self.rowsPerFile {
                text += "\(1_709_294_400 + i * 11),p\(k)u\(i % 13),com.app\(i % 23),launch\n"
            }
            return try dir.writeGzip("p\(k).csv.gz", text)
        }
    }

    /// Starts one import per file at once and waits for all of them.
    func importTogether(_ db: String, _ files: [String]) throws -> [(status: Int32, err: String)] {
        let processes = files.map { file in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: fetchlabBinary())
            process.arguments = ["import", "--db", db, file]
            process.standardOutput = FileHandle.nullDevice
            let err = Pipe()
            process.standardError = err
            return (process, err)
        }
        for (process, _) in processes { try process.run() }
        return processes.map { process, err in
            let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return (process.terminationStatus, text)
        }
    }

    func counts(_ db: String) throws -> (events: Int, distinct: Int, imports: Int, integrity: String) {
        let queue = try DatabaseQueue(path: db)
        defer { try? queue.close() }
        return try queue.read { db in
            (
                try Int.fetchOne(db, sql: "SELECT count(*) FROM usage_event") ?? -1,
                try Int.fetchOne(
                    db, sql: "SELECT count(*) FROM (SELECT DISTINCT user_id, app_id, time, kind FROM usage_event)")
                    ?? -1,
                try Int.fetchOne(db, sql: "SELECT count(*) FROM import") ?? -1,
                try String.fetchOne(db, sql: "PRAGMA quick_check") ?? ""
            )
        }
    }

    @Test func concurrentImportsIntoANewDatabaseAllSucceed() throws {
        let files = try files()
        for round in 0..<Self.rounds {
            let db = dir.path("new-\(round).sqlite")
            let results = try importTogether(db, files)
            for (k, result) in results.enumerated() {
                #expect(result.status == 0, "round \(round), process \(k): \(result.err)")
            }
            let c = try counts(db)
            #expect(c.events == Self.processes * Self.rowsPerFile && c.distinct == c.events, "round \(round)")
            #expect(c.imports == Self.processes && c.integrity == "ok", "round \(round)")
        }
    }

    @Test func concurrentImportsIntoAnExistingDatabaseAllSucceed() throws {
        let files = try files()
        let seed = try dir.write("seed.csv", "timestamp,user,app\n2024-03-01T12:00:00Z,seed,com.seed\n")
        for round in 0..<Self.rounds {
            let db = dir.path("existing-\(round).sqlite")
            let first = try dir.fetchlab(["import", "--db", db, seed])
            #expect(first.status == 0, "\(first.err)")
            let results = try importTogether(db, files)
            for (k, result) in results.enumerated() {
                #expect(result.status == 0, "round \(round), process \(k): \(result.err)")
            }
            let c = try counts(db)
            #expect(c.events == Self.processes * Self.rowsPerFile + 1 && c.distinct == c.events, "round \(round)")
            #expect(c.imports == Self.processes + 1 && c.integrity == "ok", "round \(round)")
            // The same files again, all at once: nothing doubles.
            let again = try importTogether(db, files)
            #expect(again.allSatisfy { $0.status == 0 }, "round \(round): \(again.map(\.err))")
            #expect(try counts(db).events == c.events, "round \(round)")
        }
    }
}
