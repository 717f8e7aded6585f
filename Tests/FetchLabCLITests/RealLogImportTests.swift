import Foundation
import GRDB
import Testing
import _FetchLabTestSupport

/// Issue 46, "real logs read right by default, or a word saying how they were read": zone-less
/// times, in-call and assistant screens, context apart in time from the launches, a two-column
/// CSV, a time zone in lower case.
@Suite struct RealLogImportTests {
    let dir = TemporaryDirectory()
    var db: String { dir.path("real.sqlite") }

    /// A foreground log (local time, no zone): an app, the in-call screen, the search overlay, the
    /// dialer (an app the user opens) and another app.
    let foreground = """
        2023-12-19 13:00:00.131000,com.a
        2023-12-19 13:01:00.000000,com.samsung.android.incallui
        2023-12-19 13:02:00.000000,com.google.android.googlequicksearchbox
        2023-12-19 13:03:00.000000,com.google.android.dialer
        2023-12-19 13:10:00.000000,com.b

        """

    static func battery(_ epochMilliseconds: [Int]) -> String {
        var text =
            "_id,ID,level,temperature,voltage,technology,status,health,usage,WiFi,Cellular,Hotspot,GPS,Bluetooth,RAM,"
            + "Brightness,isInteractive,SampleFreq,brandModel,androidVersion,availCapacityPercentage,Timestamp\n"
        for (i, ms) in epochMilliseconds.enumerated() {
            text +=
                "\(i + 1),0826c571f98a4a818945860bc9091705,80,30,4000,Li-ion,3,2,0,true,false,false,false,false,0,0,"
                + "false,5,x,13,90,\(ms)\n"
        }
        return text
    }

    /// 2020-05-01 and 2020-05-02 (UTC): years before the foreground log's launches.
    static let battery2020 = battery([1_588_291_200_000, 1_588_377_600_000])

    @Test func zonelessTimesReadAsUTCAreSaidOnce() throws {
        let file = try dir.writeGzip("foreground-user_x.csv.gz", foreground)
        let other = try dir.writeGzip("foreground-user_y.csv.gz", foreground + "2023-12-19 13:20:00.000000,com.c\n")
        let result = try dir.fetchlab(["import", "--db", db, file, other])
        #expect(result.status == 0, "\(result.err)")
        let note =
            "fetchlab: note: 11 timestamps had no zone and were read as UTC; give --timezone ZONE (e.g. Europe/Berlin) "
            + "if they are local time\n"
        #expect(result.err.components(separatedBy: "had no zone").count == 2, "\(result.err)")
        #expect(result.err.contains(note), "\(result.err)")
        let zoned = try dir.fetchlab(["import", "--db", dir.path("tz.sqlite"), "--timezone", "Europe/Berlin", file])
        #expect(zoned.status == 0 && !zoned.err.contains("had no zone"), "\(zoned.err)")
        let iso = try dir.write(
            "usage.csv", "timestamp,user,app\n2024-03-01T12:00:00Z,u,com.a\n2024-03-01T13:00:00+01:00,u,com.b\n")
        let withZone = try dir.fetchlab(["import", "--db", dir.path("iso.sqlite"), iso])
        #expect(withZone.status == 0 && withZone.err.isEmpty, "\(withZone.err)")
    }

