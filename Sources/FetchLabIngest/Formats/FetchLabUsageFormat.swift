import FetchLabCore

/// FetchLab usage events: `timestamp,user,app[,event]`. The user column may be left out when
/// `--user` names the user (`timestamp,app[,event]`).
///
/// Besides launches, closes, force-quits and refresh switches, the events may be signals:
/// `unlock` and `screen_on` (the device's: the app may be empty, and is `AppID.device` whatever
/// it says), `notification` and `system_ui` (of the app named, which they need).
enum FetchLabUsageFormat: DelimitedFormat {
    static func recognise(_ header: HeaderNames, statedUser: Bool) -> Recognition {
        let f = header.fields
        return f.contains(.timestamp) && f.contains(.app) && (f.contains(.user) || statedUser) ? .fits : .no
    }

    static func field(named name: String) -> Field? { Field.canonical(name) }

    static func required(statedUser: Bool) -> [Field] { statedUser ? [.timestamp, .app] : [.timestamp, .user, .app] }

    @inline(__always)
    static func decode(_ row: Row, into sink: inout RecordSink) throws(RowProblem) {
        let ts = try sink.time(of: row)
        let user = try sink.user(of: row)
        var kind = UsageEventKind.launch
        if let event = row.value(.event) { kind = try Self.kind(event) }
        if kind.isSignal {
            try signal(kind, row, at: ts, user: user, into: &sink)
            return
        }
        guard let appName = row.value(.app) else { throw RowProblem("empty app") }
        // A use's length (`--map COLUMN=duration`) closes it that much later.
        var closeAfter: Microseconds? = nil
        if let text = row.value(.duration) {
            guard kind == .launch else { throw RowProblem("a duration on a \(kind) event (only launches last)") }
            closeAfter = try Self.duration(text)
        }
        let app = try sink.app(appName)
        sink.accept(UsageEvent(time: ts.time, user: user, app: app, kind: kind, utcOffset: ts.utcOffsetSeconds))
        if let closeAfter {
            sink.batch.counts.derived += 1
            sink.accept(
                UsageEvent(
                    time: ts.time + closeAfter, user: user, app: app, kind: .close,
                    utcOffset: ts.utcOffsetSeconds))
        }
    }

    /// A signal row: of the device (unlock, screen on) or of its app (notification, system UI).
    private static func signal(
        _ kind: UsageEventKind, _ row: Row, at ts: ParsedTimestamp, user: Int32, into sink: inout RecordSink
    ) throws(RowProblem) {
        if row.value(.duration) != nil { throw RowProblem("a duration on a \(kind) event (only launches last)") }
        let app: Int32
        if kind.isDeviceSignal {
            app = sink.device()
        } else {
            guard let appName = row.value(.app) else {
                throw RowProblem(
                    "empty app on a \(kind) event (only unlock and screen_on, the device's, may leave it empty)")
            }
            app = try sink.app(appName)
        }
        sink.batch.counts.accepted += 1
        sink.signal(UsageEvent(time: ts.time, user: user, app: app, kind: kind, utcOffset: ts.utcOffsetSeconds))
    }

    /// The longest use a duration may give.
    static let maxDuration: Microseconds = .days(1)

    /// A use's length, read by Core's one duration parser (``Quantity/parseDuration(_:forms:)``):
    /// seconds (`83`, `83.5`), with a unit (`1500ms`, `83s`, `12m`, `12 min`, `2h`, `1h30m`), or a
    /// clock (`1:23`, `0:01:23`: minutes:seconds or hours:minutes:seconds); any case.
    static func duration(_ b: UnsafeRawBufferPointer) throws(RowProblem) -> Microseconds {
        let quoted = FieldText.quoted(b)
        let us: Microseconds
        do {
            us = try Quantity.parseDuration(
                String(decoding: b, as: UTF8.self).lowercased(), forms: [.clock, .spacedUnits])
        } catch {
            switch error {
            case .notADuration:
                throw RowProblem(
                    "duration \(quoted) is not seconds (83, 83.5), a number with a unit (1500ms, 83s, 12m, 2h) "
                        + "or a clock (1:23, 0:01:23)")
            case .clockOutOfRange:
                throw RowProblem("duration \(quoted) is not a clock: its minutes and seconds go from 0 to 59")
            case .negative: throw RowProblem("duration \(quoted) is negative")
            case .tooLong: throw tooLong(quoted)
            }
        }
        guard us <= maxDuration else { throw tooLong(quoted) }
        return us
    }

    private static func tooLong(_ quoted: String) -> RowProblem {
        RowProblem("duration \(quoted) is longer than a day (seconds expected)")
    }

    /// An event name: the ones FetchLab writes compared as bytes (no String made), others by name.
    @inline(__always)
    static func kind(_ b: UnsafeRawBufferPointer) throws(RowProblem) -> UsageEventKind {
        switch b.count {
        case 6 where b.elementsEqual("launch".utf8): return .launch
        case 5 where b.elementsEqual("close".utf8): return .close
        case 10 where b.elementsEqual("force_quit".utf8): return .forceQuit
        case 11 where b.elementsEqual("refresh_off".utf8): return .refreshOff
        case 10 where b.elementsEqual("refresh_on".utf8): return .refreshOn
        case 6 where b.elementsEqual("unlock".utf8): return .unlock
        case 9 where b.elementsEqual("screen_on".utf8): return .screenOn
        case 12 where b.elementsEqual("notification".utf8): return .notification
        case 9 where b.elementsEqual("system_ui".utf8): return .systemUI
        default:
            let name = String(decoding: b, as: UTF8.self)
            guard let kind = UsageEventKind(name: name) else {
                throw RowProblem(
                    "unknown event \(FieldText.quoted(b)) (expected launch, close, force_quit, refresh_off, refresh_on, "
                        + "unlock, screen_on, notification or system_ui)")
            }
            return kind
        }
    }
}
