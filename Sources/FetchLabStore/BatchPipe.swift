import FetchLabIngest
import Foundation

/// Hands batches from the reading thread to the writing thread, at most `capacity` ahead,
/// so that decompression and parsing overlap with SQLite's work on the other core.
final class BatchPipe: @unchecked Sendable {
    private let condition = NSCondition()
    private var queue: [RecordBatch] = []
    private var finished = false
    private var failure: (any Error)?
    private var cancelled = false
    private let capacity: Int

    init(capacity: Int = 3) { self.capacity = capacity }

    /// Adds a batch; returns false once the consumer has cancelled.
    func put(_ batch: RecordBatch) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while queue.count >= capacity && !cancelled { condition.wait() }
        if cancelled { return false }
        queue.append(batch)
        condition.broadcast()
        return true
    }

    /// The producer is done, with or without an error.
    func finish(_ error: (any Error)?) {
        condition.lock()
        finished = true
        failure = error
        condition.broadcast()
        condition.unlock()
    }

    /// The next batch; nil once the producer finished; rethrows the producer's error.
    func take() throws -> RecordBatch? {
        condition.lock()
        defer { condition.unlock() }
        while queue.isEmpty && !finished { condition.wait() }
        if !queue.isEmpty {
            let batch = queue.removeFirst()
            condition.broadcast()
            return batch
        }
        if let failure { throw failure }
        return nil
    }

    /// The consumer gives up; the producer stops at its next `put`.
    func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until the producer has finished.
    func waitUntilFinished() {
        condition.lock()
        while !finished { condition.wait() }
        condition.unlock()
    }
}
