import Foundation

/// ISO-8601 text of moments, as FetchLab records them (when an import or a run happened).
public enum ISO8601 {
    /// `2026-11-25T16:38:39.123Z`: the moment in UTC, to the millisecond.
    public static func utc(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}

extension ISO8601 {
    /// `2024-03-20T07:50:00+02:00`: moment `t` (UTC microseconds) on a clock `offset` seconds east
    /// of UTC, with milliseconds when it has any (`07:50:00.250+02:00`). What every command's JSON
    /// gives for a time, next to the microseconds (`…_us`).
    public static func local(_ t: Microseconds, offset: Int) -> String {
        let local = t + Int64(offset) * 1_000_000
        let seconds = local >= 0 ? local / 1_000_000 : (local - 999_999) / 1_000_000
        let millis = (local - seconds * 1_000_000) / 1_000
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let of = seconds - days * 86_400
        let date = CivilDate(daysSince1970: Int(days))
        let two = { (n: Int64) in n < 10 ? "0\(n)" : "\(n)" }
        var text = String(format: "%04d-%02d-%02d", date.year, date.month, date.day)
        text += "T\(two(of / 3_600)):\(two(of / 60 % 60)):\(two(of % 60))"
        if millis != 0 { text += String(format: ".%03d", Int(millis)) }
        let o = abs(offset)
        return text + (offset < 0 ? "-" : "+") + String(format: "%02d:%02d", o / 3_600, o / 60 % 60)
    }
}
