import FetchLabCore
import FetchLabResults
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The text of `adb shell dumpsys usagestats`, turned into launches, closes, screen samples and
/// signal events (screen on, unlock, notification).
///
/// The dump (AOSP `UserUsageStatsService.printEvent`) has a section per Android user (`user=N`)
/// and, among tables that are not events (daily/weekly/… stats, `ChooserCounts`, package lists,
/// configurations), event lines:
/// `time="2024-03-01 12:00:00" type=ACTIVITY_RESUMED package=com.example.news class=… flags=0x0`.
/// Only lines that start with `time=` are events; every other line is counted in
/// `ReadCounts.notEvents` and is neither a row nor a reject. A `user=N` line starts user N's
/// section: its events belong to user "`<file stem>`-user`N`" (events before any such line to
/// "`<file stem>`"); `--user` names the one user of every event.
///
/// Per user, in the order of the dump:
/// - A resume (`ACTIVITY_RESUMED`, `MOVE_TO_FOREGROUND`) of an app is a launch, unless the app is
///   in front (another of its activities) or left the front at most the session gap earlier: then
///   it is merged into that use.
/// - The app in front leaves it when its last resumed activity (`class=`) is paused, stopped or
///   moved to the background: that is its close, once no resume of the same app follows within
///   the session gap (else both are merged). Other pauses and stops (another activity of the app
///   still resumed, a stop after the pause, an app not in front) are merged.
/// - `DEVICE_SHUTDOWN` closes the app in front (a close at the shutdown); `DEVICE_STARTUP` leaves
///   no app in front. `SCREEN_INTERACTIVE`/`SCREEN_NON_INTERACTIVE` are screen-on/off context
///   samples; `SCREEN_INTERACTIVE` is also a `screenOn` signal event of the device (app
///   `AppID.device`, counted as `ReadCounts.derived`).
/// - `KEYGUARD_HIDDEN` (the keyguard dismissed: the device unlocked) is an `unlock` signal of the
///   device; `NOTIFICATION_INTERRUPTION` (a notification that made a sound, vibrated or lit the
///   screen) a `notification` signal of its package (the events of excluded apps are excluded).
///   Signals take no part in sessions. `KEYGUARD_SHOWN` (shown as the screen goes off and as it
///   comes on, so it says neither) and every other type are valid rows skipped on purpose
///   (`excluded`).
/// - The events of excluded apps (`--exclude`, and the system apps of ``ReadOptions/systemApps``
///   unless `--keep-system-apps`) are dropped (`excluded`) before sessions are formed, except the
///   resumes of launchers and system UI (``ReadOptions/systemUIApps``): each is a `systemUI` signal
///   of its package, or merged into the one before when the previous resume not dropped is of the
///   same app at most the session gap earlier. Their pauses and stops are dropped.
/// - An event line repeated exactly in one user's sections is a duplicate; an event earlier than
///   the user's previous event is rejected (the dump lists each user's events in time order).
struct UsageStatsFormat: LineFormat {
    /// What an event type means for sessions.
    enum Kind {
        case resume, leave, screenOn, screenOff, shutdown, startup, unlock, notification, other
    }

    /// One user's state: the app in front and when it left the front.
    struct UserState {
        var front: Int32 = -1
        /// Hashes of the front app's activities (classes) resumed and not yet paused or stopped.
        var resumed: Set<Int> = []
        /// The app in front left it at `leftAt` (a close waiting for the session gap).
        var left = false
        var leftAt = Instant.distantPast
        var leftOffset: Int32?
        var newest = Instant.distantPast
        /// The app of the last resume not dropped (a use's or a system-UI screen's), and when: the
        /// signal a resume of the same system-UI app within the gap continues.
        var resumedApp: Int32 = -1
        var resumedAt = Instant.distantPast
    }

