import Foundation
import Testing
import _FetchLabTestSupport

/// `fetchlab tune` run as a user would, on a small imported file.
@Suite struct TuneTests {
    let dir = TemporaryDirectory()
    var db: String { dir.path("tune.sqlite") }

    /// With content-update times, a silent-push schedule is replayed with the iOS settings and the
    /// text says whether it serves better (without them it is left out: see the test below).
    @Test func contentUpdatesAddASilentPushSchedule() throws {
        try dir.importUsage(into: db)
        var content = "timestamp,app\n"
        for hour in stride(from: 0, to: 12 * 24, by: 2) {
            for app in 0..<3 { content += "\(1_709_280_000 + hour * 3_600 + app * 600),com.app\(app)\n" }
        }
        let file = try dir.write("content.csv", content)
        #expect(try dir.fetchlab(["import", "--db", db, file]).status == 0)
        let json = try dir.fetchlab([
            "tune", "--db", db, "--family", "fixed", "--format", "json", "--subject-to", "fetches<=30",
        ])
        #expect(json.status == 0, "\(json.err)")
        let object = try json.json()
        let platform = try #require(object["platform_settings"] as? [[String: Any]])
        #expect(platform.map { $0["model"] as? String }.contains("push(3)"), "\(json.out)")
        #expect(platform.first { $0["model"] as? String == "push(3)" }?["platform"] as? String == "ios")
        let text = try dir.fetchlab(["tune", "--db", db, "--family", "fixed", "--subject-to", "fetches<=30"])
        #expect(text.out.contains("silent push ") && text.out.contains(" on iOS: fresh "), "\(text.out)")
    }

    /// `--family`'s help and its error list every tunable family, from the registry: learned too.
    @Test func familyHelpAndErrorListEveryTunableFamily() throws {
        let help = try dir.fetchlab(["tune", "--help"])
        #expect(help.status == 0, "\(help.err)")
        let flat = help.out.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(
            flat.contains("The family to tune: fixed, ios-adaptive, workmanager, predictive, budgeted, learned or learned-app."),
            "\(help.out)")
        #expect(flat.contains("learned budget=") && flat.contains("learned-app budget="), "\(help.out)")
        try dir.importUsage(into: db)
        let wrong = try dir.fetchlab(["tune", "--db", db, "--family", "oracle"])
        #expect(wrong.status != 0)
        #expect(wrong.err.contains("fixed, ios-adaptive, workmanager, predictive, budgeted, learned or learned-app"), "\(wrong.err)")
        #expect(wrong.err.split(separator: "\n").count == 1, "\(wrong.err)")
    }

