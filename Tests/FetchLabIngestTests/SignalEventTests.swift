import FetchLabCore
import Foundation
import Testing
import _FetchLabTestSupport

@testable import FetchLabIngest

/// Issue 26, "signals as events": every reader whose source carries them makes unlock, screen-on,
/// notification and system-UI events — never launches.
@Suite struct SignalEventTests {
    /// The events as "app kind" strings, in order.
    static func events(_ r: ReadResult) -> [String] { r.usage.map { "\(r.apps[Int($0.app)]) \($0.kind)" } }

    static func launches(_ r: ReadResult) -> [String] {
        r.usage.filter { $0.kind == .launch }.map { r.apps[Int($0.app)] }
    }

    static func readForeground(_ lines: [String], _ configure: (inout ReadOptions) -> Void = { _ in }) throws
        -> ReadResult
    {
        try read(lines.joined(separator: "\n") + "\n", name: "foreground-u.csv", configure)
    }

    // MARK: Foreground logs

    /// Launchers and system UI are system-UI signals of their package; `android` and the logger are
    /// still dropped; the launches are the protocol's; every row is counted once.
    @Test func launcherAndSystemUIRowsAreSignalsNotLaunches() throws {
        let r = try Self.readForeground([
            "2023-12-19 13:00:00,com.a", "2023-12-19 13:00:10,com.sec.android.app.launcher",
            "2023-12-19 13:00:20,android", "2023-12-19 13:00:30,com.android.systemui",
            "2023-12-19 13:00:40,com.example.nextapp", "2023-12-19 13:00:50,com.a", "2023-12-19 13:10:00,com.b",
        ])
        #expect(
            Self.events(r) == [
                "com.a launch", "com.sec.android.app.launcher system_ui", "com.android.systemui system_ui",
                "com.b launch",
            ])
        #expect(r.usage[1].time == ForegroundTimes.us("2023-12-19 13:00:10"))
        #expect(r.counts.excluded == 2 && r.counts.systemApps == 2)
        #expect(r.counts.merged == 1)
        #expect(r.counts.signals == 2 && r.counts.signalRows == 2)
        #expect(r.counts.rows == r.usage.count + r.counts.excluded + r.counts.merged)
    }

    /// Consecutive rows of one system app within the session gap are one signal; a dropped row
    /// between them does not part them, an app's row or the gap does.
    @Test func consecutiveRowsOfOneSystemAppAreOneSignal() throws {
        let r = try Self.readForeground([
            "2023-12-19 13:00:00,com.android.launcher", "2023-12-19 13:02:00,com.android.launcher",
            "2023-12-19 13:03:00,android", "2023-12-19 13:04:00,com.android.launcher",
            "2023-12-19 13:10:00,com.android.launcher", "2023-12-19 13:11:00,com.a",
            "2023-12-19 13:12:00,com.android.launcher", "2023-12-19 13:12:30,com.android.systemui",
        ])
        #expect(
            r.usage.filter { $0.kind == .systemUI }.map(\.time).map(ForegroundTimes.clock) == [
                "13:00:00", "13:10:00", "13:12:00", "13:12:30",
            ])
        #expect(Self.launches(r) == ["com.a"])
        #expect(r.counts.signalRows == 6 && r.counts.signals == 4 && r.counts.merged == 2)
    }

    /// The launches are exactly those of dropping every system app before sessionising (the
    /// protocol), on seeded random logs: signals never change a launch.
    @Test func launchesAreTheProtocolsWhateverTheSystemRows() throws {
        let apps = [
            "com.a", "com.b", "com.c", "com.android.launcher", "com.android.systemui", "android",
            "com.example.nextapp",
        ]
        for seed in UInt64(0)..<20 {
            var rng = SplitMix64(seed: seed)
            var t = 0
            var lines: [String] = []
            for _ in 0..<400 {
                t += Int.random(in: 1...400, using: &rng)
                lines.append("\(ForegroundTimes.text(t)),\(apps.randomElement(using: &rng)!)")
            }
            let signals = try Self.readForeground(lines)
            let protocolOnly = try Self.readForeground(lines) {
                $0.keepSystemApps = true
                $0.excludedApps = ReadOptions.systemApps
            }
            let launches = signals.usage.filter { $0.kind == .launch }
            #expect(launches.map(\.time) == protocolOnly.usage.map(\.time), "seed \(seed)")
            #expect(Self.launches(signals) == protocolOnly.usageApps, "seed \(seed)")
            #expect(signals.usage.allSatisfy { $0.kind == .launch || $0.kind == .systemUI })
        }
    }

    /// `--keep-system-apps` reads them as launches, as before: no signal.
    @Test func keepSystemAppsReadsThemAsLaunches() throws {
        let r = try Self.readForeground([
            "2023-12-19 13:00:00,com.a", "2023-12-19 13:00:10,com.android.launcher", "2023-12-19 13:00:20,com.a",
        ]) { $0.keepSystemApps = true }
        #expect(Self.events(r) == ["com.a launch", "com.android.launcher launch", "com.a launch"])
        #expect(r.counts.signals == 0 && r.counts.signalRows == 0)
    }

    // MARK: The canonical usage format

    @Test func usageEventsNameSignals() throws {
        let r = try read(
            """
            timestamp,user,app,event
            2024-03-01T12:00:00Z,u,,unlock
            2024-03-01T12:00:01Z,u,,screen_on
            2024-03-01T12:00:02Z,u,com.a,notification
            2024-03-01T12:00:03Z,u,com.android.launcher,system_ui
            2024-03-01T12:00:04Z,u,com.a,launch
            2024-03-01T12:00:05Z,u,,KEYGUARD_HIDDEN
            2024-03-01T12:00:06Z,u,com.b,Notified
            2024-03-01T12:00:07Z,u,(device),screen-on

            """)
        #expect(r.rejects.isEmpty)
        #expect(
            Self.events(r) == [
                "(device) unlock", "(device) screen_on", "com.a notification", "com.android.launcher system_ui",
                "com.a launch", "(device) unlock", "com.b notification", "(device) screen_on",
            ])
        #expect(r.apps.filter { $0 == AppID.device.name }.count == 1)
        #expect(r.counts.signals == 7 && r.counts.accepted == 8)
    }

    /// An app is needed by every event but the device's; the reject says so in one line, and with
    /// `--strict` the error names the file and line.
    @Test func aSignalOfAnAppWithoutAnAppIsRejected() throws {
        let text = "timestamp,user,app,event\n2024-03-01T12:00:00Z,u,,notification\n2024-03-01T12:00:01Z,u,,launch\n"
        let r = try read(text)
        #expect(
            r.rejects.map(\.reason) == [
                "empty app on a notification event (only unlock and screen_on, the device's, may leave it empty)",
                "empty app",
            ])
        #expect(r.usage.isEmpty)
        let strict = readError(text, name: "u.csv") { $0.strict = true }
        #expect(strict.contains("u.csv:2: empty app on a notification event"), "\(strict)")
        #expect(!strict.contains("\n"))
        let unknown = try read("timestamp,user,app,event\n2024-03-01T12:00:00Z,u,com.a,wake\n")
        #expect(unknown.rejects.first?.reason.contains("unlock, screen_on, notification or system_ui") == true)
    }

    // MARK: usagestats

    @Test func usageStatsScreenKeyguardAndNotificationsAreSignals() throws {
        func event(_ time: String, _ type: String, _ package: String = "android") -> String {
            "    time=\"2024-03-01 \(time)\" type=\(type) package=\(package) flags=0x0"
        }
        let r = try read(
            [
                "user=0", event("08:00:00", "SCREEN_INTERACTIVE"), event("08:00:01", "KEYGUARD_SHOWN"),
                event("08:00:05", "KEYGUARD_HIDDEN"), event("08:01:00", "NOTIFICATION_INTERRUPTION", "com.chat"),
                event("08:01:10", "ACTIVITY_RESUMED", "com.chat"),
                event("08:02:00", "NOTIFICATION_INTERRUPTION", "android"),
                event("08:03:00", "SCREEN_NON_INTERACTIVE"),
            ].joined(separator: "\n") + "\n", name: "phone.txt")
        #expect(r.format == .usagestats)
        #expect(r.rejects.isEmpty)
        #expect(
            Self.events(r) == [
                "(device) screen_on", "(device) unlock", "com.chat notification", "com.chat launch",
            ])
        #expect(r.context.map(\.sample.screenOn) == [true, false])
        // The keyguard shown is skipped; the notification of `android` is a system app's, dropped.
        #expect(r.counts.excluded == 2 && r.counts.systemApps == 1)
        #expect(r.counts.derived == 1 && r.counts.signals == 3)
        let noPackage = try read(
            "user=0\n" + event("08:00:00", "NOTIFICATION_INTERRUPTION", "null") + "\n", name: "p.txt")
        #expect(noPackage.rejects.map(\.reason) == ["NOTIFICATION_INTERRUPTION event without a package"])
    }

    /// A dump's launcher resumes are system-UI signals, one per visit: a resume of the same
    /// launcher within the gap with no app between continues it; the launches are unchanged.
    @Test func usageStatsLauncherResumesAreSignals() throws {
        func event(_ time: String, _ type: String, _ package: String, _ cls: String) -> String {
            "    time=\"2024-03-01 \(time)\" type=\(type) package=\(package) class=\(cls) flags=0x0"
        }
        let launcher = "com.android.launcher3"
        let lines = [
            "user=0", event("09:00:00", "ACTIVITY_RESUMED", launcher, "L"),
            event("09:00:20", "ACTIVITY_PAUSED", launcher, "L"), event("09:00:30", "ACTIVITY_RESUMED", launcher, "L"),
            event("09:00:40", "ACTIVITY_PAUSED", launcher, "L"), event("09:00:40", "ACTIVITY_RESUMED", "com.a", "A"),
            event("09:02:00", "ACTIVITY_PAUSED", "com.a", "A"), event("09:02:00", "ACTIVITY_RESUMED", launcher, "L"),
            event("09:09:00", "ACTIVITY_RESUMED", "com.android.systemui", "S"),
        ]
        let r = try read(lines.joined(separator: "\n") + "\n", name: "phone.txt")
        #expect(
            Self.events(r) == [
                "\(launcher) system_ui", "com.a launch", "\(launcher) system_ui", "com.a close",
                "com.android.systemui system_ui",
            ])
        #expect(r.counts.signals == 3 && r.counts.signalRows == 4 && r.counts.merged == 1)
        #expect(r.counts.systemApps == 2)
        let kept = try read(lines.joined(separator: "\n") + "\n", name: "phone.txt") { $0.keepSystemApps = true }
        #expect(kept.counts.signals == 0 && kept.usage.filter { $0.kind == .launch }.count == 4)
    }

    // MARK: The battery sampler

    static let batteryHeader =
        "_id,ID,level,temperature,voltage,technology,status,health,usage,WiFi,Cellular,Hotspot,GPS,Bluetooth,RAM,Brightness,isInteractive,SampleFreq,brandModel,androidVersion,availCapacityPercentage,Timestamp"

    static func batteryRow(_ id: Int, _ device: String, interactive: String, ms: Int64) -> String {
        "\(id),\(device),80,30,4000,Li-ion,3,2,0,true,false,false,false,false,0,0,\(interactive),5,x,13,90,\(ms)"
    }

    /// A screen turning on (its first true, then each false → true) is a screen-on event of the
    /// device, per device; every row is still a context sample.
    @Test func batteryScreenTransitionsAreScreenOnEvents() throws {
        let t0: Int64 = 1_702_990_800_000
        let rows = [
            Self.batteryRow(1, "d1", interactive: "true", ms: t0),
            Self.batteryRow(2, "d1", interactive: "true", ms: t0 + 10_000),
            Self.batteryRow(3, "d2", interactive: "false", ms: t0 + 10_000),
            Self.batteryRow(4, "d1", interactive: "false", ms: t0 + 20_000),
            Self.batteryRow(5, "d1", interactive: "", ms: t0 + 25_000),
            Self.batteryRow(6, "d2", interactive: "true", ms: t0 + 30_000),
            Self.batteryRow(7, "d1", interactive: "true", ms: t0 + 40_000),
            Self.batteryRow(8, "d1", interactive: "1", ms: t0 + 50_000),
        ]
        let r = try read(([Self.batteryHeader] + rows).joined(separator: "\n") + "\n", name: "battery.csv")
        #expect(r.format == .battery)
        #expect(r.context.count == 8)
        #expect(r.usage.allSatisfy { $0.kind == .screenOn && r.apps[Int($0.app)] == AppID.device.name })
        #expect(
            r.usage.map { "\(r.users[Int($0.user)]) \(($0.time.sinceEpoch / 1_000) - t0)" } == [
                "d1 0", "d2 30000", "d1 40000",
            ])
        #expect(r.counts.derived == 3 && r.counts.signals == 3 && r.counts.rows == 8)
    }
}

/// Times of foreground lines: `2023-12-19 00:00:00` plus seconds, and back.
enum ForegroundTimes {
    static let start = CivilDate(year: 2023, month: 12, day: 19).daysSince1970

    static func text(_ seconds: Int) -> String {
        let day = CivilDate(daysSince1970: start + seconds / 86_400)
        let s = seconds % 86_400
        return "\(day) \(clock(Instant(secondsSince1970: Int64(s))))"
    }

    /// `HH:MM:SS` of an instant (UTC).
    static func clock(_ t: Instant) -> String {
        let s = Int((t.sinceEpoch / .perSecond) % 86_400)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(two(s / 3600)):\(two(s / 60 % 60)):\(two(s % 60))"
    }

    /// The instant of `YYYY-MM-DD HH:MM:SS` (UTC).
    static func us(_ text: String) -> Instant {
        let parts = text.split(separator: " ")
        let date = parts[0].split(separator: "-").map { Int($0)! }
        let time = parts[1].split(separator: ":").map { Int64($0)! }
        let day = CivilDate(year: date[0], month: date[1], day: date[2]).daysSince1970
        return Instant(secondsSince1970: Int64(day) * 86_400 + time[0] * 3600 + time[1] * 60 + time[2])
    }
}