    let sessionGap: Microseconds
    /// The user name of events outside any `user=N` section; sections are "`stem`-user`N`".
    let stem: String
    private var states: [Int32: UserState] = [:]
    /// The current section's user id, nil before the first `user=N` line.
    private var sectionUser: Int32?
    /// Hashes of the event lines seen, per user (exact repeats are duplicates).
    private var seen: Set<Int> = []

    init(options: ReadOptions, stem: String) {
        sessionGap = options.sessionGap
        self.stem = stem
    }

    // MARK: LineFormat

    /// The stem is the file's name (``LogReader/userName(fromPath:)``), `usagestats` on standard input.
    init(options: ReadOptions, source: String) {
        self.init(options: options, stem: source == "-" ? "usagestats" : LogReader.userName(fromPath: source))
    }

    static func recognises(firstLine line: [UInt8]) -> Bool { looksLikeDump(line) }

    /// The dump's sections name its users (from the stem).
    static func fileUser(source: String) throws(IngestError) -> String? { nil }

    /// Only event lines are rows (``decode(_:line:unterminated:into:)`` counts them).
    var everyLineIsARow: Bool { false }

    /// The per-user state holds user and app ids for the whole dump: its names are kept.
    var namesMayRestart: Bool { false }

    var failure: String? { nil }

    mutating func finish(into sink: inout RecordSink) { flush(into: &sink) }

    static func kind(of type: String) -> Kind {
        switch type {
        case "ACTIVITY_RESUMED", "MOVE_TO_FOREGROUND": .resume
        case "ACTIVITY_PAUSED", "ACTIVITY_STOPPED", "MOVE_TO_BACKGROUND": .leave
        case "SCREEN_INTERACTIVE": .screenOn
        case "SCREEN_NON_INTERACTIVE": .screenOff
        case "DEVICE_SHUTDOWN": .shutdown
        case "DEVICE_STARTUP": .startup
        case "KEYGUARD_HIDDEN": .unlock
        case "NOTIFICATION_INTERRUPTION": .notification
        default: .other
        }
    }

    /// Whether a (trimmed) line starts like the first line of a dump, or is an event line.
    static func looksLikeDump(_ line: [UInt8]) -> Bool {
        let text = String(decoding: line.prefix(200), as: UTF8.self).drop { $0 == " " || $0 == "\t" }
        if text.hasPrefix("time=") && text.contains(" type=") { return true }
        // Android 15 starts the dump with its feature flags.
        if text.trimmingCharacters(in: .whitespaces) == "Flags:" { return true }
        for prefix in ["DUMP OF SERVICE usagestats", "user=", "Last 24 hour events", "In-memory daily stats"]
        where text.hasPrefix(prefix) {
            return true
        }
        return false
    }