    /// `tune --format json` carries the chosen setting's promise: training and held out, each with
    /// the fresh rate and the gain over the fixed baseline and their intervals, and what they resample.
    @Test func tuneJSONCarriesThePromise() throws {
        try dir.importUsage(into: db)
        let json = try dir.fetchlab(["tune", "--db", db, "--family", "fixed", "--format", "json"])
        #expect(json.status == 0, "\(json.err)")
        let object = try json.json()
        let promise = try #require(object["promise"] as? [String: Any], "\(json.out)")
        #expect(["users", "days"].contains(promise["interval_over"] as? String ?? ""))
        for side in ["training", "held_out"] {
            let s = try #require(promise[side] as? [String: Any])
            for key in ["fresh", "gain_vs_fixed"] { #expect(s[key] is Double, "\(side).\(key)") }
            for key in ["fresh_ci", "gain_ci"] { #expect((s[key] as? [Double])?.count == 2, "\(side).\(key)") }
        }
        #expect(object["ranked_by"] as? String == "gain_vs_fixed")
        let folds = try #require(object["folds"] as? [[String: Any]])
        #expect(folds[0]["promise"] is [String: Any])
        let text = try dir.fetchlab(["tune", "--db", db, "--family", "fixed"])
        #expect(text.out.contains("gain over fixed: "), "\(text.out)")
        #expect(text.out.contains(" on training → "), "\(text.out)")
    }

    @Test func tuneFixedAsJSONChoosesASetting() throws {
        try dir.importUsage(into: db)
        let json = try dir.fetchlab([
            "tune", "--db", db, "--family", "fixed", "--format", "json", "--subject-to", "fetches<=30",
        ])
        #expect(json.status == 0, "\(json.err)")
        // No progress when stderr is not a terminal: only where the run was stored.
        #expect(json.err == "tuning run 1 stored in \(db)\n", "\(json.err)")
        let object = try json.json()
        let folds = try #require(object["folds"] as? [[String: Any]])
        #expect(folds.count == 1)
        let chosen = try #require(folds[0]["chosen"] as? String)
        // Ranked by the gain over the fixed baseline: fixed(1h), the freshest interval within
        // fetches<=30, gains less over fetching blind at its rate than fixed(24h) at its own.
        #expect(chosen == "fixed(24h)", "\(json.out)")
        let ranking = try #require(object["ranking"] as? [[String: Any]])
        func train(_ name: String, _ key: String) -> Double? {
            (ranking.first { $0["name"] as? String == name }?["train"] as? [String: Any])?[key] as? Double
        }
        #expect((train("fixed(1h)", "fresh_15m") ?? 0) > (train(chosen, "fresh_15m") ?? 1))
        let feasibleGains = ranking.filter { $0["feasible"] as? Bool == true }.compactMap {
            ($0["train"] as? [String: Any])?["gain_vs_fixed"] as? Double
        }
        #expect(train(chosen, "gain_vs_fixed") == feasibleGains.max())
        #expect(folds[0]["best_fixed"] as? String == chosen)
        #expect((folds[0]["tried"] as? [[String: Any]])?.count == 7)
        #expect(object["replays"] as? Int == 7)
        let test = try #require(folds[0]["chosen_test"] as? [String: Any])
        #expect((test["scored_launches"] as? Int ?? 0) > 0)
        #expect(test["fresh_15m"] is Double)
        #expect(test["energy_joules_per_day"] is Double)
        // The choice as platform settings, each replayed under its platform.
        let platform = try #require(object["platform_settings"] as? [[String: Any]])
        #expect(platform.map { $0["platform"] as? String } == ["ios", "android"])
        #expect((platform[0]["snippet"] as? String)?.contains("setMinimumBackgroundFetchInterval(86400)") == true)
        #expect(platform.allSatisfy { ($0["fresh"] as? Double).map { (0...1).contains($0) } ?? false })
        #expect((platform[1]["fetches_per_app_day"] as? Double ?? 99) <= 1.01)
        // Measured on the held-out days, as the choice's own held-out figures are (few users: all of them).
        let testDays = try #require((folds[0]["label"] as? String)?.components(separatedBy: ", ").last)
        #expect(testDays.hasPrefix("test "), "\(testDays)")
        #expect(platform.allSatisfy { ($0["part"] as? String)?.hasPrefix(testDays + ", ") == true }, "\(platform)")
        #expect(
            platform.allSatisfy {
                ($0["users"] as? Int ?? 0) > 0 && $0["users"] as? Int == platform[0]["users"] as? Int
            })

        let table = try dir.fetchlab([
            "tune", "--db", db, "--family", "predictive", "--grid", "lead=5m,15m;threshold=0.2,0.4",
            "--search", "coordinate", "--subject-to", "fetches<=5",
        ])
        #expect(table.status == 0, "\(table.err)")
        #expect(table.out.contains("chosen on train: predictive("), "\(table.out)")
        #expect(table.out.contains("best fixed"), "\(table.out)")
        #expect(table.out.contains("replays: "), "\(table.out)")
    }

    @Test(arguments: [
        (["--subject-to", "battery<1%/day"], "battery<1%/day"), (["--maximize", "speed"], "speed"),
        (["--grid", "lead=5m"], "lead"), (["--family", "oracle"], "oracle"),
        // tune's search shards into a partial file; compare's other options for one run are not
        // tune's: refused, not ignored.
        (["--shard", "2/8"], "--shard 2/8 needs --partial FILE"), (["--per-user"], "--per-user"),
        (["--timings"], "--timings"),
        (["--trace-user", "u1"], "--trace-user"),
    ])
    func badArgumentsAreOneLineExit64(extra: [String], part: String) throws {
        try dir.importUsage(into: db)
        var arguments = ["tune", "--db", db, "--family", "fixed"]
        // A later --family replaces the first.
        arguments += extra
        let result = try dir.fetchlab(arguments)
        #expect(result.status == 64, "\(result.err)")
        let lines = result.err.split(separator: "\n")
        #expect(lines.count == 1, "\(result.err)")
        #expect(result.err.contains(part), "\(result.err)")
        #expect(result.out.isEmpty)
    }

    /// `--maximize gap` is refused in one line (exit 64) that says why and what to ask instead.
    @Test func gapClosedIsRefusedInOneLine() throws {
        try dir.importUsage(into: db)
        let result = try dir.fetchlab(["tune", "--db", db, "--family", "predictive", "--maximize", "gap"])
        #expect(result.status == 64, "\(result.err)")
        #expect(result.err.split(separator: "\n").count == 1, "\(result.err)")
        #expect(result.err.contains("gap closed was removed"), "\(result.err)")
        #expect(result.err.contains("rewarded spending nothing"), "\(result.err)")
        #expect(result.err.contains("--maximize fresh@15m --subject-to \"fetches<=2\""), "\(result.err)")
        #expect(result.out.isEmpty)
    }
}
