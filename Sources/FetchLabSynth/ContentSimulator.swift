import FetchLabCore
import Foundation

/// When new content appears for each app: the global update processes of the catalog.
public enum ContentSimulator {
    /// Update instants (UTC seconds, with the publisher's UTC offset) of `process` over the
    /// local days `startDay ..< startDay + days`, in time order.
    public static func updates(
        _ process: ContentProcess, startDay: Int, days: Int, seed: UInt64, stream: Int
    ) -> [(utc: Int, offset: Int)] {
        var rng = SeededRandom(seed: seed, stream: "content", index: stream)
        guard let zone = TimeZoneCache.zone(process.timeZone) else { return [] }
        var out: [(utc: Int, offset: Int)] = []
        func add(day: Int, second: Int) {
            let (utc, offset) = DayClock(day: startDay + day, zone: zone).utc(secondsAfterMidnight: second)
            if let last = out.last, utc <= last.utc { return }
            out.append((utc, offset))
        }
        switch process.kind {
        case .interval:
            let from = Double(process.activeFrom ?? 0) * 60
            let to = Double(process.activeTo ?? 1440) * 60
            for d in 0..<days {
                var s = rng.uniform(0, 600)
                while s < Double(Seconds.perDay) {
                    add(day: d, second: Int(s))
                    let active = s >= from && s < to
                    s +=
                        active
                        ? rng.uniform(process.minMinutes ?? 30, process.maxMinutes ?? 30) * 60
                        : (process.nightMinutes ?? 1440) * 60 * rng.uniform(0.8, 1.2)
                }
            }
        case .poisson:
            let (begin, _) = DayClock(day: startDay, zone: zone).utc(secondsAfterMidnight: 0)
            let (end, _) = DayClock(day: startDay + days, zone: zone).utc(secondsAfterMidnight: 0)
            var t = Double(begin) + rng.exponential(mean: (process.meanMinutes ?? 60) * 60)
            while t < Double(end) {
                let utc = Int(t)
                if out.last.map({ utc > $0.utc }) ?? true {
                    out.append((utc, CivilTime.offset(zone, atUTC: utc)))
                }
                t += rng.exponential(mean: (process.meanMinutes ?? 60) * 60)
            }
        case .daily:
            for d in 0..<days {
                for minute in (process.minutes ?? [0]).sorted() {
                    let s = Double(minute) * 60 + rng.normal(sd: (process.jitterMinutes ?? 0) * 60)
                    add(day: d, second: min(Int(Seconds.perDay) - 1, max(0, Int(s))))
                }
            }
        case .hourly:
            for d in 0..<days {
                for h in 0..<24 { add(day: d, second: h * Int(Seconds.perHour)) }
            }
        case .weekly:
            for d in 0..<days where LocalCalendar.weekday(startDay + d) == (process.weekday ?? 2) {
                add(day: d, second: (process.minutes?.first ?? 0) * 60)
            }
        }
        return out
    }
}