    /// Reads one non-blank line; throws the reason when an event line is rejected. An event line
    /// that ends the input without a line break is a dump cut short (`package=com.ch` of
    /// `com.chrome`): its last field cannot be trusted, so it is rejected.
    mutating func decode(
        _ raw: UnsafeRawBufferPointer, line number: Int, unterminated: Bool = false, into sink: inout RecordSink
    ) throws(RowProblem) {
        let line = Row.trim(raw)
        if !line.starts(with: "time=".utf8) {
            sink.batch.counts.notEvents += 1
            if line.starts(with: "user=".utf8) { startSection(line, sink: &sink) }
            return
        }
        sink.batch.counts.rows += 1
        if unterminated {
            throw RowProblem("the dump ends inside this event (no line break after it): truncated, not read")
        }
        guard let base = line.baseAddress else { throw RowProblem("empty line") }
        if memchr(base, 0, line.count) != nil { throw RowProblem("line contains NUL bytes (binary data?)") }
        let pairs = Self.pairs(line)
        if pairs["\u{0}unclosed"] != nil { throw RowProblem("unclosed quote (a line cut short?)") }
        guard let timeField = pairs["time"] else { throw RowProblem("event without a time") }
        guard let typeField = pairs["type"], typeField.count > 0 else { throw RowProblem("event without a type=") }
        let ts = try sink.time(UnsafeRawBufferPointer(rebasing: line[timeField]))
        let type = String(decoding: UnsafeRawBufferPointer(rebasing: line[typeField]), as: UTF8.self)
        let kind = Self.kind(of: type)
        let package = pairs["package"].map { UnsafeRawBufferPointer(rebasing: line[$0]) }
        var app: Int32 = -1
        if kind == .resume || kind == .leave || kind == .notification {
            guard let package, package.count > 0, !package.elementsEqual("null".utf8) else {
                throw RowProblem("\(type) event without a package")
            }
            app = try sink.app(package, noun: "package")
        }
        var classHasher = Hasher()
        if let cls = pairs["class"] { classHasher.combine(bytes: UnsafeRawBufferPointer(rebasing: line[cls])) }
        let activity = classHasher.finalize()
        let user = try currentUser(sink: &sink)
        var hasher = Hasher()
        hasher.combine(user)
        hasher.combine(bytes: line)
        let key = hasher.finalize()
        var state = states[user] ?? UserState()
        let time = ts.time
        if seen.contains(key) {
            sink.batch.counts.duplicate += 1
            return
        }
        if time < state.newest {
            throw RowProblem(
                "earlier than the previous event of this user (\(Quantity.format(duration: state.newest - time)) back)")
        }
        seen.insert(key)
        sink.batch.counts.accepted += 1
        state.newest = time
        defer { states[user] = state }
        // A close waiting for the gap is settled by an event past it.
        if state.left && time - state.leftAt > sessionGap { settle(&state, user: user, into: &sink) }
        switch kind {
        case .resume:
            switch sink.route(app) {
            case .use: break
            case .dropped: return
            case .systemUI:
                signal(app, at: time, offset: ts.utcOffsetSeconds, user: user, state: &state, into: &sink)
                return
            }
            state.resumedApp = app
            state.resumedAt = time
            if app == state.front {
                state.resumed.insert(activity)
                if state.left {  // back within the gap: the pause and this resume join the use
                    state.left = false
                    sink.batch.counts.merged += 1
                }
                sink.batch.counts.merged += 1
                return
            }
            if state.left { settle(&state, user: user, into: &sink) }
            state.front = app
            state.resumed = [activity]
            sink.batch.usage.append(
                UsageEvent(time: time, user: user, app: app, kind: .launch, utcOffset: ts.utcOffsetSeconds))
        case .leave:
            if sink.drops(app) {
                return
            }
            if app == state.front && !state.left && state.resumed.remove(activity) != nil && state.resumed.isEmpty {
                state.left = true
                state.leftAt = time
                state.leftOffset = ts.utcOffsetSeconds
            } else {
                sink.batch.counts.merged += 1
            }
        case .screenOn, .screenOff:
            sink.batch.context.append(
                ContextRow(
                    sample: ContextSample(
                        time: time, user: user, screenOn: kind == .screenOn, utcOffset: ts.utcOffsetSeconds),
                    line: number,
                    raw: String(decoding: raw.prefix(RejectedRow.maxRawBytes), as: UTF8.self)))
            if kind == .screenOn {
                let device = sink.device()
                sink.signal(
                    UsageEvent(time: time, user: user, app: device, kind: .screenOn, utcOffset: ts.utcOffsetSeconds),
                    derived: true)
            }
        case .unlock:
            let device = sink.device()
            sink.signal(UsageEvent(time: time, user: user, app: device, kind: .unlock, utcOffset: ts.utcOffsetSeconds))
        case .notification:
            sink.signal(
                UsageEvent(time: time, user: user, app: app, kind: .notification, utcOffset: ts.utcOffsetSeconds))
        case .shutdown:
            if state.left {
                settle(&state, user: user, into: &sink)
                sink.batch.counts.excluded += 1
            } else if state.front >= 0 {
                sink.batch.usage.append(
                    UsageEvent(time: time, user: user, app: state.front, kind: .close, utcOffset: ts.utcOffsetSeconds))
            } else {
                sink.batch.counts.excluded += 1
            }
            state.front = -1
        case .startup:
            if state.left { settle(&state, user: user, into: &sink) }
            state.front = -1
            sink.batch.counts.excluded += 1
        case .other:
            sink.batch.counts.excluded += 1
        }
    }

