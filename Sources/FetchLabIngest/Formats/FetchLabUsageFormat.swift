import FetchLabCore

/// FetchLab usage events: `timestamp,user,app[,event]`. The user column may be left out when
/// `--user` names the user (`timestamp,app[,event]`).
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
        guard let appName = row.value(.app) else { throw RowProblem("empty app") }
        var kind = UsageEventKind.launch
        if let event = row.value(.event) { kind = try Self.kind(event) }
        let app = try sink.app(appName)
        sink.accept(UsageEvent(time: ts.microseconds, user: user, app: app, kind: kind, utcOffset: ts.utcOffsetSeconds))
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
        default:
            let name = String(decoding: b, as: UTF8.self)
            guard let kind = UsageEventKind(name: name) else {
                throw RowProblem(
                    "unknown event \(FieldText.quoted(b)) (expected launch, close, force_quit, refresh_off or refresh_on)"
                )
            }
            return kind
        }
    }
}
