import FetchLabCore
import HeapModule

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Android foreground-app polling logs: headerless `YYYY-MM-DD HH:MM:SS[.ffffff],package` lines, one
/// sample of the app in the foreground every few seconds, turned into launches.
///
/// The rule that defines a launch: drop the samples of excluded packages (`--exclude`, and the
/// system apps, ``ReadOptions/systemApps``, unless `--keep-system-apps`); then a
/// sample of app A is a new launch unless the previous remaining sample is also A and at most the
/// session gap earlier (then it is *merged* into that use). Exact duplicate lines are dropped.
///
/// The samples of launchers and system UI (``ReadOptions/systemUIApps``) are not launches but
/// not lost either: they are `systemUI` signal events of their package (the user is at the
/// device, about to open something), formed by the same rule over the samples that are not
/// dropped (apps and system UI together): a sample of system-UI app S is a new signal unless the
/// previous sample not dropped is also S and at most the session gap earlier (then merged into
/// that signal). They take no part in the launches' rule, which stays the protocol's.
///
/// Lines may be out of order by up to the reorder window: samples wait in a ``ReorderBuffer`` and
/// are sessionised in (time, app, arrival) order as soon as they are further back than the window
/// from the newest time seen (no later line can precede them then). A line further back than that
/// is rejected, at any file size. Every row ends up counted once:
/// rows = launches + signals + duplicate + excluded + merged + rejected.
///
/// Memory: the samples of one window are held in memory (24 bytes each). More than
/// ``defaultMaxPending`` of them at once fails the file with an error that names
/// `--reorder-window` (the window is then far larger than the log's disorder needs).
struct ForegroundFormat: LineFormat {
    typealias Sample = ReorderBuffer.Sample

    /// Samples that may wait for the window at once, by default (4 Mi samples, about 100 MB).
    static let defaultMaxPending = 1 << 22

    let sessionGap: Microseconds
    let reorderWindow: Microseconds
    /// Samples that may wait at once; past it the file fails (``failure``).
    var maxPending: Int

    /// Samples not yet sessionised.
    private var pending = ReorderBuffer()
    /// Lines accepted so far (orders samples with the same time and app: the first one read wins).
    private var arrivals: UInt32 = 0
    /// The newest time accepted so far.
    private var newest = Instant.distantPast
    /// The last sample released (to drop exact duplicates).
    private var lastTime = Instant.distantPast
    private var lastApp: Int32 = -1
    /// The last sample that was neither dropped nor a signal: the session a sample of the same
    /// app may join.
    private var sessionApp: Int32 = -1
    private var sessionLast = Instant.distantPast
    /// The last sample that was not dropped (an app's or a signal's): the signal a sample of the
    /// same system-UI app may join.
    private var streamApp: Int32 = -1
    private var streamLast = Instant.distantPast
    /// Set when the window held more than `maxPending` samples: the file cannot be read with this
    /// window. The reader stops with this message.
    private(set) var failure: String?

    init(options: ReadOptions, maxPending: Int = Self.defaultMaxPending) {
        sessionGap = options.sessionGap
        reorderWindow = options.reorderWindow
        self.maxPending = max(1, maxPending)
    }

    /// Samples waiting for the window to pass them.
    var pendingCount: Int { pending.count }

    // MARK: LineFormat

    /// `YYYY-MM-DD HH:MM…,package` with exactly one comma.
    static func recognises(firstLine line: [UInt8]) -> Bool {
        var bytes = line[...]
        while let b = bytes.first, b == 0x20 || b == 0x09 || b == 0 { bytes.removeFirst() }
        guard bytes.count >= 18 else { return false }
        let b = Array(bytes.prefix(11))
        let digits = [0, 1, 2, 3, 5, 6, 8, 9]
        guard digits.allSatisfy({ b[$0] >= 0x30 && b[$0] <= 0x39 }), b[4] == 0x2D, b[7] == 0x2D,
            b[10] == 0x20 || b[10] == UInt8(ascii: "T")
        else { return false }
        return bytes.filter { $0 == 0x2C }.count == 1
    }

