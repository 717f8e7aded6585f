import Foundation
import Testing
import _FetchLabTestSupport

/// Issue 45, with the real binary: any date `import` accepts works in every command (before 1970
/// and far ahead), and `--earliest`/`--latest` read a date alone, their own defaults included.
@Suite struct FarDatesTests {
    let dir = TemporaryDirectory()

    /// ``syntheticLaunchesCSV(users:days:seed:)``'s launches (from 2024-03-01) moved by whole days.
    func launches(movedBy days: Int) -> String {
        shifted(syntheticLaunchesCSV(), by: days)
    }

    /// `csv` with the epoch seconds of its first column moved by `days`.
    func shifted(_ csv: String, by days: Int) -> String {
        let lines = csv.split(separator: "\n").enumerated().map { i, line in
            guard i > 0, let comma = line.firstIndex(of: ","), let t = Int(line[..<comma]) else { return String(line) }
            return "\(t + days * 86_400)\(line[comma...])"
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Device context of both users over the launches' days (epoch seconds, from 2024-03-01).
    var context: String {
        var text = "timestamp,user,battery,charging,network,low_power\n"
        for user in 0..<2 {
            for hour in stride(from: 0, to: 12 * 24, by: 3) {
                let t = 1_709_251_200 + hour * 3_600
                text += "\(t),u\(user),\(90 - hour % 60),\(hour % 24 < 7),\(hour % 9 == 0 ? "cellular" : "wifi"),\n"
            }
        }
        return text
    }

    /// 2024-03-01 moved to 1965-03-01, 0001-03-01 and 9000-03-01, in days.
    static let eras = [("1965", -21_550), ("0001", -738_886), ("9000", 2_547_931)]

    @Test(arguments: eras)
    func launchesBefore1970OrFarAheadWorkInEveryCommand(era: String, days: Int) throws {
        let db = dir.path("far-\(era).sqlite")
        let range = [
            "--epoch-unit", "seconds", "--earliest", "0001-01-01T00:00:00Z", "--latest", "9999-01-01T00:00:00Z",
        ]
        let usage = try dir.write("usage-\(era).csv", launches(movedBy: days))
        let signals = try dir.write("context-\(era).csv", shifted(context, by: days))
        let imported = try dir.fetchlab(["import", "--db", db] + range + [usage, signals])
        #expect(imported.status == 0, "\(imported.err)")
        #expect(imported.out.contains("0 rejected"), "\(imported.out)")

        let policies = "never,fixed(1h),oracle,predictive,learned,ios-adaptive"
        for command in [
            ["inspect"], ["inspect", "--format", "json"], ["inspect", "--user", "u0", "--app", "com.app1"],
            ["describe"], ["predict", "--user", "u0"], ["predict"], ["evaluate-predictors"],
            ["compare", "--policies", policies, "--format", "json"],
            ["compare", "--policies", policies, "--platform", "ios", "--per-user"],
            ["tune", "--family", "fixed", "--grid", "interval=1h,4h", "--no-store"],
            ["tune", "--family", "predictive", "--search", "random", "--samples", "2", "--no-store"],
            ["report", "--output", dir.path("report-\(era).html")], ["runs"],
        ] {
            let r = try dir.fetchlab(command + ["--db", db])
            #expect(r.status == 0, "\(era) \(command): \(r.status) \(r.err)")
            #expect(!r.err.contains("Fatal error") && !r.err.contains("Stack dump"), "\(era) \(command): \(r.err)")
        }
        // The launches' own days, not the day after (integer division rounds toward zero).
        let inspect = try dir.fetchlab(["inspect", "--db", db, "--format", "json"])
        let first = try #require((try inspect.json()["launches"] as? [[String: Any]])?.first)
        #expect((first["firstDay"] as? String)?.hasSuffix("-03-01") == true, "\(first)")
        #expect((first["firstDay"] as? String)?.hasPrefix(era) == true, "\(first)")
    }

    @Test func earliestAndLatestReadADateAlone() throws {
        let db = dir.path("days.sqlite")
        // 2024-03-01 08:00 to 2024-03-12 22:00 (UTC).
        let usage = try dir.write("usage.csv", syntheticLaunchesCSV())
        // Their documented defaults, written as dates.
        let defaults = try dir.fetchlab([
            "import", "--db", db, "--earliest", "2000-01-01", "--latest", "2099-12-31", usage,
        ])
        #expect(defaults.status == 0, "\(defaults.err)")
        #expect(defaults.out.contains("0 rejected"), "\(defaults.out)")
        // --earliest is the start of its day, --latest the end of its day: the launches of
        // 2024-03-02 through 2024-03-11 are kept, 2024-03-01's and 2024-03-12's are rejected.
        let days = try dir.fetchlab([
            "import", "--db", dir.path("window.sqlite"), "--earliest", "2024-03-02", "--latest", "2024-03-11",
            usage,
        ])
        #expect(days.status == 0, "\(days.err)")
        let inspect = try dir.fetchlab(["inspect", "--db", dir.path("window.sqlite"), "--format", "json"])
        let launches = try #require(try inspect.json()["launches"] as? [[String: Any]])
        #expect(Set(launches.compactMap { $0["firstDay"] as? String }) == ["2024-03-02"], "\(launches)")
        #expect(Set(launches.compactMap { $0["lastDay"] as? String }) == ["2024-03-11"], "\(launches)")
        // One day is a range: its launches are kept.
        let one = try dir.fetchlab([
            "import", "--db", dir.path("one.sqlite"), "--earliest", "2024-03-05", "--latest", "2024-03-05", usage,
        ])
        #expect(one.status == 0, "\(one.err)")
        let day = try dir.fetchlab(["inspect", "--db", dir.path("one.sqlite"), "--format", "json"])
        let kept = try #require(try day.json()["launches"] as? [[String: Any]])
        #expect(!kept.isEmpty && kept.allSatisfy { $0["firstDay"] as? String == "2024-03-05" }, "\(kept)")
        #expect(kept.allSatisfy { $0["lastDay"] as? String == "2024-03-05" }, "\(kept)")
        // The help says so.
        let help = try dir.fetchlab(["import", "--help"])
        #expect(help.out.contains("(YYYY-MM-DD)"), "\(help.out)")
        #expect(help.out.contains("2099-12-31"), "\(help.out)")
        // A date the wrong way round is still refused, naming both.
        let reversed = try dir.fetchlab([
            "import", "--db", db, "--earliest", "2024-03-06", "--latest", "2024-03-05", usage,
        ])
        expectOneLineError(reversed, status: 64, ["--earliest 2024-03-06 is not before --latest 2024-03-05"])
    }
}
