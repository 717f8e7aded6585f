import FetchLabCore

/// FetchLab content updates: `timestamp,app` (no user: an update is the server's, for everyone).
enum ContentFormat: DelimitedFormat {
    static func recognise(_ header: HeaderNames, statedUser: Bool) -> Recognition {
        let f = header.fields
        // With a user (a column or `--user`) or an event column, `timestamp,app` is a usage log.
        return f.contains(.timestamp) && f.contains(.app) && !f.contains(.user) && !f.contains(.event) && !statedUser
            ? .fits : .no
    }

    static func field(named name: String) -> Field? { Field.canonical(name) }

    static func required(statedUser: Bool) -> [Field] { [.timestamp, .app] }

    static func decode(_ row: Row, into sink: inout RecordSink) throws(RowProblem) {
        let ts = try sink.time(of: row)
        guard let appName = row.value(.app) else { throw RowProblem("empty app") }
        let app = try sink.app(appName)
        sink.accept(ContentUpdate(time: ts.time, app: app))
    }
}
