import FetchLabCore
import Foundation
import Testing
import _FetchLabTestSupport

@testable import FetchLabIngest

/// `adb shell dumpsys usagestats` text, written in the shape AOSP's `UserUsageStatsService` prints.
@Suite struct UsageStatsFormatTests {
    /// An event line as the dump prints it (four spaces of indent, `key=value` pairs).
    static func event(_ time: String, _ type: String, _ package: String = "android", class name: String? = nil)
        -> String
    {
        let cls = name.map { " class=\($0)" } ?? ""
        return "    time=\"\(time)\" type=\(type) package=\(package)\(cls) flags=0x0 instanceId=12"
    }

    static func readDump(
        _ lines: [String], name: String = "phone.txt", _ configure: (inout ReadOptions) -> Void = { _ in }
    )
        throws -> ReadResult
    {
        try read(lines.joined(separator: "\n") + "\n", name: name, configure)
    }

    /// The launches and closes as "user app kind" strings.
    static func events(_ r: ReadResult) -> [String] {
        r.usage.map { "\(r.users[Int($0.user)]) \(r.apps[Int($0.app)]) \($0.kind)" }
    }

    static let header = [
        "user=0", "  Last 24 hour events (timeRange=\"2024-03-01 00:00:00 - 2024-03-02 00:00:00\")",
    ]

