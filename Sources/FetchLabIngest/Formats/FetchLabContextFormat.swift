import FetchLabCore

/// FetchLab device context: `timestamp,user[,battery,charging,network,low_power,screen_on]`; any
/// value may be empty (unknown). The user column may be left out when `--user` names the user.
enum FetchLabContextFormat: DelimitedFormat {
    static func recognise(_ header: HeaderNames, statedUser: Bool) -> Recognition {
        let f = header.fields
        return f.contains(.timestamp) && (f.contains(.user) || statedUser) && !f.isDisjoint(with: Field.context)
            ? .fits : .no
    }

    static func field(named name: String) -> Field? { Field.canonical(name) }

    static func required(statedUser: Bool) -> [Field] { statedUser ? [.timestamp] : [.timestamp, .user] }

    static func decode(_ row: Row, into sink: inout RecordSink) throws(RowProblem) {
        let ts = try sink.time(of: row)
        var sample = ContextSample(time: ts.time, user: try sink.user(of: row))
        if let b = row.value(.battery) { sample.battery = try FieldText.percentage(b, column: "battery") }
        if let c = row.value(.charging) { sample.charging = try FieldText.bool(c, column: "charging") }
        if let n = row.value(.network) {
            guard let network = NetworkType(name: String(decoding: n, as: UTF8.self)) else {
                throw RowProblem("network \(FieldText.quoted(n)) is not wifi, cellular or none")
            }
            sample.network = network
        }
        if let l = row.value(.lowPower) { sample.lowPower = try FieldText.bool(l, column: "low_power") }
        if let s = row.value(.screenOn) { sample.screenOn = try FieldText.bool(s, column: "screen_on") }
        sink.accept(sample, from: row)
    }
}
