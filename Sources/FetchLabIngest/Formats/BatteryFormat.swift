import FetchLabCore

/// Android battery-sampler logs: `_id,ID,level,…,status,…,WiFi,Cellular,…,isInteractive,…,Timestamp`.
/// `ID` is the device (the user), `status` the Android battery status (2 charging, 5 full, 3 and 4
/// not charging, 1 unknown), `WiFi`/`Cellular` the network, `isInteractive` the screen.
///
/// Each row is a context sample. The screen turning on is also a `screenOn` signal event of the
/// device (app `AppID.device`, user the device): at a sample whose `isInteractive` is true when the
/// device's previous sample that said was false, or when none said before (its first true). The
/// previous sample is the previous row of the device in the file (the sampler writes in time order;
/// a row out of order compares with the row before it in the file).
enum BatteryFormat: DatasetFormat {
    static let columns: KeyValuePairs<String, Field> = [
        "ID": .user, "level": .battery, "status": .charging, "WiFi": .network, "Cellular": .cellular,
        "isInteractive": .screenOn, "Timestamp": .timestamp,
    ]
    static let signature: Set<String> = ["id", "level", "status", "timestamp"]

    static func required(statedUser: Bool) -> [Field] { statedUser ? [.timestamp] : [.timestamp, .user] }

    static func decode(_ row: Row, into sink: inout RecordSink) throws(RowProblem) {
        let ts = try sink.time(of: row)
        var sample = ContextSample(time: ts.time, user: try sink.user(of: row))
        if let b = row.value(.battery) { sample.battery = try FieldText.percentage(b, column: "level") }
        if let s = row.value(.charging) {
            switch String(decoding: s, as: UTF8.self) {
            case "2", "5": sample.charging = true
            case "3", "4": sample.charging = false
            case "1": sample.charging = nil
            default: throw RowProblem("status \(FieldText.quoted(s)) is not an Android battery status (1–5)")
            }
        }
        // An unreadable WiFi/Cellular flag is unknown, not a reject (the sampler writes odd values).
        let wifi = row.value(.network).flatMap(FieldText.bool)
        let cellular = row.value(.cellular).flatMap(FieldText.bool)
        if wifi != nil || cellular != nil {
            sample.network = wifi == true ? .wifi : cellular == true ? .cellular : NetworkType.none
        }
        if let s = row.value(.screenOn) { sample.screenOn = try FieldText.bool(s, column: "isInteractive") }
        sink.accept(sample, from: row)
        if let on = sample.screenOn {
            let wasOn = sink.screenWasOn.updateValue(on, forKey: sample.user)
            if on && wasOn != true {
                let device = sink.device()
                sink.signal(
                    UsageEvent(
                        time: sample.time, user: sample.user, app: device, kind: .screenOn,
                        utcOffset: ts.utcOffsetSeconds),
                    derived: true)
            }
        }
    }
}
