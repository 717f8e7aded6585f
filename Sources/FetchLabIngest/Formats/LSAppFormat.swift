import FetchLabCore

/// The LSApp dataset: `user_id, session_id, timestamp, app_name, event_type` (TSV, with or without
/// the header). `Opened` is a launch, `Closed` a close; `User_Interaction` and `Broken` are
/// counted as excluded.
enum LSAppFormat: DatasetFormat {
    /// The columns of a headerless LSApp file.
    static let header = ["user_id", "session_id", "timestamp", "app_name", "event_type"]
    /// The event names of the dataset (lowercased).
    static let events: Set<String> = ["opened", "closed", "user_interaction", "broken"]

    static let columns: KeyValuePairs<String, Field> = [
        "user_id": .user, "timestamp": .timestamp, "app_name": .app, "event_type": .event,
    ]
    static let signature: Set<String> = ["user_id", "app_name", "event_type", "timestamp"]

    static func required(statedUser: Bool) -> [Field] { statedUser ? [.timestamp, .app] : [.timestamp, .user, .app] }

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
        sink.accept(UsageEvent(time: ts.time, user: user, app: app, kind: kind, utcOffset: ts.utcOffsetSeconds))
    }
}
