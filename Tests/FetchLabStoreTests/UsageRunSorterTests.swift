import FetchLabCore
import FetchLabIngest
import FetchLabResults
import Foundation
import Testing
import _FetchLabTestSupport

@testable import FetchLabStore

@Suite struct UsageRunSorterTests {
    func rows(_ n: Int, seed: UInt64) -> [UsageEvent] {
        var rng = SplitMix64(seed: seed)
        return (0..<n).map { _ in
            UsageEvent(
                time: Instant(sinceEpoch: Microseconds(Int64.random(in: 0..<1_000, using: &rng))),
                user: Int32.random(in: 0..<5, using: &rng),
                app: Int32.random(in: 0..<4, using: &rng), kind: UsageEventKind.allCases.randomElement(using: &rng)!,
                utcOffset: Bool.random(using: &rng) ? nil : 3600)
        }
    }

    func drained(_ sorter: UsageRunSorter) throws -> [UsageEvent] {
        var out: [UsageEvent] = []
        try sorter.drain { out.append(contentsOf: $0) }
        return out
    }

    @Test(arguments: [1, 7, 100, 5_000, 1 << 19])
    func drainsEveryRowInKeyOrderWhateverTheRunSize(runCapacity: Int) throws {
        let input = rows(3_001, seed: 42)
        let sorter = UsageRunSorter(runCapacity: runCapacity)
        for row in input { try sorter.append(row) }
        #expect(sorter.count == input.count)
        #expect(sorter.spilledRuns == (runCapacity >= input.count ? 0 : input.count / runCapacity))
        let output = try drained(sorter)
        // The same multiset, in key order (ties in the key may come in any order).
        #expect(output.count == input.count)
        #expect(zip(output, output.dropFirst()).allSatisfy { !UsageRunSorter.precedes($1, $0) })
        let key = { (r: UsageEvent) in "\(r.user) \(r.app) \(r.time.sinceEpoch) \(r.kind.rawValue) \(r.utcOffset ?? -1)"
        }
        #expect(output.map(key).sorted() == input.map(key).sorted())
        // Drained means empty: the sorter can be reused.
        #expect(sorter.count == 0)
        #expect(try drained(sorter).isEmpty)
    }

    /// Rows with the same key (here differing only in their UTC offset) come out in the order
    /// they were added, however many runs they spill into; so `INSERT OR IGNORE` keeps the
    /// first of them, as it does when nothing spills.
    @Test(arguments: [1, 3, 1 << 19])
    func equalKeysComeOutInTheOrderAdded(runCapacity: Int) throws {
        let sorter = UsageRunSorter(runCapacity: runCapacity)
        let offsets = (0..<40).map { Int32($0 * 60) }
        // Interleaved with other keys, so that runs hold more than the tied rows.
        for (i, offset) in offsets.enumerated() {
            try sorter.append(UsageEvent(time: 500, user: 1, app: 2, kind: .launch, utcOffset: offset))
            try sorter.append(
                UsageEvent(
                    time: Instant(sinceEpoch: Microseconds(Int64(999 - i))), user: 1, app: 2, kind: .launch,
                    utcOffset: nil))
        }
        let output = try drained(sorter)
        let tied = output.filter { $0.time == 500 }
        #expect(tied.map(\.utcOffset) == offsets)
        #expect(output.count == 2 * offsets.count)
        #expect(zip(output, output.dropFirst()).allSatisfy { !UsageRunSorter.precedes($1, $0) })
    }

    @Test func aMissingTemporaryDirectoryIsAClearError() throws {
        let sorter = UsageRunSorter(runCapacity: 2, temporaryDirectory: "/nonexistent-fetchlab-dir")
        try sorter.append(rows(1, seed: 1)[0])
        let error = #expect(throws: StoreError.self) { try sorter.append(rows(1, seed: 2)[0]) }
        #expect(error?.message.contains("/nonexistent-fetchlab-dir") == true)
    }

    /// Imports `text` (a usage CSV) into a fresh database once per sorter run size of `runRows`:
    /// each import's summary, and the rows `stored` selects afterwards.
    func importEachWay(_ text: String, runRows: [Int], stored: String) throws -> ([[String]], [ImportSummary]) {
        var results: [[String]] = []
        var summaries: [ImportSummary] = []
        for rows in runRows {
            let f = try Fixture()
            var importer = f.importer
            importer.sortRunRows = rows
            summaries.append(try importer.importFile(try f.dir.write("u.csv", text)))
            results.append(try f.rows(stored).map { "\($0)" })
        }
        return (results, summaries)
    }

    /// An import whose rows spill into many runs stores exactly what an in-memory one does,
    /// and counts duplicates that fall into different runs.
    @Test func spillingImportMatchesInMemoryImport() throws {
        var lines = ["timestamp,user,app,event"]
        var rng = SplitMix64(seed: 7)
        for _ in 0..<20_000 {
            let t = 1_709_294_400 + Int.random(in: 0..<86_400, using: &rng)
            lines.append(
                "\(t),u\(Int.random(in: 0..<30, using: &rng)),com.app\(Int.random(in: 0..<9, using: &rng)),launch")
        }
        lines += lines[1...500]  // exact duplicates, far from their originals
        let text = lines.joined(separator: "\n") + "\n"
        let (results, summaries) = try importEachWay(
            text, runRows: [1 << 19, 333], stored: "SELECT user, app, time_us, event FROM usage_events ORDER BY 1, 2, 3"
        )
        #expect(results[0] == results[1])
        #expect(summaries[0].inserted.usageEvents == summaries[1].inserted.usageEvents)
        #expect(summaries[1].counts.duplicate == summaries[0].counts.duplicate)
        #expect(summaries[1].counts.duplicate >= 500)
        #expect(summaries[1].inserted.usageEvents + summaries[1].counts.duplicate == 20_500)
    }

