import FetchLabTerminal
import Foundation
import Synchronization
import Testing

@testable import fetchlab

/// The CLI's progress bar: throttled, monotonic, safe from several threads, cleared at the end.
@Suite struct ProgressBarTests {
    final class Lines: Sendable {
        let lines = Mutex<[String?]>([])
        func draw(_ line: String?) { lines.withLock { $0.append(line) } }
        var all: [String?] { lines.withLock { $0 } }
    }

    @Test func updatesFromManyThreadsDrawAFewMonotonicLinesThenClear() {
        let lines = Lines()
        let bar = ProgressBar(total: 8_000, unit: "users", visible: true, draw: lines.draw)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<1_000 { bar.advance() }
        }
        bar.finish()
        bar.update(done: 10)  // after the end: nothing
        let drawn = lines.all
        #expect(drawn.last == .some(nil))
        #expect(drawn.dropLast().allSatisfy { $0 != nil })
        // The first update draws at once; the rest at most every 100 ms, and the last one (all done) always.
        #expect(drawn.dropLast().last == "[####################] 100% 8,000/8,000 users, ETA 0:00")
        #expect(drawn.count < 100)
        let counts = drawn.compactMap { $0 }.map { line in
            Int(
                line.split(separator: " ").first { $0.contains("/") }!.split(separator: "/")[0].replacing(",", with: "")
            )!
        }
        #expect(counts == counts.sorted())
    }

    @Test func anInvisibleBarDrawsNothing() {
        let lines = Lines()
        let bar = ProgressBar(total: 3, unit: "files", visible: false, draw: lines.draw)
        bar.advance()
        bar.update(done: 3)
        bar.finish()
        #expect(lines.all.isEmpty)
    }

    @Test func aBarNeverDrawnIsNotCleared() {
        let lines = Lines()
        ProgressBar(total: 3, unit: "files", visible: true, draw: lines.draw).finish()
        #expect(lines.all.isEmpty)
    }
}
