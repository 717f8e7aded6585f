import FetchLabCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Android foreground-app polling logs: headerless `YYYY-MM-DD HH:MM:SS[.ffffff],package` lines, one
/// sample of the app in the foreground every few seconds, turned into launches.
///
/// The rule that defines a launch: drop the samples of excluded packages (`--exclude`); then a
/// sample of app A is a new launch unless the previous remaining sample is also A and at most the
/// session gap earlier (then it is *merged* into that use). Exact duplicate lines are dropped.
///
/// Lines may be out of order by up to the reorder window: samples wait in a buffer and are
/// sessionised in time order once they are further back than the window from the newest time seen.
/// A line further back than that is rejected, at any file size. Every row ends up counted once:
/// rows = launches + duplicate + excluded + merged + rejected.
struct ForegroundFormat {
    private struct Sample {
        var time: Microseconds
        var app: Int32
        var offset: Int32?
    }

    let sessionGap: Microseconds
    let reorderWindow: Microseconds

    /// Samples not yet sessionised, and the buffer size at which they are sorted and released.
    private var pending: [Sample] = []
    private var flushAt = Self.minimumFlush
    private static let minimumFlush = 8_192
    /// The newest time accepted so far.
    private var newest = Microseconds.min
    /// The last sample released (to drop exact duplicates).
    private var lastTime = Microseconds.min
    private var lastApp: Int32 = -1
    /// The last sample that was not excluded: the session a sample of the same app may join.
    private var sessionApp: Int32 = -1
    private var sessionLast = Microseconds.min

    init(options: ReadOptions) {
        sessionGap = options.sessionGap
        reorderWindow = options.reorderWindow
    }

    /// Reads one line into the buffer; throws the reason when it is rejected.
    mutating func decode(_ raw: UnsafeRawBufferPointer, into sink: inout RecordSink) throws(RowProblem) {
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
        let time = ts.microseconds
        if time < newest && newest - time > reorderWindow {
            throw RowProblem(
                "out of order by more than \(Quantity.format(duration: reorderWindow)) (raise --reorder-window)")
        }
        let app = try sink.app(appField, noun: "package")
        sink.batch.counts.accepted += 1
        if time > newest { newest = time }
        pending.append(Sample(time: time, app: app, offset: ts.utcOffsetSeconds))
        if pending.count >= flushAt { flush(final: false, into: &sink) }
    }

    /// Sessionises the samples no later line can precede (all of them at the end of the file).
    mutating func flush(final: Bool, into sink: inout RecordSink) {
        guard !pending.isEmpty else { return }
        pending.sort { $0.time != $1.time ? $0.time < $1.time : $0.app < $1.app }
        // A later line is at least `newest - reorderWindow`: everything before that is settled.
        let (settled, overflow) = newest.subtractingReportingOverflow(reorderWindow)
        let cutoff = final ? Microseconds.max : overflow ? Microseconds.min : settled
        var released = 0
        while released < pending.count, final || pending[released].time < cutoff {
            release(pending[released], into: &sink)
            released += 1
        }
        pending.removeFirst(released)
        // Samples within the window stay; do not sort them again for every line that follows.
        flushAt = max(Self.minimumFlush, 2 * pending.count)
    }

    private mutating func release(_ sample: Sample, into sink: inout RecordSink) {
        if sample.time == lastTime && sample.app == lastApp {
            sink.batch.counts.duplicate += 1
            return
        }
        lastTime = sample.time
        lastApp = sample.app
        if sink.isExcluded(sample.app) {
            sink.batch.counts.excluded += 1
            return
        }
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
                utcOffset: sample.offset))
    }
}
