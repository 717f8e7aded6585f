import Foundation
import Testing
import _FetchLabTestSupport

/// Issue 25, "right answers from naive use": `fetchlab import` with no options gives what the
/// evaluation protocol gives, and says what it dropped, what it could not link and which rows are
/// placeholders.
@Suite struct NaiveImportTests {
    let dir = TemporaryDirectory()
    var db: String { dir.path("naive.sqlite") }

    /// A foreground log: one app, the launcher between its uses, `android`, system UI, the logger,
    /// and two placeholder lines.
    let foreground = """
        2023-12-19 13:00:00,com.a
        2023-12-19 13:01:00,com.sec.android.app.launcher
        2023-12-19 13:02:00,com.a
        1970-01-01 01:00:00,com.a
        1970-01-01 01:00:00,com.sec.android.app.launcher
        2023-12-19 13:20:00,com.example.nextapp
        2023-12-19 13:21:00,android
        2023-12-19 13:22:00,com.android.systemui
        2023-12-19 13:30:00,com.b

        """

    @Test func systemAppsAreDroppedAndTheSummarySaysSo() throws {
        let file = try dir.writeGzip("foreground-user_x.csv.gz", foreground)
        let result = try dir.fetchlab(["import", "--db", db, file])
        #expect(result.status == 0, "\(result.err)")
        // The launcher and system UI are signals, not launches (issue 26); the logger and `android`
        // are dropped.
        #expect(
            result.out.contains(
                "dropped 2 rows of system apps (android and the logger): not apps the user chose, "
                    + "as the evaluation protocol says; --keep-system-apps keeps them"), "\(result.out)")
        #expect(result.out.contains("2 rows of launchers and system UI became 2 system-UI signals"), "\(result.out)")
        let inspect = try dir.fetchlab(["inspect", "--db", db])
        #expect(!inspect.out.contains("com.sec.android.app.launcher") && !inspect.out.contains("com.example.nextapp"), "\(inspect.out)")
        #expect(inspect.out.contains("Imports dropped 2 rows of system apps"), "\(inspect.out)")
        let notes = try #require(try dir.fetchlab(["inspect", "--db", db, "--format", "json"]).json()["notes"] as? [String: Any])
        #expect(notes["systemAppRowsDropped"] as? Int == 2)