    /// A foreground log is one user's: the file's name (``LogReader/userName(fromPath:)``).
    static func fileUser(source: String) throws(IngestError) -> String? {
        guard source != "-" else {
            throw IngestError(
                .usage, source: source, message: "foreground logs name no user: give one with --user NAME")
        }
        return LogReader.userName(fromPath: source)
    }

    init(options: ReadOptions, source: String) { self.init(options: options) }

    var everyLineIsARow: Bool { true }

    /// Waiting samples hold app ids.
    var namesMayRestart: Bool { pending.count == 0 }

    mutating func decode(
        _ line: UnsafeRawBufferPointer, line number: Int, unterminated: Bool, into sink: inout RecordSink
    ) throws(RowProblem) {
        try decode(line, into: &sink)
    }

    mutating func finish(into sink: inout RecordSink) { flush(final: true, into: &sink) }

    /// Reads one line into the buffer and releases the samples it settles; throws the reason when
    /// the line is rejected (and, once, when the window overflows: see ``failure``).
    mutating func decode(_ raw: UnsafeRawBufferPointer, into sink: inout RecordSink) throws(RowProblem) {
        if let failure { throw RowProblem(failure) }
        guard let base = raw.baseAddress else { throw RowProblem("empty line") }
        if memchr(base, 0, raw.count) != nil { throw RowProblem("line contains NUL bytes (binary data?)") }
        let line = Row.trim(raw)
        guard let comma = line.firstIndex(of: 0x2C) else {
            throw RowProblem("expected \"timestamp,package\", found no comma")
        }
        let tsField = Row.trim(UnsafeRawBufferPointer(rebasing: line[0..<comma]))
        let appField = Row.trim(UnsafeRawBufferPointer(rebasing: line[(comma + 1)...]))
        if appField.contains(0x2C) { throw RowProblem("expected 2 fields (timestamp,package), found more") }
        guard appField.count > 0 else { throw RowProblem("empty package name") }
        let ts = try sink.time(tsField)
        let time = ts.time
        if time < newest && newest - time > reorderWindow {
            throw RowProblem(
                "out of order by more than \(Quantity.format(duration: reorderWindow)) (raise --reorder-window)")
        }
        let app = try sink.app(appField, noun: "package")
        if pending.count >= maxPending {
            let message =
                "more than \(maxPending) samples within --reorder-window \(Quantity.format(duration: reorderWindow))"
                + " of the newest line: lower --reorder-window (its samples are held in memory)"
            failure = message
            throw RowProblem(message)
        }
        sink.batch.counts.accepted += 1
        let advanced = time > newest
        if advanced { newest = time }
        pending.insert(Sample(time: time, app: app, arrival: arrivals, offset: ts.utcOffsetSeconds))
        arrivals &+= 1
        if advanced { release(before: settledBefore, into: &sink) }
    }

    /// Samples before this instant are settled: any later line is at least `newest - reorderWindow`.
    private var settledBefore: Instant {
        let (settled, overflow) = newest.sinceEpoch.value.subtractingReportingOverflow(reorderWindow.value)
        return overflow ? .distantPast : Instant(sinceEpoch: Microseconds(settled))
    }

    /// Sessionises the samples no later line can precede (all of them at the end of the file).
    mutating func flush(final: Bool, into sink: inout RecordSink) {
        release(before: final ? nil : settledBefore, into: &sink)
    }

    /// Releases, in order, the pending samples earlier than `cutoff` (all of them when nil).
    private mutating func release(before cutoff: Instant?, into sink: inout RecordSink) {
        while let next = pending.min, cutoff.map({ next.time < $0 }) ?? true {
            pending.removeMin()
            release(next, into: &sink)
        }
    }

