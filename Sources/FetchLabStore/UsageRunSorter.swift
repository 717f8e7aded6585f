import FetchLabCore
import FetchLabIngest
import Foundation
import HeapModule

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Puts a file's usage rows into primary-key order (user, app, time, kind) with bounded memory,
/// so that they reach SQLite's B-tree as one in-order sweep instead of scattered inserts.
///
/// Rows collect in memory up to `runCapacity`; a full buffer is sorted and spilled as a run to an
/// unlinked temporary file (gone when the process ends, even by SIGKILL). `drain(_:)` then
/// merges the runs. A file that fits one run never touches the disk.
///
/// Rows with equal keys come out in the order of their runs (the order they were added in),
/// so `INSERT OR IGNORE` keeps the same one of them whether or not the rows spilled.
///
/// A file already in user order (a device's log, a generated population) need not spill at all:
/// `append(_:passing:)` hands a full buffer's sorted rows straight to the caller when they all
/// come after every row passed so far, keeping back the last user's rows (whose next rows may
/// still come). So the cost per row does not grow with the file: no temporary file written and
/// read back, no merge. The first buffer that does not follow spills, and so does every later one
/// (a row passed through is then always older than a spilled one, so equal keys still resolve to
/// the row added first).
public final class UsageRunSorter {
    /// Rows held in memory before a run spills (512 Ki rows ≈ 16 MB).
    public static let defaultRunCapacity = 1 << 19
    /// Rows read ahead from each run while merging, at most this many bytes over all runs.
    private static let mergeBudgetBytes = 8 << 20
    fileprivate static let rowBytes = MemoryLayout<UsageEvent>.stride

    private let runCapacity: Int
    private let temporaryDirectory: String
    private var buffer: [UsageEvent] = []
    private var fd: Int32 = -1
    private var runs: [(offset: Int, count: Int)] = []
    private var fileEnd = 0
    /// The last row passed through by `append(_:passing:)`: later passes start after it.
    private var passedUpTo: UsageEvent?

    /// Rows added and not yet passed through.
    private(set) var count = 0
    /// Rows passed through by `append(_:passing:)` so far.
    private(set) var passedRows = 0
    /// Runs spilled to disk so far.
    var spilledRuns: Int { runs.count }

    init(runCapacity: Int = defaultRunCapacity, temporaryDirectory: String = NSTemporaryDirectory()) {
        self.runCapacity = max(1, runCapacity)
        self.temporaryDirectory = temporaryDirectory
    }

    deinit {
        if fd >= 0 { close(fd) }
    }

    @inline(__always)
    static func precedes(_ a: UsageEvent, _ b: UsageEvent) -> Bool {
        if a.user != b.user { return a.user < b.user }
        if a.app != b.app { return a.app < b.app }
        if a.time != b.time { return a.time < b.time }
        return a.kind.rawValue < b.kind.rawValue
    }

    /// Buffers a row; returns whether the buffer is now full.
    private func buffered(_ row: UsageEvent) -> Bool {
        if buffer.isEmpty { buffer.reserveCapacity(min(runCapacity, 1 << 16)) }
        buffer.append(row)
        count += 1
        return buffer.count >= runCapacity
    }

    /// Adds a row; a full buffer spills.
    func append(_ row: UsageEvent) throws {
        if buffered(row) { try spill() }
    }

