import FetchLabCore

/// Appends ISO-8601 timestamps with offsets (`2024-03-31T12:00:05+02:00`) as bytes, to whole seconds.
enum ISOTimestamp {
    @inline(__always)
    private static func two(_ n: Int, _ out: inout [UInt8]) {
        out.append(UInt8(48 + n / 10))
        out.append(UInt8(48 + n % 10))
    }

    static func append(_ time: Microseconds, offset: Int32?, to out: inout [UInt8]) {
        let offset = Int(offset ?? 0)
        let local = Int(LocalCalendar.localSeconds(time, offset: Int32(offset)))
        let day = LocalCalendar.day(localSeconds: Int64(local))
        let secs = local - day * Int(Seconds.perDay)
        let date = CivilDate(daysSince1970: day)
        two(date.year / 100, &out)
        two(date.year % 100, &out)
        out.append(UInt8(ascii: "-"))
        two(date.month, &out)
        out.append(UInt8(ascii: "-"))
        two(date.day, &out)
        out.append(UInt8(ascii: "T"))
        two(secs / Int(Seconds.perHour), &out)
        out.append(UInt8(ascii: ":"))
        two(secs / Int(Seconds.perMinute) % 60, &out)
        out.append(UInt8(ascii: ":"))
        two(secs % Int(Seconds.perMinute), &out)
        if offset == 0 {
            out.append(UInt8(ascii: "Z"))
            return
        }
        out.append(UInt8(ascii: offset < 0 ? "-" : "+"))
        let minutes = abs(offset) / Int(Seconds.perMinute)
        two(minutes / 60, &out)
        out.append(UInt8(ascii: ":"))
        two(minutes % 60, &out)
    }
}