    /// `users` users one after the other (a device's log, a generated population), each with
    /// `perUser` rows in any order of app and time, some of them the same key with another offset.
    func userOrderedRows(users: Int, perUser: Int, seed: UInt64) -> [UsageEvent] {
        var rng = SplitMix64(seed: seed)
        return (0..<users).flatMap { user in
            (0..<perUser).map { _ in
                UsageEvent(
                    time: Instant(sinceEpoch: Microseconds(Int64.random(in: 0..<60, using: &rng))), user: Int32(user),
                    app: Int32.random(in: 0..<3, using: &rng), kind: .launch,
                    utcOffset: Int32.random(in: 0..<4, using: &rng) * 3600)
            }
        }
    }

    /// Passed and drained rows, in the order the table would receive them, with the rows passed
    /// and the runs spilled before the drain.
    func passedThenDrained(_ input: [UsageEvent], runCapacity: Int) throws -> (
        passed: Int, spilled: Int, rows: [UsageEvent]
    ) {
        let sorter = UsageRunSorter(runCapacity: runCapacity)
        var out: [UsageEvent] = []
        for row in input { try sorter.append(row) { out.append(contentsOf: $0) } }
        let (passed, spilled) = (sorter.passedRows, sorter.spilledRuns)
        out += try drained(sorter)
        #expect(sorter.count == 0)
        return (passed, spilled, out)
    }

    /// The rows in key order, equal keys in the order added (what spilling and merging gives).
    func stablySorted(_ rows: [UsageEvent]) -> [UsageEvent] {
        rows.enumerated().sorted {
            UsageRunSorter.precedes($0.element, $1.element)
                || (!UsageRunSorter.precedes($1.element, $0.element) && $0.offset < $1.offset)
        }.map(\.element)
    }

    /// A file in user order never spills: full buffers pass straight on, in key order, and the
    /// table receives exactly the sequence a spill and merge would give (equal keys first-added first).
    @Test(arguments: [100, 256, 1 << 19])
    func userOrderedRowsPassWithoutSpilling(runCapacity: Int) throws {
        let input = userOrderedRows(users: 40, perUser: 45, seed: 3)
        let (passed, spilled, output) = try passedThenDrained(input, runCapacity: runCapacity)
        #expect(spilled == 0)
        #expect((passed > 0) == (runCapacity < input.count))
        #expect(output == stablySorted(input))
    }

    /// Rows out of user order, or a user filling more than half the buffer, spill as before; the
    /// rows passed before are all older than the spilled ones, so the first of equal keys to reach
    /// the table is still the first added (`INSERT OR IGNORE` keeps it).
    @Test(arguments: [(4, 1), (4, 7), (40, 100), (40, 256), (1, 30)])
    func rowsThatDoNotFollowSpillAndTheFirstOfEqualKeysStillWins(users: Int, runCapacity: Int) throws {
        // User order first, then the same users again (a second log of the same devices).
        let input =
            userOrderedRows(users: users, perUser: 45, seed: 5) + userOrderedRows(users: users, perUser: 45, seed: 6)
        let (_, spilled, output) = try passedThenDrained(input, runCapacity: runCapacity)
        #expect(spilled > 0)
        #expect(output.count == input.count)
        func firstOfEachKey(_ rows: [UsageEvent]) -> [String: Int32] {
            var kept: [String: Int32] = [:]
            for r in rows { kept["\(r.user) \(r.app) \(r.time.sinceEpoch)", default: r.utcOffset ?? -1] += 0 }
            return kept
        }
        #expect(firstOfEachKey(output) == firstOfEachKey(input))
    }

    /// An import of a file in user order stores the same rows (the first of equal keys, with its
    /// offset) and counts the same duplicates whether its rows pass straight on or not.
    @Test func userOrderedImportMatchesInMemoryImport() throws {
        var lines = ["timestamp,user,app,event"]
        for row in userOrderedRows(users: 60, perUser: 50, seed: 9) {
            // The same UTC instant whatever the offset: equal keys that differ in their offset.
            let offset = (row.utcOffset ?? 0) / 3600
            lines.append(
                "2024-03-01T1\(offset):10:\(10 + row.time.sinceEpoch % 50)+0\(offset):00,u\(100 + row.user),com.app\(row.app),launch"
            )
        }
        let text = lines.joined(separator: "\n") + "\n"
        let (results, summaries) = try importEachWay(
            text, runRows: [1 << 19, 120],
            stored: "SELECT user, app, time_us, utc_offset FROM usage_events ORDER BY 1, 2, 3")
        #expect(results[0] == results[1])
        #expect(summaries[0].inserted.usageEvents == summaries[1].inserted.usageEvents)
        #expect(summaries[1].counts.duplicate == summaries[0].counts.duplicate)
        #expect(summaries[1].counts.duplicate > 0)
        #expect(summaries[1].inserted.usageEvents + summaries[1].counts.duplicate == 3_000)
    }
}