    /// A resume of a launcher or system UI: a `systemUI` signal, or merged into the one it
    /// continues (the previous resume not dropped is of the same app, at most the gap earlier).
    /// Sessions do not see it.
    private func signal(
        _ app: Int32, at time: Instant, offset: Int32?, user: Int32, state: inout UserState,
        into sink: inout RecordSink
    ) {
        defer {
            state.resumedApp = app
            state.resumedAt = time
        }
        sink.batch.counts.signalRows += 1
        if app == state.resumedApp && time - state.resumedAt <= sessionGap {
            sink.batch.counts.merged += 1
            return
        }
        sink.batch.counts.signals += 1
        sink.batch.usage.append(UsageEvent(time: time, user: user, app: app, kind: .systemUI, utcOffset: offset))
    }

    /// Emits the close of the app that left the front.
    private func settle(_ state: inout UserState, user: Int32, into sink: inout RecordSink) {
        guard state.left else { return }
        sink.batch.usage.append(
            UsageEvent(time: state.leftAt, user: user, app: state.front, kind: .close, utcOffset: state.leftOffset))
        state.left = false
        state.front = -1
    }

    /// At the end of the file: the closes still waiting for the gap.
    mutating func flush(into sink: inout RecordSink) {
        for user in states.keys.sorted() {
            guard var state = states[user] else { continue }
            settle(&state, user: user, into: &sink)
            states[user] = state
        }
    }

    /// `user=N…`: the section of Android user N (ignored when `--user` names the user).
    private mutating func startSection(_ line: UnsafeRawBufferPointer, sink: inout RecordSink) {
        let digits = line.dropFirst(5).prefix { $0 >= 0x30 && $0 <= 0x39 }
        guard !digits.isEmpty, digits.count < 10 else { return }
        let n = String(decoding: digits, as: UTF8.self)
        sectionUser = sink.users.id(of: "\(stem)-user\(n)")
    }

    private mutating func currentUser(sink: inout RecordSink) throws(RowProblem) -> Int32 {
        if let fixed = sink.fixedUser { return fixed }
        if let sectionUser { return sectionUser }
        let id = sink.users.id(of: stem)
        sectionUser = id
        return id
    }

    /// The `key=value` pairs of an event line: value ranges (a quoted value without its quotes).
    static func pairs(_ line: UnsafeRawBufferPointer) -> [String: Range<Int>] {
        var out: [String: Range<Int>] = [:]
        var i = 0
        let n = line.count
        while i < n {
            while i < n && (line[i] == 0x20 || line[i] == 0x09) { i += 1 }
            let keyStart = i
            while i < n && line[i] != 0x3D && line[i] != 0x20 && line[i] != 0x09 { i += 1 }
            guard i < n, line[i] == 0x3D else { continue }
            let key = String(decoding: UnsafeRawBufferPointer(rebasing: line[keyStart..<i]), as: UTF8.self)
            i += 1
            let value: Range<Int>
            if i < n && line[i] == 0x22 {
                let start = i + 1
                var end = start
                while end < n && line[end] != 0x22 { end += 1 }
                guard end < n else {
                    out[key] = nil
                    out["\u{0}unclosed"] = start..<end
                    return out
                }
                value = start..<end
                i = end + 1
            } else {
                let start = i
                while i < n && line[i] != 0x20 && line[i] != 0x09 { i += 1 }
                value = start..<i
            }
            if out[key] == nil { out[key] = value }
        }
        return out
    }
}
