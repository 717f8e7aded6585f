import _FetchLabTestSupport
import FetchLabCore
import FetchLabIngest
import FetchLabResults
@testable import FetchLabStore
import Foundation
import GRDB
import Testing

/// Issue 26: signal events through the importer into SQLite and back into a user's history.
@Suite struct SignalStoreTests {
    static let foreground = """
        2023-12-19 13:00:00,com.a
        2023-12-19 13:00:10,com.android.launcher
        2023-12-19 13:00:20,com.android.launcher
        2023-12-19 13:00:30,android
        2023-12-19 13:00:40,com.a
        2023-12-19 13:10:00,com.android.systemui
        2023-12-19 13:10:30,com.b

        """

    /// Launcher and system-UI rows are stored as `system_ui` events and come back among the
    /// history's events, never its launches; the launches are the protocol's.
    @Test func foregroundSignalsAreStoredAndLoadedAsEventsNotLaunches() throws {
        let f = try Fixture()
        let s = try f.importer.importFile(try f.dir.writeGzip("foreground-user_x.csv.gz", Self.foreground))
        #expect(s.status == .imported)
        #expect(s.inserted.usageEvents == 4 && s.counts.signals == 2 && s.counts.signalRows == 3)
        #expect(s.counts.systemApps == 1 && s.unaccounted == 0)
        #expect(try f.launches("foreground-user_x").map(\.0) == ["com.a", "com.b"])
        let view = try f.rows("SELECT app, event FROM usage_events WHERE event = 'system_ui' ORDER BY time_us")
        #expect(view.map { $0["app"] as String } == ["com.android.launcher", "com.android.systemui"])

        let queries = UsageQueries(database: f.db)
        #expect(try queries.usersWithLaunches() == [UserID("foreground-user_x")])
        let h = try #require(try queries.history(of: UserID("foreground-user_x")))
        #expect(h.launches.map { h.apps[Int($0.app)].name } == ["com.a", "com.b"])
        #expect(h.events.map(\.kind) == [.systemUI, .systemUI])
        #expect(h.events.map { h.apps[Int($0.app)].name } == ["com.android.launcher", "com.android.systemui"])
        #expect(h.events.allSatisfy { $0.kind.isSignal })
    }

    /// The counts per kind, of everyone or of named users.
    @Test func signalCountsPerKind() throws {
        let f = try Fixture()
        _ = try f.importer.importFile(try f.dir.write("usage.csv", SignalFixtures.usage))
        let queries = UsageQueries(database: f.db)
        let all = try queries.signalCounts()
        #expect(all.unlock == SignalCounts.Tally(events: 2, users: 2))
        #expect(all.screenOn == SignalCounts.Tally(events: 1, users: 1))
        #expect(all.notification == SignalCounts.Tally(events: 1, users: 1))
        #expect(all.systemUI == SignalCounts.Tally())
        #expect(all.events == 4)
        let u2 = try queries.signalCounts(users: ["u2"])
        #expect(u2.unlock.events == 1 && u2.events == 1)
        // The device's signals are on `(device)`, which has no launch: not a pair of anyone's.
        #expect(try queries.appUsage().map(\.app).sorted() == ["com.a", "com.a"])
        let view = try f.rows("SELECT DISTINCT app FROM usage_events WHERE event IN ('unlock', 'screen_on')")
        #expect(view.map { $0["app"] as String } == [AppID.device.name])
    }

    /// A battery sampler's screen-on events do not make its device a user with launches: the
    /// summary and `inspect`'s notes still say its samples match no one.
    @Test func screenOnEventsDoNotHideAnUnmatchedDevice() throws {
        let f = try Fixture()
        _ = try f.importer.importFile(try f.dir.writeGzip("foreground-user_x.csv.gz", Self.foreground))
        let battery = """
            _id,ID,level,temperature,voltage,technology,status,health,usage,WiFi,Cellular,Hotspot,GPS,Bluetooth,RAM,Brightness,isInteractive,SampleFreq,brandModel,androidVersion,availCapacityPercentage,Timestamp
            1,dev1,80,30,4000,Li-ion,3,2,0,true,false,false,false,false,0,0,false,5,x,13,90,1702990800000
            2,dev1,79,30,4000,Li-ion,3,2,0,true,false,false,false,false,0,0,true,5,x,13,90,1702990810000

            """
        let s = try f.importer.importFile(try f.dir.write("battery-dev1.csv", battery))
        #expect(s.inserted.contextSamples == 2 && s.inserted.usageEvents == 1)
        #expect(s.counts.signals == 1 && s.unaccounted == 0)
        #expect(s.unmatchedContextUsers == ["dev1"])
        #expect(try UsageQueries(database: f.db).importNotes().unmatchedContextUsers == ["dev1"])
        // Mapped to the user of the launches, the screen-on joins that user's history.
        var options = ReadOptions()
        options.user = "foreground-user_x"
        let mapped = try f.importer.importFile(f.dir.path("battery-dev1.csv"), options: options)
        #expect(mapped.unmatchedContextUsers.isEmpty)
        let h = try #require(try UsageQueries(database: f.db).history(of: UserID("foreground-user_x")))
        #expect(h.events.filter { $0.kind == .screenOn }.map { h.apps[Int($0.app)] } == [AppID.device])
    }

    /// A strict import that fails on a bad signal row names file and line and stores nothing.
    @Test func aFailedImportLeavesTheDatabaseUnchanged() throws {
        let f = try Fixture()
        let path = try f.dir.write(
            "bad.csv",
            "timestamp,user,app,event\n2024-03-01T12:00:00Z,u,,unlock\n2024-03-01T12:00:01Z,u,,notification\n")
        var options = ReadOptions()
        options.strict = true
        #expect {
            _ = try f.importer.importFile(path, options: options)
        } throws: { error in
            "\(error)".contains("bad.csv:3: empty app on a notification event") && !"\(error)".contains("\n")
        }
        #expect(try f.count("usage_event") == 0)
        #expect(try f.count("app") == 0)
    }
}