    /// Adds a row; when the buffer is full and its rows follow every row passed so far, calls
    /// `body` with them in key order (the last user's rows kept back) instead of spilling them.
    func append(_ row: UsageEvent, passing body: (UnsafeBufferPointer<UsageEvent>) throws -> Void) throws {
        guard buffered(row) else { return }
        guard runs.isEmpty else { return try spill() }
        buffer.sort(by: Self.precedes)
        // Rows of users before the last one; the last user's rows stay for the next buffer.
        let lastUser = buffer[buffer.count - 1].user
        var passing = buffer.count
        while passing > 0 && buffer[passing - 1].user == lastUser { passing -= 1 }
        let follows = passedUpTo.map { Self.precedes($0, buffer[0]) } ?? true
        // Kept back, a large user would leave little room and sort again and again: spill instead.
        guard follows, passing > 0, passing >= runCapacity / 2 else { return try spill() }
        try buffer.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[0..<passing])) }
        passedUpTo = buffer[passing - 1]
        passedRows += passing
        count -= passing
        buffer.removeSubrange(0..<passing)
    }

    /// Calls `body` with consecutive chunks of all rows in primary-key order, then empties the sorter.
    func drain(_ body: (UnsafeBufferPointer<UsageEvent>) throws -> Void) throws {
        defer { reset() }
        if runs.isEmpty {
            buffer.sort(by: Self.precedes)
            try buffer.withUnsafeBufferPointer { try body($0) }
            return
        }
        if !buffer.isEmpty { try spill() }
        buffer = []
        try merge(body)
    }

    private func reset() {
        buffer = []
        runs = []
        fileEnd = 0
        count = 0
        passedUpTo = nil
        if fd >= 0 {
            close(fd)
            fd = -1
        }
    }

    private func spill() throws {
        buffer.sort(by: Self.precedes)
        if fd < 0 { fd = try Self.openUnlinkedTemporaryFile(in: temporaryDirectory) }
        let bytes = buffer.count * Self.rowBytes
        try buffer.withUnsafeBytes { raw in
            var written = 0
            while written < bytes {
                let n = pwrite(fd, raw.baseAddress! + written, bytes - written, off_t(fileEnd + written))
                if n < 0 {
                    if errno == EINTR { continue }
                    throw StoreError(
                        .database, "temporary sort file in \(temporaryDirectory): \(String(cString: strerror(errno)))")
                }
                written += n
            }
        }
        runs.append((fileEnd, buffer.count))
        fileEnd += bytes
        buffer.removeAll(keepingCapacity: true)
    }

    /// A k-way merge of the spilled runs: a heap holds the next row of each run that has one.
    private func merge(_ body: (UnsafeBufferPointer<UsageEvent>) throws -> Void) throws {
        let perRun = max(1024, Self.mergeBudgetBytes / Self.rowBytes / runs.count)
        var cursors = runs.map { RunCursor(offset: $0.offset, remaining: $0.count, capacity: perRun) }
        defer { for c in cursors { c.buffer.deallocate() } }
        var heads = Heap<RunHead>(minimumCapacity: cursors.count)
        for i in cursors.indices {
            try cursors[i].refill(fd)
            if cursors[i].available { heads.insert(RunHead(row: cursors[i].current, run: i)) }
        }

        let outCapacity = 1 << 14
        let out = UnsafeMutableBufferPointer<UsageEvent>.allocate(capacity: outCapacity)
        defer { out.deallocate() }
        var filled = 0
        while let head = heads.min {
            out[filled] = head.row
            filled += 1
            if filled == outCapacity {
                try body(UnsafeBufferPointer(out))
                filled = 0
            }
            let i = head.run
            cursors[i].position += 1
            if !cursors[i].available { try cursors[i].refill(fd) }
            if cursors[i].available {
                heads.replaceMin(with: RunHead(row: cursors[i].current, run: i))
            } else {
                heads.removeMin()
            }
        }
        if filled > 0 { try body(UnsafeBufferPointer(rebasing: out[0..<filled])) }
    }

    /// The next row of a run in the merge; ordered by key, then by run (earlier runs first).
    private struct RunHead: Comparable {
        var row: UsageEvent
        var run: Int

        static func < (a: RunHead, b: RunHead) -> Bool {
            if UsageRunSorter.precedes(a.row, b.row) { return true }
            if UsageRunSorter.precedes(b.row, a.row) { return false }
            return a.run < b.run
        }

        /// Consistent with `<`: the same run and the same key.
        static func == (a: RunHead, b: RunHead) -> Bool {
            a.run == b.run && !UsageRunSorter.precedes(a.row, b.row) && !UsageRunSorter.precedes(b.row, a.row)
        }
    }

    private struct RunCursor {
        var offset: Int
        var remaining: Int
        let buffer: UnsafeMutableBufferPointer<UsageEvent>
        var position = 0
        var end = 0

        init(offset: Int, remaining: Int, capacity: Int) {
            self.offset = offset
            self.remaining = remaining
            buffer = .allocate(capacity: min(capacity, max(remaining, 1)))
        }

        var available: Bool { position < end }
        var current: UsageEvent { buffer[position] }

        mutating func refill(_ fd: Int32) throws {
            let n = min(buffer.count, remaining)
            position = 0
            end = 0
            guard n > 0 else { return }
            let bytes = n * UsageRunSorter.rowBytes
            let raw = UnsafeMutableRawPointer(buffer.baseAddress!)
            var done = 0
            while done < bytes {
                let r = pread(fd, raw + done, bytes - done, off_t(offset + done))
                if r < 0 && errno == EINTR { continue }
                if r <= 0 { throw StoreError(.database, "temporary sort file: read failed") }
                done += r
            }
            offset += bytes
            remaining -= n
            end = n
        }
    }

    private static func openUnlinkedTemporaryFile(in directory: String) throws -> Int32 {
        var template = Array((directory.hasSuffix("/") ? directory : directory + "/").utf8CString.dropLast())
        template += Array("fetchlab-sort-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            throw StoreError(
                .database, "cannot create a temporary sort file in \(directory): \(String(cString: strerror(errno)))")
        }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        return fd
    }
}
