import FetchLabIngest
import Foundation

/// Time zones by name, looked up once (TimeZone(identifier:) is slow) and shared across threads.
enum TimeZoneCache {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var zones: [String: TimeZone?] = [:]

    static func zone(_ name: String) -> TimeZone? {
        lock.lock()
        defer { lock.unlock() }
        if let cached = zones[name] { return cached }
        let zone = TimeZone(identifier: name)
        zones[name] = zone
        return zone
    }
}

/// Civil dates and local↔UTC conversion in whole seconds.
public enum CivilTime {
    /// Days since 1970-01-01 of a proleptic Gregorian date (the importer's civil calendar).
    public static func days(year: Int, month: Int, day: Int) -> Int {
        TimestampParser.daysFromCivil(year, month, day)
    }

    /// The date of a day count.
    public static func date(days: Int) -> (year: Int, month: Int, day: Int) { TimestampParser.civilFromDays(days) }

    /// 1 = Sunday … 7 = Saturday.
    public static func weekday(days: Int) -> Int { ((days % 7 + 7 + 4) % 7) + 1 }

    /// Parses `YYYY-MM-DD`.
    public static func parseDate(_ text: String) -> Int? {
        let parts = text.split(separator: "-")
        guard parts.count == 3, let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]),
            parts[0].count == 4, (1...12).contains(m), (1...31).contains(d)
        else { return nil }
        let n = days(year: y, month: m, day: d)
        let back = date(days: n)
        return back.month == m && back.day == d ? n : nil
    }

    static func offset(_ zone: TimeZone, atUTC seconds: Int) -> Int {
        zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(seconds)))
    }

    /// UTC seconds and offset for a local wall-clock time (seconds since 1970 as if UTC).
    /// A time in a DST gap moves forward by the gap (02:30 → 03:30); a repeated time takes
    /// the later occurrence.
    static func utc(local: Int, in zone: TimeZone) -> (utc: Int, offset: Int) {
        let o1 = offset(zone, atUTC: local - offset(zone, atUTC: local))
        let utc = local - o1
        return (utc, offset(zone, atUTC: utc))
    }
}

/// Converts local minutes of one local day to UTC, quickly: one zone lookup per day unless the
/// day has a DST change.
struct DayClock {
    let localMidnight: Int
    private let zone: TimeZone
    private let constantOffset: Int?

    init(day: Int, zone: TimeZone) {
        localMidnight = day * 86_400
        self.zone = zone
        let a = CivilTime.utc(local: localMidnight, in: zone)
        let b = CivilTime.utc(local: localMidnight + 86_400, in: zone)
        constantOffset = a.offset == b.offset ? a.offset : nil
    }

    /// UTC seconds and offset of a local time `seconds` after local midnight.
    func utc(secondsAfterMidnight s: Int) -> (utc: Int, offset: Int) {
        if let o = constantOffset { return (localMidnight + s - o, o) }
        return CivilTime.utc(local: localMidnight + s, in: zone)
    }
}

/// Appends ISO-8601 timestamps with offsets (`2024-03-31T12:00:05+02:00`) as bytes.
enum TimestampFormatter {
    @inline(__always)
    static func two(_ n: Int, _ out: inout [UInt8]) {
        out.append(UInt8(48 + n / 10))
        out.append(UInt8(48 + n % 10))
    }

    static func append(utc: Int, offset: Int, to out: inout [UInt8]) {
        let local = utc + offset
        let days = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
        let secs = local - days * 86_400
        let (y, m, d) = CivilTime.date(days: days)
        two(y / 100, &out)
        two(y % 100, &out)
        out.append(0x2D)
        two(m, &out)
        out.append(0x2D)
        two(d, &out)
        out.append(0x54)
        two(secs / 3600, &out)
        out.append(0x3A)
        two(secs / 60 % 60, &out)
        out.append(0x3A)
        two(secs % 60, &out)
        if offset == 0 {
            out.append(0x5A)
            return
        }
        out.append(offset < 0 ? 0x2D : 0x2B)
        let a = abs(offset) / 60
        two(a / 60, &out)
        out.append(0x3A)
        two(a % 60, &out)
    }
}
