import Foundation
import GRDB
import Testing
import _FetchLabTestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `fetchlab import` killed with SIGKILL at random moments never corrupts the database, never
/// leaves half a file, and a re-run ends with exactly what an uninterrupted import stores.
@Suite(.serialized) struct CrashSafetyTests {
    let dir = TemporaryDirectory()

    struct Counts: Equatable, CustomStringConvertible {
        var events: Int
        var imports: Int
        var rejects: Int
        var description: String { "\(events) events, \(imports) imports, \(rejects) rejects" }
    }

    func counts(_ path: String) throws -> Counts {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            // Killed after SQLite created the file but before the schema was committed: nothing stored.
            guard try db.tableExists("usage_event") else { return Counts(events: 0, imports: 0, rejects: 0) }
            return Counts(
                events: try Int.fetchOne(db, sql: "SELECT count(*) FROM usage_event") ?? -1,
                imports: try Int.fetchOne(db, sql: "SELECT count(*) FROM import") ?? -1,
                rejects: try Int.fetchOne(db, sql: "SELECT count(*) FROM rejected_row") ?? -1)
        }
    }

    func integrity(_ path: String) throws -> String {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { try String.fetchOne($0, sql: "PRAGMA integrity_check") ?? "" }
    }

    /// Two gzip'd logs with some bad rows, big enough that an import takes a while.
    func logs() throws -> [String] {
        var paths: [String] = []
        for (k, rows) in [(0, 120_000), (1, 60_000)] {
            var text = "timestamp,user,app,event\n"
            text.reserveCapacity(rows * 48)
            var x: UInt64 = 0x1234_5678 &+ UInt64(k)
            for i in 0..<rows {
                x = x &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                if i % 10_007 == 5 {
                    text += "not a time,u1,com.app,launch\n"
                    continue
                }
                text += "\(1_709_294_400 + i * 3 + k),u\(Int(x >> 40) % 300),com.app\(Int(x >> 52) % 40),launch\n"
            }
            paths.append(try dir.writeGzip("log\(k).csv.gz", text))
        }
        return paths
    }

    @Test func killedImportsLeaveTheDatabaseWholeAndRerunsCountExactlyOnce() throws {
        let files = try logs()
        let reference = dir.path("reference.sqlite")
        let done = try run(fetchlabBinary(), ["import", "--db", reference] + files)
        #expect(done.status == 0, "\(done.err)")
        let expected = try counts(reference)
        #expect(expected.events > 150_000 && expected.imports == 2 && expected.rejects > 10)

        // How long an uninterrupted import takes, to spread the kills over it.
        let timing = dir.path("timing.sqlite")
        let clock = ContinuousClock()
        let started = clock.now
        _ = try run(fetchlabBinary(), ["import", "--db", timing] + files)
        let d = clock.now - started
        let measured = max(0.05, Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18)

        var rng = SplitMix64(seed: 20_261_123)
        var killedWhileRunning = 0
        // Rounds until 20 imports have been killed while running (an import that wins the race
        // and finishes is checked all the same); the delays shrink when imports run faster.
        var round = 0
        var span = measured
        while killedWhileRunning < 20 && round < 60 {
            defer { round += 1 }
            // A fresh database each round, killed at a random moment of its import.
            let db = dir.path("killed-\(round).sqlite")
            let process = Process()
            process.executableURL = URL(fileURLWithPath: fetchlabBinary())
            process.arguments = ["import", "--db", db] + files
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            let delay = Double(rng.next() % 1000) / 1000 * span * 0.9
            usleep(UInt32(delay * 1_000_000))
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                killedWhileRunning += 1
            } else {
                span *= 0.8
            }
            process.waitUntilExit()
            guard FileManager.default.fileExists(atPath: db) else { continue }  // killed before creating it
            #expect(try integrity(db) == "ok", "round \(round)")
            // All of a file or none of it: 0 events, the first file's, or both files'.
            let now = try counts(db)
            let firstFile = expected.events - 60_000 + 6
            #expect([0, firstFile, expected.events].contains(now.events), "round \(round): \(now)")
            // Re-running finishes the job: exactly the uninterrupted import's rows, nothing doubled.
            let again = try run(fetchlabBinary(), ["import", "--db", db] + files)
            #expect(again.status == 0, "round \(round): \(again.err)")
            #expect(try counts(db) == expected, "round \(round)")
            #expect(try integrity(db) == "ok", "round \(round)")
        }
        #expect(killedWhileRunning == 20)
    }
}