    @Test func inCallAndSearchScreensAreSystemUINotApps() throws {
        let file = try dir.writeGzip("foreground-user_x.csv.gz", foreground)
        let result = try dir.fetchlab(["import", "--db", db, file])
        #expect(result.status == 0, "\(result.err)")
        #expect(result.out.contains("2 rows of launchers and system UI became 2 system-UI signals"), "\(result.out)")
        let inspect = try dir.fetchlab(["inspect", "--db", db])
        #expect(inspect.out.contains("com.google.android.dialer"), "\(inspect.out)")
        #expect(
            !inspect.out.contains("incallui") && !inspect.out.contains("googlequicksearchbox"), "\(inspect.out)")
        let kept = try dir.fetchlab(["import", "--db", dir.path("kept.sqlite"), "--keep-system-apps", file])
        #expect(kept.status == 0 && !kept.out.contains("system-UI signals"), "\(kept.out)")
    }

    /// Context from 2020 beside launches from 2023: one warning for all the files, saying no
    /// launch overlaps them, not the hint to map them with --user.
    @Test func contextApartInTimeIsSaidOnceWithoutTheMappingHint() throws {
        let usage = try dir.writeGzip("foreground-user_x.csv.gz", foreground)
        let one = try dir.write("battery-a.csv", Self.battery2020)
        let two = try dir.write(
            "battery-b.csv",
            Self.battery2020.replacingOccurrences(
                of: "0826c571f98a4a818945860bc9091705", with: "1d5b7e62aaf74ecab633470a5b96aaa4"))
        let result = try dir.fetchlab(["import", "--db", db, one, two, usage])
        #expect(result.status == 0, "\(result.err)")
        let warnings = result.err.split(separator: "\n").filter { $0.hasPrefix("fetchlab: warning:") }
        #expect(warnings.count == 1, "\(result.err)")
        let expected: String =
            "fetchlab: warning: 2 context files: 2 devices (0826c5…, 1d5b7e…) with samples from 2020-05-01 to "
            + "2020-05-02 that overlap no launch in the database (launches 2023-12-19): their samples are stored but "
            + "no replay will use them, and --user cannot help (import the usage logs of the same days)\n"
        #expect(result.err.hasPrefix(expected), "\(result.err)")
        #expect(!result.err.contains("map it with --user"), "\(result.err)")
    }

    /// `--user` maps the samples to a user whose launches they do not overlap: a warning.
    @Test func aUserMappingApartInTimeIsChecked() throws {
        let usage = try dir.writeGzip("foreground-user_x.csv.gz", foreground)
        #expect(try dir.fetchlab(["import", "--db", db, usage]).status == 0)
        let battery = try dir.write("battery-a.csv", Self.battery2020)
        let mapped = try dir.fetchlab(["import", "--db", db, "--user", "foreground-user_x", battery])
        #expect(mapped.status == 0, "\(mapped.err)")
        #expect(
            mapped.err
                == "fetchlab: warning: \(battery): the samples of user foreground-user_x (2020-05-01 to 2020-05-02) do "
                + "not overlap its launches (2023-12-19) in time: no replay will use them; check the user named and the "
                + "timestamps (--epoch-unit, --timezone)\n")
        // Samples of the same day: no warning.
        let sameDay = try dir.write("battery-b.csv", Self.battery([1_702_990_900_000, 1_702_991_000_000]))
        let fine = try dir.fetchlab(["import", "--db", db, "--user", "foreground-user_x", sameDay])
        #expect(fine.status == 0 && fine.err.isEmpty, "\(fine.err)")
    }

    /// A `timestamp,app` CSV is read as content updates, and the summary says so and names the
    /// option that reads it as launches.
    @Test func twoColumnCSVSaysHowItWasRead() throws {
        let file = try dir.write("apps.csv", "timestamp,app\n2024-03-01T12:00:00Z,com.a\n2024-03-01T12:05:00Z,com.b\n")
        let result = try dir.fetchlab(["import", "--db", db, file])
        #expect(result.status == 0, "\(result.err)")
        #expect(result.out.contains("2 new content updates"), "\(result.out)")
        #expect(
            result.out.contains(
                "  read as content updates (timestamp and app, no user: an app's new content, for every user); "
                    + "if they are launches, --user NAME reads them as that user's launches"), "\(result.out)")
        let stated = try dir.fetchlab(["import", "--db", dir.path("c.sqlite"), "--input-format", "content", file])
        #expect(stated.status == 0 && !stated.out.contains("read as content updates"), "\(stated.out)")
        let launches = try dir.fetchlab(["import", "--db", dir.path("u.sqlite"), "--user", "me", file])
        #expect(launches.status == 0 && launches.out.contains("2 new events"), "\(launches.out)")
    }

    @Test func timeZoneNamesAreReadInAnyCase() throws {
        let file = try dir.write("usage.csv", "timestamp,user,app\n2024-01-15 12:00:00,u,com.a\n")
        let result = try dir.fetchlab(["import", "--db", db, "--timezone", "europe/berlin", file])
        #expect(result.status == 0, "\(result.err)")
        let times = try DatabaseQueue(path: db).read {
            try String.fetchAll($0, sql: "SELECT time_utc FROM usage_events")
        }
        #expect(times == ["2024-01-15T11:00:00.000Z"])
        let options = try DatabaseQueue(path: db).read { try String.fetchAll($0, sql: "SELECT options FROM import") }
        #expect(options.first?.contains("Berlin") == true, "\(options)")
        let utc = try dir.fetchlab(["import", "--db", dir.path("utc.sqlite"), "--timezone", "utc", file])
        #expect(utc.status == 0 && !utc.err.contains("had no zone"), "\(utc.err)")
        let wrong = try dir.fetchlab(["import", "--db", dir.path("w.sqlite"), "--timezone", "Mars/Olympus", file])
        #expect(wrong.status == 64, "\(wrong.err)")
    }
}
