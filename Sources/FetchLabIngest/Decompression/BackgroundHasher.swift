import Dispatch
import Foundation

/// Computes SHA-256 over a byte stream on a dedicated thread, so that hashing the
/// raw input overlaps with inflating it.
///
/// The producer copies each piece into one of a few fixed slots (memory does not
/// grow with the input) and continues; the worker thread hashes slots in order.
/// When all slots are busy the producer waits. Used by ``DecompressingReader``;
/// one producer thread at a time.
final class BackgroundHasher: @unchecked Sendable {
    // Synchronisation: `free` counts empty slots, `filled` counts slots ready to
    // hash. A slot's bytes and count are written by the producer before it signals
    // `filled` and read by the worker after waiting on it; `hasher` is written by
    // the worker before it signals `free` and read by the producer only after it
    // has acquired every slot (see `snapshot`).
    private static let slotCount = 4
    private let slotSize: Int
    private let storage: UnsafeMutableRawPointer
    private let counts: UnsafeMutablePointer<Int>
    private var head = 0  // producer only
    private var tail = 0  // worker only
    /// Created at 0 and signalled up: libdispatch traps when a semaphore is
    /// destroyed with a value below the one it was created with.
    private let free = DispatchSemaphore(value: 0)
    private let filled = DispatchSemaphore(value: 0)
    private let exited = DispatchSemaphore(value: 0)
    private var hasher: SHA256
    private var stopped = false

    /// Starts the worker thread, continuing from the state of `hasher`.
    init(continuing hasher: SHA256, slotSize: Int) {
        self.hasher = hasher
        self.slotSize = max(slotSize, 4_096)
        self.storage = .allocate(byteCount: Self.slotCount * self.slotSize, alignment: 64)
        self.counts = .allocate(capacity: Self.slotCount)
        self.counts.initialize(repeating: 0, count: Self.slotCount)
        for _ in 0..<Self.slotCount { free.signal() }
        let thread = Thread { [self] in run() }
        thread.name = "fetchlab.sha256"
        thread.start()
    }

    /// The worker thread holds a reference until ``finish()``; the owner must call it.
    deinit {
        storage.deallocate()
        counts.deallocate()
    }

    /// Queues a copy of `bytes` for hashing (waits while all slots are busy).
    func submit(_ bytes: UnsafeRawBufferPointer) {
        guard var p = bytes.baseAddress, !stopped else { return }
        var remaining = bytes.count
        while remaining > 0 {
            let n = min(remaining, slotSize)
            free.wait()
            (storage + head * slotSize).copyMemory(from: p, byteCount: n)
            counts[head] = n
            head = (head + 1) % Self.slotCount
            filled.signal()
            p += n
            remaining -= n
        }
    }

    /// The hash state after everything submitted so far (waits for the worker).
    func snapshot() -> SHA256 {
        if stopped { return hasher }
        for _ in 0..<Self.slotCount { free.wait() }
        let state = hasher
        for _ in 0..<Self.slotCount { free.signal() }
        return state
    }

    /// Finishes pending work and ends the worker thread. Must be called by the owner
    /// (the thread keeps the object alive until then); later calls do nothing.
    func finish() {
        guard !stopped else { return }
        free.wait()
        counts[head] = -1
        filled.signal()
        exited.wait()
        stopped = true
    }

    private func run() {
        while true {
            filled.wait()
            let n = counts[tail]
            if n < 0 {
                exited.signal()
                return
            }
            hasher.update(UnsafeRawBufferPointer(start: storage + tail * slotSize, count: n))
            tail = (tail + 1) % Self.slotCount
            free.signal()
        }
    }
}
