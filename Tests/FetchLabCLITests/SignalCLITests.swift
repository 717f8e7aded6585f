import Foundation
import Testing
import _FetchLabTestSupport

/// Issue 26, "signals as events", through the binary: the import summary says which rows became
/// signals, and `inspect` and `describe` say how many of each kind the database holds.
@Suite struct SignalCLITests {
    let dir = TemporaryDirectory()
    var db: String { dir.path("signals.sqlite") }

    static let foreground = """
        2023-12-19 13:00:00,com.a
        2023-12-19 13:01:00,com.sec.android.app.launcher
        2023-12-19 13:01:30,com.sec.android.app.launcher
        2023-12-19 13:02:00,com.a
        2023-12-19 13:20:00,com.example.nextapp
        2023-12-19 13:21:00,android
        2023-12-19 13:22:00,com.android.systemui
        2023-12-19 13:30:00,com.b

        """

    static let usage = SignalFixtures.usage

    @Test func theImportSummarySaysWhichRowsBecameSignals() throws {
        let file = try dir.writeGzip("foreground-user_x.csv.gz", Self.foreground)
        let result = try dir.fetchlab(["import", "--db", db, file])
        #expect(result.status == 0, "\(result.err)")
        #expect(
            result.out.contains(
                "\n  3 rows of launchers and system UI became 2 system-UI signals (1 row continued the one before): "
                    + "moments before use a scheduler may act on, not launches; --keep-system-apps reads them as launches"
            ),
            "\(result.out)")
        #expect(
            result.out.contains(
                "\n  dropped 2 rows of system apps (android and the logger): not apps the user chose, "
                    + "as the evaluation protocol says; --keep-system-apps keeps them"), "\(result.out)")
        let json = try dir.fetchlab(["import", "--db", dir.path("json.sqlite"), "--format", "json", file]).json()
        let counts = try #require(((json["files"] as? [[String: Any]])?.first?["counts"]) as? [String: Any])
        #expect(counts["signals"] as? Int == 2 && counts["signalRows"] as? Int == 3)
        #expect(counts["systemApps"] as? Int == 2 && counts["excluded"] as? Int == 2)

        let usage = try dir.fetchlab([
            "import", "--db", dir.path("usage.sqlite"), try dir.write("usage.csv", Self.usage),
        ])
        #expect(usage.status == 0, "\(usage.err)")
        #expect(
            usage.out.contains(
                "\n  4 signal events (unlock, screen on, notification, system UI): moments before use a scheduler may act on, not launches"
            ), "\(usage.out)")
    }

    @Test func inspectCountsSignalsPerKind() throws {
        try dir.importUsage(Self.usage, into: db)
        let text = try dir.fetchlab(["inspect", "--db", db])
        #expect(text.status == 0, "\(text.err)")
        #expect(
            text.out.contains(
                "Signals (moments before use, never launches): unlock 2 (2 users), screen on 1 (1 user), "
                    + "notification 1 (1 user), system UI 0."), "\(text.out)")
        #expect(!text.out.contains("(device)"), "\(text.out)")
        let json = try dir.fetchlab(["inspect", "--db", db, "--format", "json"]).json()
        let signals = try #require(json["signals"] as? [String: [String: Int]])
        #expect(signals["unlock"] == ["events": 2, "users": 2])
        #expect(signals["screenOn"] == ["events": 1, "users": 1])
        #expect(signals["notification"] == ["events": 1, "users": 1])
        #expect(signals["systemUI"] == ["events": 0, "users": 0])
        let one = try dir.fetchlab(["inspect", "--db", db, "--user", "u2", "--format", "json"]).json()
        #expect((one["signals"] as? [String: [String: Int]])?["unlock"] == ["events": 1, "users": 1])

        // Launches only: the line says figures acting on unlocks can mean nothing here.
        let plain = dir.path("plain.sqlite")
        try dir.importUsage(into: plain)
        let none = try dir.fetchlab(["inspect", "--db", plain])
        #expect(
            none.out.contains("No unlock or screen-on events: figures that act on them equal those without."),
            "\(none.out)")
    }

    @Test func describeCountsSignalsPerKind() throws {
        let file = try dir.writeGzip("foreground-user_x.csv.gz", Self.foreground)
        #expect(try dir.fetchlab(["import", "--db", db, file]).status == 0)
        let text = try dir.fetchlab(["describe", "--db", db])
        #expect(text.status == 0, "\(text.err)")
        let lines = text.out.split(separator: "\n").map(String.init)
        let start = try #require(lines.firstIndex(of: "Signals (moments before use, not launches)"), "\(text.out)")
        let rows = lines[(start + 1)...].prefix(4).map {
            $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        }
        #expect(rows == ["unlock 0", "screen on 0", "notification 0", "system UI 2 (1 user)"])
        let json = try dir.fetchlab(["describe", "--db", db, "--format", "json"]).json()
        let signals = try #require(json["signals"] as? [String: [String: Int]])
        #expect(signals["systemUI"] == ["events": 2, "users": 1] && signals["unlock"] == ["events": 0, "users": 0])
    }
}

/// `FETCHLAB_LEARNED_TRIALS=1`, the input of `Benchmarks/fit-learned-weights.sh`: the learned
/// model's resolved questions, one line each on standard error, the results on stdout unchanged.
@Suite struct LearnedTrialsCLITests {
    let dir = TemporaryDirectory()

    @Test func theModelsQuestionsAreWrittenOnlyWhenAskedFor() throws {
        let db = dir.path("trials.sqlite")
        try dir.importUsage(into: db)
        let arguments = ["compare", "--db", db, "--policies", "learned(1)", "--format", "json", "--no-store"]
        let plain = try dir.fetchlab(arguments)
        let traced = try dir.fetchlab(arguments, environment: ["FETCHLAB_LEARNED_TRIALS": "1"])
        #expect(plain.status == 0 && traced.status == 0, "\(traced.err)")
        #expect(!plain.err.contains("T,"))
        let lines = traced.err.split(separator: "\n").filter { $0.hasPrefix("T,") }
        #expect(lines.count > 1_000)
        var hits = 0
        for line in lines {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            #expect(fields.count == 22, "\(line)")
            guard fields.count == 22, let raw = Double(fields[6]), let bias = Double(fields[7]) else { continue }
            #expect(fields[5] == "0" || fields[5] == "1")
            #expect(raw > 0 && raw < 1 && bias == 1)
            if fields[5] == "1" { hits += 1 }
        }
        #expect(hits > 0 && hits < lines.count)
        // The figures are the same with the questions written.
        let a = try #require(plain.json()["policies"] as? [[String: Any]])
        let b = try #require(traced.json()["policies"] as? [[String: Any]])
        #expect(
            (a.first?["metrics"] as? [String: Any])?["fresh_15m"] as? Double
                == (b.first?["metrics"] as? [String: Any])?["fresh_15m"] as? Double)
    }
}
