import FetchLabCore
import Foundation
import Testing
import _FetchLabTestSupport

@testable import FetchLabIngest

@Suite struct ForegroundFormatTests {
    /// `n` foreground lines, one a minute from 2023-12-19 00:00, cycling through three apps.
    static func lines(_ n: Int) -> [String] {
        (0..<n).map { i in
            let date = CivilDate(daysSince1970: CivilDate(year: 2023, month: 12, day: 19).daysSince1970 + i / 1440)
            let minute = i % 1440
            return "\(date) \(pad(minute / 60)):\(pad(minute % 60)):00,com.app\(i % 3)"
        }
    }

    static func pad(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }

    static func readForeground(_ lines: [String], _ configure: (inout ReadOptions) -> Void = { _ in }) throws
        -> ReadResult
    {
        try read(lines.joined(separator: "\n") + "\n", name: "foreground-u.csv", configure)
    }

    // MARK: --reorder-window

    /// A line a day out of order is rejected whether the file is small or large (before, only
    /// files of more than 8,192 lines checked the window).
    @Test(arguments: [10, 10_000])
    func aLineOutOfOrderBeyondTheWindowIsRejectedAtAnySize(size: Int) throws {
        var lines = Self.lines(size)
        lines.append("2023-12-18 12:00:00,com.late")
        let result = try Self.readForeground(lines)
        #expect(result.rejects.map(\.line) == [size + 1])
        #expect(result.rejects.first?.reason == "out of order by more than 1h (raise --reorder-window)")
        #expect(!result.apps.contains("com.late"))
    }

    @Test func aLineOutOfOrderWithinTheWindowIsSortedIn() throws {
        let result = try Self.readForeground([
            "2023-12-19 13:00:00,com.a", "2023-12-19 13:30:00,com.b", "2023-12-19 12:40:00,com.c",
        ])
        #expect(result.rejects.isEmpty)
        #expect(result.usageApps == ["com.c", "com.a", "com.b"])
    }

    @Test func theWindowIsMeasuredFromTheNewestLineSeen() throws {
        // 12:30 is within an hour of 13:00 but not of 14:00, the newest line before it.
        let result = try Self.readForeground([
            "2023-12-19 13:00:00,com.a", "2023-12-19 14:00:00,com.b", "2023-12-19 12:30:00,com.c",
        ])
        #expect(result.rejects.map(\.line) == [3])
    }

    /// Many lines within the window of each other (more than the buffer's first flush) are all kept
    /// and released in time order.
    @Test func aDenseWindowLargerThanTheBufferStaysInOrder() throws {
        var lines: [String] = []
        for i in 0..<20_000 {
            // Ten samples a second: 2,000 s, all within the hour; every other pair swapped.
            let t = i % 2 == 0 ? i + 1 : i - 1
            lines.append("2023-12-19 10:\(Self.pad(t / 600)):\(Self.pad(t / 10 % 60)).\(t % 10)00000,com.app\(t / 50)")
        }
        let result = try Self.readForeground(lines)
        #expect(result.rejects.isEmpty)
        #expect(result.usage.count == 400)
        #expect(result.usage.map(\.time) == result.usage.map(\.time).sorted())
        #expect(result.counts.merged == 20_000 - 400)
    }

    // MARK: --exclude before sessions

    /// "A, launcher for 20 s, A" is one use of A: excluded samples are dropped before sessionising.
    @Test func aReturnAfterOnlyExcludedSamplesIsTheSameUse() throws {
        let result = try Self.readForeground([
            "2023-12-19 13:00:00,com.a", "2023-12-19 13:00:10,com.android.launcher",
            "2023-12-19 13:00:30,com.android.launcher", "2023-12-19 13:00:40,com.a",
        ]) { $0.excludedApps = ["*launcher*"] }
        #expect(result.usageApps == ["com.a"])
        #expect(result.counts.excluded == 2)
        #expect(result.counts.merged == 1)
    }

    @Test func aReturnAfterTheGapIsANewLaunchEvenAcrossExcludedSamples() throws {
        let result = try Self.readForeground([
            "2023-12-19 13:00:00,com.a", "2023-12-19 13:01:00,com.android.launcher", "2023-12-19 13:06:00,com.a",
        ]) { $0.excludedApps = ["*launcher*"] }
        #expect(result.usageApps == ["com.a", "com.a"])
        #expect(result.counts.merged == 0)
    }

    // MARK: System apps, dropped by default

    /// Without options, the launcher, `android`, system UI and the logger are removed before
    /// sessions (DOMAIN.md's protocol): "A, launcher, A" is one use of A. `android` and the logger
    /// are dropped (counted as excluded and as a system app's); the launcher and system UI are
    /// system-UI signals (issue 26), never launches.
    @Test func systemAppsAreNotLaunchesByDefault() throws {
        let lines = [
            "2023-12-19 13:00:00,com.a", "2023-12-19 13:00:10,com.sec.android.app.launcher",
            "2023-12-19 13:00:20,android", "2023-12-19 13:00:30,com.android.systemui",
            "2023-12-19 13:00:40,com.example.nextapp", "2023-12-19 13:00:50,com.a", "2023-12-19 13:10:00,com.b",
        ]
        let result = try Self.readForeground(lines)
        #expect(result.usage.filter { $0.kind == .launch }.map { result.apps[Int($0.app)] } == ["com.a", "com.b"])
        #expect(
            result.usage.filter { $0.kind == .systemUI }.map { result.apps[Int($0.app)] } == [
                "com.sec.android.app.launcher", "com.android.systemui",
            ])
        #expect(result.counts.excluded == 2 && result.counts.systemApps == 2)
        #expect(result.counts.merged == 1)

