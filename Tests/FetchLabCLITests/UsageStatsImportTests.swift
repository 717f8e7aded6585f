import Foundation
import Testing
import _FetchLabTestSupport

/// `fetchlab import` of an `adb shell dumpsys usagestats` dump, then `fetchlab inspect`.
@Suite struct UsageStatsImportTests {
    let dir = TemporaryDirectory()
    var db: String { dir.path("usagestats.sqlite") }

    static func event(_ time: String, _ type: String, _ package: String, _ cls: String) -> String {
        "    time=\"\(time)\" type=\(type) package=\(package) class=\(cls) flags=0x0 instanceId=7"
    }

    /// Two users; user 0 opens com.news twice (2 launches), user 10 opens com.mail once.
    static let dump =
        [
            "user=0",
            "  In-memory daily stats",
            "  packages",
            "    package=com.news totalTimeUsed=\"00:05\" lastTimeUsed=\"2024-03-01 12:30:00\"",
            "  Last 24 hour events (timeRange=\"2024-03-01 00:00:00 - 2024-03-02 00:00:00\")",
            event("2024-03-01 12:00:00", "ACTIVITY_RESUMED", "com.news", "com.news.Main"),
            event("2024-03-01 12:00:30", "ACTIVITY_PAUSED", "com.news", "com.news.Main"),
            event("2024-03-01 12:00:30", "ACTIVITY_RESUMED", "com.news", "com.news.Article"),
            event("2024-03-01 12:02:00", "ACTIVITY_PAUSED", "com.news", "com.news.Article"),
            event("2024-03-01 12:30:00", "ACTIVITY_RESUMED", "com.news", "com.news.Main"),
            "user=10",
            "  Last 24 hour events (timeRange=\"2024-03-01 00:00:00 - 2024-03-02 00:00:00\")",
            event("2024-03-01 09:00:00", "MOVE_TO_FOREGROUND", "com.mail", "com.mail.Inbox"),
            event("2024-03-01 09:01:00", "MOVE_TO_BACKGROUND", "com.mail", "com.mail.Inbox"),
        ].joined(separator: "\n") + "\n"

    @Test func importPrintsTheNotEventsCountAndInspectShowsLaunchesPerUser() throws {
        let file = try dir.write("phone.txt", Self.dump)
        let imported = try dir.fetchlab(["import", "--db", db, file])
        #expect(imported.status == 0, "\(imported.err)")
        #expect(imported.out.contains("usagestats"), "\(imported.out)")
        #expect(imported.out.contains("7 lines skipped as not events"), "\(imported.out)")
        #expect(imported.out.contains("0 rejected"), "\(imported.out)")

        let json = try dir.fetchlab(["import", "--db", dir.path("other.sqlite"), "--format", "json", file])
        #expect(json.status == 0, "\(json.err)")
        #expect(json.out.contains("\"notEvents\""), "\(json.out)")

        let inspect = try dir.fetchlab(["inspect", "--db", db])
        #expect(inspect.status == 0, "\(inspect.err)")
        let user0 = try #require(inspect.out.split(separator: "\n").first { $0.hasPrefix("phone-user0") })
        let user10 = try #require(inspect.out.split(separator: "\n").first { $0.hasPrefix("phone-user10") })
        // user, app, launches, …
        #expect(user0.split(separator: " ").prefix(3) == ["phone-user0", "com.news", "2"], "\(user0)")
        #expect(user10.split(separator: " ").prefix(3) == ["phone-user10", "com.mail", "1"], "\(user10)")
    }
}