    @Test func newVocabularyLaunchesAndCloses() throws {
        let r = try Self.readDump(
            Self.header + [
                Self.event("2024-03-01 12:00:00", "ACTIVITY_RESUMED", "com.news", class: "com.news.Main"),
                Self.event("2024-03-01 12:01:00", "ACTIVITY_PAUSED", "com.news", class: "com.news.Main"),
                Self.event("2024-03-01 12:01:01", "ACTIVITY_STOPPED", "com.news", class: "com.news.Main"),
                Self.event("2024-03-01 12:20:00", "ACTIVITY_RESUMED", "com.mail", class: "com.mail.Inbox"),
            ])
        #expect(r.format == .usagestats)
        #expect(
            Self.events(r) == [
                "phone-user0 com.news launch", "phone-user0 com.news close", "phone-user0 com.mail launch",
            ])
        #expect(r.usage[1].time - r.usage[0].time == 60 * .perSecond)
        #expect(r.counts.notEvents == 2)
        #expect(r.counts.rows == 4)
        #expect(r.counts.merged == 1)
        #expect(r.rejects.isEmpty)
    }

    @Test func oldVocabularyLaunchesAndCloses() throws {
        let r = try Self.readDump([
            Self.event("2017-05-01 09:00:00", "MOVE_TO_FOREGROUND", "com.a", class: "com.a.X"),
            Self.event("2017-05-01 09:02:00", "MOVE_TO_BACKGROUND", "com.a", class: "com.a.X"),
            Self.event("2017-05-01 09:30:00", "MOVE_TO_FOREGROUND", "com.b", class: "com.b.Y"),
        ])
        #expect(r.format == .usagestats)
        #expect(Self.events(r) == ["phone com.a launch", "phone com.a close", "phone com.b launch"])
    }

    @Test func activitySwitchesWithinAnAppAreOneLaunch() throws {
        let r = try Self.readDump(
            Self.header + [
                Self.event("2024-03-01 12:00:00", "ACTIVITY_RESUMED", "com.news", class: "com.news.Main"),
                Self.event("2024-03-01 12:00:10", "ACTIVITY_PAUSED", "com.news", class: "com.news.Main"),
                Self.event("2024-03-01 12:00:10", "ACTIVITY_RESUMED", "com.news", class: "com.news.Article"),
                Self.event("2024-03-01 12:00:11", "ACTIVITY_STOPPED", "com.news", class: "com.news.Main"),
                Self.event("2024-03-01 12:02:00", "ACTIVITY_RESUMED", "com.news", class: "com.news.Video"),
                // Pause and resume of the same app within the gap (5 min).
                Self.event("2024-03-01 12:03:00", "ACTIVITY_PAUSED", "com.news", class: "com.news.Video"),
                Self.event("2024-03-01 12:06:00", "ACTIVITY_RESUMED", "com.news", class: "com.news.Main"),
            ])
        #expect(Self.events(r) == ["phone-user0 com.news launch"])
        #expect(r.counts.rows == 7)
        #expect(r.counts.merged == 6)
    }

    @Test func aResumeAfterTheSessionGapIsANewLaunch() throws {
        let lines =
            Self.header + [
                Self.event("2024-03-01 12:00:00", "ACTIVITY_RESUMED", "com.news", class: "M"),
                Self.event("2024-03-01 12:01:00", "ACTIVITY_PAUSED", "com.news", class: "M"),
                Self.event("2024-03-01 12:07:00", "ACTIVITY_RESUMED", "com.news", class: "M"),
            ]
        let r = try Self.readDump(lines)
        #expect(
            Self.events(r) == [
                "phone-user0 com.news launch", "phone-user0 com.news close", "phone-user0 com.news launch",
            ])
        // With a 10-minute gap, the same lines are one use.
        let longer = try Self.readDump(lines) { $0.sessionGap = 10 * .perMinute }
        #expect(Self.events(longer) == ["phone-user0 com.news launch"])
    }

    /// The launcher between two uses of an app is no launch by default: the app's return within the
    /// gap is the same use, and the launcher's resume is a system-UI signal (issue 26), its pause
    /// dropped (`--keep-system-apps` reads it as a launch).
    @Test func theLauncherIsASignalNotALaunchByDefault() throws {
        let lines =
            Self.header + [
                Self.event("2024-03-01 12:00:00", "ACTIVITY_RESUMED", "com.news", class: "M"),
                Self.event("2024-03-01 12:01:00", "ACTIVITY_PAUSED", "com.news", class: "M"),
                Self.event("2024-03-01 12:01:00", "ACTIVITY_RESUMED", "com.google.android.apps.nexuslauncher", class: "L"),
                Self.event("2024-03-01 12:01:30", "ACTIVITY_PAUSED", "com.google.android.apps.nexuslauncher", class: "L"),
                Self.event("2024-03-01 12:01:30", "ACTIVITY_RESUMED", "com.news", class: "M"),
            ]
        let r = try Self.readDump(lines)
        #expect(
            Self.events(r) == [
                "phone-user0 com.news launch", "phone-user0 com.google.android.apps.nexuslauncher system_ui",
            ])
        #expect(r.usage[1].time == r.usage[0].time + .perMinute)
        #expect(r.counts.systemApps == 1 && r.counts.excluded == 1 && r.counts.signals == 1)
        let kept = try Self.readDump(lines) { $0.keepSystemApps = true }
        #expect(
            Self.events(kept) == [
                "phone-user0 com.news launch", "phone-user0 com.news close",
                "phone-user0 com.google.android.apps.nexuslauncher launch",
                "phone-user0 com.google.android.apps.nexuslauncher close", "phone-user0 com.news launch",
            ])
        #expect(kept.counts.systemApps == 0)
    }

    @Test func severalUsersInterleavedSections() throws {
        let r = try Self.readDump([
            "user=0",
            Self.event("2024-03-01 12:00:00", "ACTIVITY_RESUMED", "com.a", class: "A"),
            "user=10",
            Self.event("2024-03-01 11:00:00", "ACTIVITY_RESUMED", "com.b", class: "B"),
            "user=0",
            Self.event("2024-03-01 12:00:30", "ACTIVITY_RESUMED", "com.a", class: "A"),
            Self.event("2024-03-01 12:01:00", "ACTIVITY_PAUSED", "com.a", class: "A"),
            "user=10",
            Self.event("2024-03-01 11:30:00", "ACTIVITY_RESUMED", "com.c", class: "C"),
        ])
        #expect(r.rejects.isEmpty)
        #expect(
            Self.events(r).sorted() == [
                "phone-user0 com.a close", "phone-user0 com.a launch", "phone-user10 com.b launch",
                "phone-user10 com.c launch",
            ])
        #expect(r.counts.notEvents == 4)
        // --user names the one user of every event.
        let one = try Self.readDump(["user=0", Self.event("2024-03-01 12:00:00", "ACTIVITY_RESUMED", "com.a")]) {
            $0.user = "ann"
        }
        #expect(Self.events(one) == ["ann com.a launch"])
    }

    @Test func contextEventsAndDeviceShutdown() throws {
        let r = try Self.readDump(
            Self.header + [
                Self.event("2024-03-01 12:00:00", "SCREEN_INTERACTIVE"),
                Self.event("2024-03-01 12:00:01", "KEYGUARD_HIDDEN"),
                Self.event("2024-03-01 12:00:02", "ACTIVITY_RESUMED", "com.a", class: "A"),
                Self.event("2024-03-01 12:00:03", "NOTIFICATION_INTERRUPTION", "com.b"),
                Self.event("2024-03-01 12:00:04", "CONFIGURATION_CHANGE"),
                Self.event("2024-03-01 12:00:05", "STANDBY_BUCKET_CHANGED", "com.b"),
                Self.event("2024-03-01 12:10:00", "DEVICE_SHUTDOWN"),
                Self.event("2024-03-01 12:20:00", "DEVICE_STARTUP"),
                Self.event("2024-03-01 12:20:05", "SCREEN_NON_INTERACTIVE"),
                Self.event("2024-03-01 12:20:06", "KEYGUARD_SHOWN"),
            ])
        // The screen on, the keyguard hidden and the notification are signals (issue 26), not uses.
        #expect(
            Self.events(r) == [
                "phone-user0 (device) screen_on", "phone-user0 (device) unlock", "phone-user0 com.a launch",
                "phone-user0 com.b notification", "phone-user0 com.a close",
            ])
        #expect(r.context.map(\.sample.screenOn) == [true, false])
        // Configuration, standby bucket, startup and the keyguard shown.
        #expect(r.counts.excluded == 4)
        #expect(r.counts.rows == 10)
    }

    @Test func nonEventSectionsAreSkippedAndCounted() throws {
        let r = try Self.readDump([
            "user=0",
            "  In-memory daily stats",
            "  timeRange=\"2024-03-01 00:00:00 - 2024-03-02 00:00:00\"",
            "  packages",
            "    package=com.a totalTimeUsed=\"01:00\" lastTimeUsed=\"2024-03-01 12:00:00\" appLaunchCount=3",
            "  ChooserCounts",
            "    com.a",
            "  configurations",
            "    config=en-rUS-ldltr totalTime=\"00:10\" lastTime=\"2024-03-01 12:00:00\" count=1",
            "  event aggregations",
            "    screen-on time=\"10:00\" count=4",
            "  events",
            Self.event("2024-03-01 12:00:00", "ACTIVITY_RESUMED", "com.a", class: "A"),
        ])
        #expect(Self.events(r) == ["phone-user0 com.a launch"])
        #expect(r.counts.notEvents == 12)
        #expect(r.counts.rows == 1)
        #expect(r.rejects.isEmpty)
    }

    @Test func aTruncatedDumpKeepsWhatIsComplete() throws {
        let text =
            (Self.header + [Self.event("2024-03-01 12:00:00", "ACTIVITY_RESUMED", "com.a", class: "A")])
            .joined(separator: "\n") + "\n    time=\"2024-03-01 12:0"
        let r = try read(text, name: "cut.txt")
        #expect(Self.events(r) == ["cut-user0 com.a launch"])
        #expect(r.rejects.map(\.line) == [4])
        #expect(
            r.rejects.first?.reason == "the dump ends inside this event (no line break after it): truncated, not read")
    }

    /// A dump cut inside `package=com.chrome` used to store an app "com.ch" with one launch and no
    /// reject: an event line the input ends in, without a line break, is rejected as truncated.
    @Test func aDumpCutInsideTheLastFieldStoresNothingOfThatEvent() throws {
        let text =
            (Self.header + [Self.event("2024-03-01 12:00:00", "ACTIVITY_RESUMED", "com.a", class: "A")])
            .joined(separator: "\n") + "\n    time=\"2024-03-01 12:05:00\" type=ACTIVITY_RESUMED package=com.ch"
        let r = try read(text, name: "cut.txt")
        #expect(Self.events(r) == ["cut-user0 com.a launch"])
        #expect(r.rejects.map(\.line) == [4])
        #expect(r.rejects.first?.reason.contains("truncated") == true)
        // The same line with its line break is an event like any other.
        let whole = try read(text + "\n", name: "cut.txt")
        #expect(whole.rejects.isEmpty)
        #expect(Self.events(whole) == ["cut-user0 com.a launch", "cut-user0 com.ch launch"])
    }

    @Test func malformedEventLinesAreRejectedWithTheirLines() throws {
        let r = try Self.readDump(
            Self.header + [
                Self.event("2024-03-01 12:00:00", "ACTIVITY_RESUMED", "com.a", class: "A"),
                "    time=\"2024-13-45 99:00:00\" type=ACTIVITY_RESUMED package=com.b",
                "    time=\"2024-03-01 12:00:05\" type=ACTIVITY_RESUMED",
                "    time=\"2024-03-01 12:00:06\" package=com.b",
                Self.event("2024-03-01 11:00:00", "ACTIVITY_RESUMED", "com.c"),
            ])
        #expect(r.rejects.map(\.line) == [4, 5, 6, 7])
        #expect(r.rejects[1].reason == "ACTIVITY_RESUMED event without a package")
        #expect(r.rejects[2].reason == "event without a type=")
        #expect(r.rejects[3].reason.hasPrefix("earlier than the previous event"))
        #expect(r.counts.rejected == 4)
        let strict = readError(
            (Self.header + ["    time=\"x\" type=ACTIVITY_RESUMED package=com.b"]).joined(separator: "\n"),
            name: "s.txt"
        ) {
            $0.strict = true
        }
        #expect(strict.contains("s.txt:3"))
    }

    @Test func exactRepeatsAreDuplicates() throws {
        let line = Self.event("2024-03-01 12:00:00", "ACTIVITY_RESUMED", "com.a", class: "A")
        let r = try Self.readDump(Self.header + [line, "  In-memory weekly stats", line])
        #expect(Self.events(r) == ["phone-user0 com.a launch"])
        #expect(r.counts.duplicate == 1)
    }

    @Test func localTimesFollowTheTimeZoneAcrossADSTChange() throws {
        let r = try Self.readDump(
            Self.header + [
                Self.event("2024-03-31 01:50:00", "ACTIVITY_RESUMED", "com.a", class: "A"),
                Self.event("2024-03-31 01:55:00", "ACTIVITY_PAUSED", "com.a", class: "A"),
                // 03:01 CEST is 6 minutes after 01:55 CET: past the 5-minute gap.
                Self.event("2024-03-31 03:01:00", "ACTIVITY_RESUMED", "com.a", class: "A"),
            ]
        ) { $0.timeZone = TimeZone(identifier: "Europe/Berlin") }
        #expect(Self.events(r) == ["phone-user0 com.a launch", "phone-user0 com.a close", "phone-user0 com.a launch"])
        #expect(r.usage.map(\.utcOffset) == [3600, 3600, 7200])
        #expect(r.usage[2].time - r.usage[1].time == 6 * .perMinute)
    }

    @Test func aGzippedDumpIsRead() throws {
        let dir = TemporaryDirectory()
        let text = (Self.header + [Self.event("2024-03-01 12:00:00", "ACTIVITY_RESUMED", "com.a", class: "A")])
            .joined(separator: "\n") + "\n"
        let reader = try LogReader(path: try dir.writeGzip("dump.txt.gz", text))
        #expect(reader.format == .usagestats)
        var usage: [UsageEvent] = []
        var users: [String] = []
        while let batch = try reader.nextBatch() {
            usage += batch.usage
            users += batch.newUsers
        }
        #expect(usage.count == 1)
        #expect(users == ["dump-user0"])
    }

    @Test(arguments: [
        "DUMP OF SERVICE usagestats:", "Flags:", "user=0", "Last 24 hour events (timeRange=\"x\")",
        "time=\"2024-03-01 12:00:00\" type=ACTIVITY_RESUMED package=a",
    ])
    func detectedFromTheFirstLine(first: String) {
        #expect(UsageStatsFormat.looksLikeDump(Array(first.utf8)))
    }
}