        let kept = try Self.readForeground(lines) { $0.keepSystemApps = true }
        #expect(
            kept.usageApps == [
                "com.a", "com.sec.android.app.launcher", "android", "com.android.systemui", "com.example.nextapp",
                "com.a", "com.b",
            ])
        #expect(kept.counts.excluded == 0 && kept.counts.systemApps == 0 && kept.counts.signals == 0)
    }

    /// `--exclude` still counts as excluded, not as a system app's, even for a launcher.
    @Test func anExcludeOfASystemAppCountsAsTheExclude() throws {
        let result = try Self.readForeground([
            "2023-12-19 13:00:00,com.a", "2023-12-19 13:00:10,com.android.launcher", "2023-12-19 13:00:20,android",
        ]) { $0.excludedApps = ["*launcher*"] }
        #expect(result.counts.excluded == 2 && result.counts.systemApps == 1)
    }

    /// FetchLab's own usage format keeps every app it is given: only the Android logs that record
    /// whatever is in front drop system apps.
    @Test func otherFormatsKeepSystemApps() throws {
        let result = try read("timestamp,user,app\n2024-03-01T12:00:00Z,u,com.android.launcher\n")
        #expect(result.usage.count == 1 && result.counts.systemApps == 0)
    }

    @Test func anotherAppBetweenEndsTheSession() throws {
        let result = try Self.readForeground([
            "2023-12-19 13:00:00,com.a", "2023-12-19 13:00:10,com.b", "2023-12-19 13:00:20,com.a",
        ])
        #expect(result.usageApps == ["com.a", "com.b", "com.a"])
    }

    // MARK: Counts

    @Test func mergedRowsAreCounted() throws {
        let result = try Self.readForeground([
            "2023-12-19 13:00:00,com.a", "2023-12-19 13:01:00,com.a", "2023-12-19 13:01:00,com.a",
            "2023-12-19 13:02:00,com.a", "2023-12-19 13:20:00,com.a",
        ])
        #expect(result.usage.count == 2)
        #expect(result.counts.duplicate == 1)
        #expect(result.counts.merged == 2)
    }

    /// rows = launches + duplicate + excluded + merged + rejected, over a generated file with every
    /// kind of row: sessions, gaps, duplicates, excluded launchers, reordered and bad lines.
    @Test(arguments: [UInt64(1), 2, 3])
    func everyRowIsCountedOnce(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        var time = try TimestampParser().parseCopy("2023-12-19T08:00:00Z")
        var last = Self.line(time, "com.app0")
        var lines = [last]
        for _ in 0..<30_000 {
            let r = Int(rng.next() % 100)
            switch r {
            case 0..<2:
                lines.append(last)  // an exact duplicate
                continue
            case 2..<3:
                lines.append("not a line")
                continue
            case 3..<4:
                lines.append(Self.line(time - .minutes(Int64(rng.next() % 120)), "com.late"))  // maybe beyond the window
                continue
            default: break
            }
            time += .seconds(Int64(rng.next() % 90) + 1) + (r < 8 ? 10 * .perMinute : 0)
            let app = r < 20 ? "com.android.launcher" : "com.app\(rng.next() % (r < 60 ? 2 : 6))"
            last = Self.line(time, app)
            lines.append(last)
        }
        let result = try Self.readForeground(lines) {
            $0.excludedApps = ["*launcher*"]
            $0.format = .foreground
        }
        let c = result.counts
        #expect(c.rows == lines.count)
        #expect(c.rejected > 0 && c.duplicate > 0 && c.excluded > 0 && c.merged > 0)
        #expect(c.rows == result.usage.count + c.duplicate + c.excluded + c.merged + c.rejected)
        #expect(c.accepted == c.rows - c.rejected)
    }

    static func line(_ time: Instant, _ app: String) -> String {
        let seconds = time.wholeSeconds
        let day = LocalCalendar.day(localSeconds: seconds)
        let s = Int(seconds - Int64(day) * Seconds.perDay)
        let (hour, minute) = (Int(Seconds.perHour), Int(Seconds.perMinute))
        let (h, m, sec) = (s / hour, s % hour / minute, s % minute)
        return "\(CivilDate(daysSince1970: day)) \(pad(h)):\(pad(m)):\(pad(sec)),\(app)"
    }
}

extension TimestampParser {
    /// The microseconds of an ISO-8601 text (tests).
    fileprivate func parseCopy(_ text: String) throws -> Instant {
        var copy = self
        return try copy.parse(text).time
    }
}