        // JSON: the count is in the file's counts.
        let other = dir.path("json.sqlite")
        let json = try dir.fetchlab(["import", "--db", other, "--format", "json", file]).json()
        let counts = try #require(((json["files"] as? [[String: Any]])?.first?["counts"]) as? [String: Any])
        #expect(counts["systemApps"] as? Int == 2 && counts["excluded"] as? Int == 2 && counts["signals"] as? Int == 2)
        #expect(counts["placeholders"] as? Int == 2)
    }

    /// `--keep-system-apps` keeps them, and is another read of the same file (not "unchanged").
    @Test func keepSystemAppsKeepsThem() throws {
        let file = try dir.writeGzip("foreground-user_x.csv.gz", foreground)
        #expect(try dir.fetchlab(["import", "--db", db, file]).status == 0)
        let again = try dir.fetchlab(["import", "--db", db, "--keep-system-apps", file])
        #expect(again.status == 0, "\(again.err)")
        #expect(!again.out.contains("unchanged") && !again.out.contains("dropped"), "\(again.out)")
        let inspect = try dir.fetchlab(["inspect", "--db", db])
        #expect(inspect.out.contains("com.sec.android.app.launcher"), "\(inspect.out)")
    }

    @Test func placeholderRowsGetTheirOwnHint() throws {
        let file = try dir.writeGzip("foreground-user_x.csv.gz", foreground)
        let result = try dir.fetchlab(["import", "--db", db, file])
        #expect(
            result.out.contains(
                "2 rows at 1970-01-01 look like placeholder timestamps (epoch 0): they are rejected; nothing to change unless they are real"
            ), "\(result.out)")
        #expect(!result.out.contains("--earliest"), "\(result.out)")
    }

    static let battery = """
        _id,ID,level,temperature,voltage,technology,status,health,usage,WiFi,Cellular,Hotspot,GPS,Bluetooth,RAM,Brightness,isInteractive,SampleFreq,brandModel,androidVersion,availCapacityPercentage,Timestamp
        1,0826c571f98a4a818945860bc9091705,80,30,4000,Li-ion,3,2,0,true,false,false,false,false,0,0,true,5,x,13,90,1702990800000
        2,0826c571f98a4a818945860bc9091705,79,30,4000,Li-ion,3,2,0,true,false,false,false,false,0,0,true,5,x,13,90,1702990810000

        """

    /// Battery samples of a device that matches no user: one warning line on stderr, the device in
    /// the JSON; mapped with --user, none.
    @Test func contextOfAnUnknownDeviceIsSaidInOneLine() throws {
        let usage = try dir.writeGzip("foreground-user_x.csv.gz", foreground)
        let battery = try dir.writeGzip("battery-0826c5.csv.gz", Self.battery)
        #expect(try dir.fetchlab(["import", "--db", db, usage]).status == 0)
        let result = try dir.fetchlab(["import", "--db", db, battery])
        #expect(result.status == 0)
        #expect(
            result.err
                == "fetchlab: warning: \(battery): device 0826c5… matches no user with launches: its samples are stored "
                + "but no user's replay will use them; map it with --user NAME (the user of the launches)\n")
        let json = try dir.fetchlab(["import", "--db", dir.path("j.sqlite"), "--format", "json", battery]).json()
        let file = try #require((json["files"] as? [[String: Any]])?.first)
        #expect(file["unmatchedContextUsers"] as? [String] == ["0826c571f98a4a818945860bc9091705"])

        let mapped = try dir.fetchlab(["import", "--db", db, "--user", "foreground-user_x", battery])
        #expect(mapped.status == 0 && mapped.err.isEmpty, "\(mapped.err)")
    }

    /// A directory whose context file comes before its usage log in name order (the bundled
    /// sample: context.csv.gz, then usage.csv.gz): matched once every file is in, so no warning;
    /// the same context with no usage log still warns.
    @Test func contextReadBeforeItsUsageLogInOneImportIsMatched() throws {
        let sample = packageRoot().appendingPathComponent("Datasets/sample")
        let both = try dir.fetchlab([
            "import", "--db", db, sample.appendingPathComponent("context.csv.gz").path,
            sample.appendingPathComponent("usage.csv.gz").path, "--format", "json",
        ])
        #expect(both.status == 0 && both.err.isEmpty, "\(both.err)")
        let files = try #require(try both.json()["files"] as? [[String: Any]])
        #expect(files.allSatisfy { ($0["unmatchedContextUsers"] as? [String])?.isEmpty ?? true }, "\(files)")
        let alone = try dir.fetchlab([
            "import", "--db", dir.path("alone.sqlite"), sample.appendingPathComponent("context.csv.gz").path,
        ])
        #expect(alone.status == 0 && alone.err.contains("match no user with launches"), "\(alone.err)")
    }

    /// Context imported first: `inspect` says which devices no launch matches.
    @Test func inspectNamesContextWithoutLaunches() throws {
        let battery = try dir.writeGzip("battery-0826c5.csv.gz", Self.battery)
        #expect(try dir.fetchlab(["import", "--db", db, battery]).status == 0)
        let usage = try dir.writeGzip("foreground-user_x.csv.gz", foreground)
        #expect(try dir.fetchlab(["import", "--db", db, usage]).status == 0)
        let inspect = try dir.fetchlab(["inspect", "--db", db])
        #expect(inspect.out.contains("Context samples of 1 user or device with no launches (0826c5…)"), "\(inspect.out)")
    }
}
