import FetchLabCore
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

/// Local↔UTC conversion in whole seconds (civil dates are Core's ``CivilDate``).
enum CivilTime {
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
        localMidnight = day * Int(Seconds.perDay)
        self.zone = zone
        let a = CivilTime.utc(local: localMidnight, in: zone)
        let b = CivilTime.utc(local: localMidnight + Int(Seconds.perDay), in: zone)
        constantOffset = a.offset == b.offset ? a.offset : nil
    }

    /// UTC seconds and offset of a local time `seconds` after local midnight.
    func utc(secondsAfterMidnight s: Int) -> (utc: Int, offset: Int) {
        if let o = constantOffset { return (localMidnight + s - o, o) }
        return CivilTime.utc(local: localMidnight + s, in: zone)
    }
}