    private mutating func release(_ sample: Sample, into sink: inout RecordSink) {
        if sample.time == lastTime && sample.app == lastApp {
            sink.batch.counts.duplicate += 1
            return
        }
        lastTime = sample.time
        lastApp = sample.app
        switch sink.route(sample.app) {
        case .use: break
        case .dropped: return
        case .systemUI:
            signal(sample, into: &sink)
            return
        }
        streamApp = sample.app
        streamLast = sample.time
        defer {
            sessionApp = sample.app
            sessionLast = sample.time
        }
        if sample.app == sessionApp && sample.time - sessionLast <= sessionGap {
            sink.batch.counts.merged += 1
            return
        }
        sink.batch.usage.append(
            UsageEvent(
                time: sample.time, user: sink.fixedUser ?? 0, app: sample.app, kind: .launch,
                utcOffset: sample.utcOffset))
    }

    /// A sample of a system-UI app: a new `systemUI` signal, or merged into the one it continues.
    private mutating func signal(_ sample: Sample, into sink: inout RecordSink) {
        defer {
            streamApp = sample.app
            streamLast = sample.time
        }
        sink.batch.counts.signalRows += 1
        if sample.app == streamApp && sample.time - streamLast <= sessionGap {
            sink.batch.counts.merged += 1
            return
        }
        sink.batch.counts.signals += 1
        sink.batch.usage.append(
            UsageEvent(
                time: sample.time, user: sink.fixedUser ?? 0, app: sample.app, kind: .systemUI,
                utcOffset: sample.utcOffset))
    }
}

/// The samples of a foreground log waiting for the reorder window, taken out smallest first.
///
/// Samples that arrive in order (the common case) append to a sorted run in O(1); the few that
/// arrive out of order go to a binary heap (O(log n)). The smallest sample is the smaller of the
/// run's first and the heap's minimum. Released run entries are dropped in chunks (amortised O(1)),
/// so memory follows the number of pending samples.
struct ReorderBuffer {
    struct Sample: Comparable {
        var time: Instant
        var app: Int32
        /// Order of arrival, to break ties between equal (time, app) samples (wraps after 2^32 lines).
        var arrival: UInt32
        /// UTC offset in seconds; `Int32.min` when the line had none (keeps the sample at 24 bytes).
        private var offset: Int32

        init(time: Instant, app: Int32, arrival: UInt32, offset: Int32?) {
            self.time = time
            self.app = app
            self.arrival = arrival
            self.offset = offset ?? Int32.min
        }

        var utcOffset: Int32? { offset == Int32.min ? nil : offset }

        @inline(__always)
        static func < (a: Sample, b: Sample) -> Bool {
            if a.time != b.time { return a.time < b.time }
            if a.app != b.app { return a.app < b.app }
            return a.arrival < b.arrival
        }

        static func == (a: Sample, b: Sample) -> Bool {
            a.time == b.time && a.app == b.app && a.arrival == b.arrival
        }
    }

    /// Samples in ascending order; those before `head` were released.
    private var run: [Sample] = []
    private var head = 0
    /// Samples that arrived below the end of the run.
    private var late = Heap<Sample>()

    var count: Int { run.count - head + late.count }

    @inline(__always)
    mutating func insert(_ sample: Sample) {
        if head == run.count || !(sample < run[run.count - 1]) {
            run.append(sample)
        } else {
            late.insert(sample)
        }
    }

    @inline(__always)
    var min: Sample? {
        let first = head < run.count ? run[head] : nil
        guard let low = late.min else { return first }
        guard let first else { return low }
        return low < first ? low : first
    }

    /// Removes the smallest sample (there must be one).
    @inline(__always)
    mutating func removeMin() {
        if head < run.count, late.min.map({ !($0 < run[head]) }) ?? true {
            head += 1
            if head == run.count {
                run.removeAll(keepingCapacity: run.count <= 1 << 16)
                head = 0
            } else if head >= 1 << 12 && head * 2 >= run.count {
                run.removeFirst(head)
                head = 0
            }
        } else {
            _ = late.removeMin()
        }
    }
}
