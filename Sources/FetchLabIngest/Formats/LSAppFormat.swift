import FetchLabCore

/// The LSApp dataset: `user_id, session_id, timestamp, app_name, event_type` (TSV, with or without
/// the header). `Opened` is a launch, `Closed` a close; `User_Interaction` and `Broken` are
/// counted as excluded.
enum LSAppFormat: DelimitedFormat {
    /// The columns of a headerless LSApp file.
    static let header = ["user_id", "session_id", "timestamp", "app_name", "event_type"]
    /// The event names of the dataset (lowercased).
    static let events: Set<String> = ["opened", "closed", "user_interaction", "broken"]

    static func recognise(_ header: HeaderNames, statedUser: Bool) -> Recognition {
        header.lowercased.isSuperset(of: ["user_id", "app_name", "event_type", "timestamp"]) ? .signature : .no
    }

    static func field(named name: String) -> Field? {
        switch name {
        case "user_id": .user
        case "timestamp": .timestamp
        case "app_name": .app
        case "event_type": .event
        default: nil
        }
    }

    static func required(statedUser: Bool) -> [Field] { statedUser ? [.timestamp, .app] : [.timestamp, .user, .app] }

    static func columnName(_ field: Field) -> String {
        switch field {
        case .user: "user_id"
        case .app: "app_name"
        case .event: "event_type"
        default: field.rawValue
        }
    }

    static func decode(_ row: Row, into sink: inout RecordSink) throws(RowProblem) {
        let ts = try sink.time(of: row)
        let user = try sink.user(of: row)
        guard let appName = row.value(.app) else { throw RowProblem("empty app_name") }
        var kind = UsageEventKind.launch
        if let event = row.value(.event) {
            switch String(decoding: event, as: UTF8.self).lowercased() {
            case "opened": kind = .launch
            case "closed": kind = .close
            case "user_interaction", "broken":
                sink.skip()
                return
            default:
                throw RowProblem(
                    "unknown LSApp event \(FieldText.quoted(event)) (expected Opened, Closed, User_Interaction or Broken)"
                )
            }
        }
        let app = try sink.app(appName)
        sink.accept(UsageEvent(time: ts.microseconds, user: user, app: app, kind: kind, utcOffset: ts.utcOffsetSeconds))
    }
}
