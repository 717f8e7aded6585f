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
