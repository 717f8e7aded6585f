import Foundation
import GRDB
import Testing
import _FetchLabTestSupport

/// `fetchlab generate`, run as a user would.
@Suite struct GenerateCommandTests {
    let dir = TemporaryDirectory()
    static let files = ["usage.csv.gz", "context.csv.gz", "content.csv.gz", "truth.json"]

    func bytes(_ directory: String) throws -> [Data] {
        try Self.files.map { try Data(contentsOf: URL(fileURLWithPath: directory).appendingPathComponent($0)) }
    }

    @Test func theSameSeedGivesTheSameBytesAndAnotherSeedOthers() throws {
        let args = ["generate", "--users", "70", "--days", "10", "--start", "2024-10-21"]
        let a = try dir.fetchlab(args + ["--seed", "3", "--output", dir.path("a")])
        let b = try dir.fetchlab(args + ["--seed", "3", "--output", dir.path("b")])
        let c = try dir.fetchlab(args + ["--seed", "4", "--output", dir.path("c")])
        #expect(a.status == 0 && b.status == 0 && c.status == 0, "\(a.err)")
        #expect(a.err.isEmpty)  // no progress bar when stderr is not a terminal
        #expect(a.out.contains("70 users × 10 days from 2024-10-21 (seed 3)"))
        #expect(try bytes(dir.path("a")) == bytes(dir.path("b")))
        let differing = zip(try bytes(dir.path("a")), try bytes(dir.path("c"))).filter { $0 != $1 }.count
        #expect(differing == 4)
    }

    /// Datasets/sample is what its recorded command makes, byte for byte.
    @Test func theBundledSampleRegeneratesByteIdentical() throws {
        let sample = packageRoot().appendingPathComponent("Datasets/sample")
        let truth = try JSONSerialization.jsonObject(
            with: Data(contentsOf: sample.appendingPathComponent("truth.json")))
        let command = try #require(((truth as? [String: Any])?["generator"] as? [String: Any])?["command"] as? String)
        var args = command.split(separator: " ").map(String.init)
        #expect(args.prefix(2) == ["fetchlab", "generate"])
        args.removeFirst()
        let result = try dir.fetchlab(args + ["--output", dir.path("again")])
        #expect(result.status == 0, "\(result.err)")
        #expect(try bytes(dir.path("again")) == bytes(sample.path))
        // Small enough to ship.
        #expect(try bytes(sample.path).reduce(0) { $0 + $1.count } < 5_000_000)
    }

    @Test func generatedLogsImportWithZeroRejects() throws {
        let gen = try dir.fetchlab([
            "generate", "--users", "30", "--days", "21", "--seed", "9", "--output", dir.path("pop"),
        ])
        #expect(gen.status == 0, "\(gen.err)")
        let imported = try dir.fetchlab(["import", "--db", dir.path("pop.sqlite"), "--format", "json", dir.path("pop")])
        #expect(imported.status == 0, "\(imported.err)")
        let json = try imported.json()
        let files = try #require(json["files"] as? [[String: Any]])
        #expect(files.count == 3)  // truth.json is not a log
        for file in files {
            let counts = try #require(file["counts"] as? [String: Int])
            #expect(counts["rejected"] == 0, "\(file["path"] ?? "")")
            #expect(counts["duplicate"] == 0)
            #expect((counts["rows"] ?? 0) > 1000)
        }
        let summary = try dir.fetchlab([
            "generate", "--users", "30", "--days", "21", "--seed", "9", "--format", "json", "--output",
            dir.path("pop2"),
        ])
        let s = try summary.json()
        let usage = files.first { ($0["path"] as? String)?.hasSuffix("usage.csv.gz") == true }
        #expect((usage?["counts"] as? [String: Int])?["rows"] == s["usageEvents"] as? Int)
    }

    @Test func configFilesOverrideDefaultsAndBadOnesAreOneLineErrors() throws {
        let defaults = try dir.fetchlab(["generate", "--print-config"])
        #expect(defaults.status == 0)
        #expect(defaults.out.contains("\"lowPowerThreshold\" : 20"))
        let config = try dir.write("pop.json", #"{"timeZones": {"Asia/Kolkata": 1}, "tripShare": 0}"#)
        let merged = try dir.fetchlab(["generate", "--print-config", "--config", config])
        #expect(merged.out.contains("\"Asia/Kolkata\" : 1"))
        #expect(merged.out.contains("\"lowPowerThreshold\" : 20"))  // untouched keys keep their defaults
        let gen = try dir.fetchlab([
            "generate", "--users", "5", "--days", "3", "--config", config, "--output", dir.path("in"),
        ])
        #expect(gen.status == 0, "\(gen.err)")
        let usage = try run(
            "/bin/sh", ["-c", "gzip -dc '\(dir.path("in/usage.csv.gz"))' | tail -n +2 | cut -c20-25 | sort -u"])
        #expect(usage.out == "+05:30\n")

        let bad = try dir.write("bad.json", #"{"timeZones": {"Mars/Olympus": 1}, "tripShare": 2}"#)
        let refused = try dir.fetchlab(["generate", "--users", "5", "--config", bad, "--output", dir.path("bad")])
        #expect(refused.status == 1)
        #expect(refused.err.split(separator: "\n").count == 1)
        #expect(refused.err.contains("tripShare must be in 0…1"))
        #expect(refused.err.contains("\"Mars/Olympus\" is not an IANA time zone"))
        #expect(!FileManager.default.fileExists(atPath: dir.path("bad/usage.csv.gz")))

        let notJSON = try dir.write("nope.json", "users: 5")
        let broken = try dir.fetchlab(["generate", "--config", notJSON, "--output", dir.path("x")])
        #expect(broken.status == 1)
        #expect(broken.err.hasPrefix("fetchlab: error: \(notJSON): not a population config"))
        let badDate = try dir.fetchlab(["generate", "--start", "2024-02-30", "--output", dir.path("x")])
        #expect(badDate.status == 64)
        #expect(badDate.err.contains("'2024-02-30' is invalid for '--start <start>'"))
        #expect(badDate.err.contains("YYYY-MM-DD"))
        #expect(badDate.err.split(separator: "\n").count == 1, "a usage error is one line: \(badDate.err)")
    }
}

/// `generate --signals`, imported: the signals land in the database by kind, the recorded
/// command says `--signals`, and the truth file holds each user's signals.
@Suite struct GenerateSignalsTests {
    @Test func signalsAreWrittenRecordedAndImported() throws {
        let dir = TemporaryDirectory()
        let out = dir.path("pop")
        let made = try dir.fetchlab(["generate", "--users", "4", "--days", "10", "--signals", "--output", out])
        #expect(made.status == 0, "\(made.err)")
        let truth = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/truth.json")))
                as? [String: Any])
        let generator = try #require(truth["generator"] as? [String: Any])
        #expect((generator["command"] as? String)?.hasSuffix("--signals") == true)
        let users = try #require(truth["users"] as? [[String: Any]])
        #expect(users.allSatisfy { $0["signals"] is [String: Any] })
        let db = dir.path("s.sqlite")
        let imported = try dir.fetchlab(["import", out + "/usage.csv.gz", "--db", db])
        #expect(imported.status == 0, "\(imported.err)")
        let counts = try DatabaseQueue(path: db).read { db in
            try [String: Int](
                uniqueKeysWithValues: Row.fetchAll(
                    db, sql: "SELECT app || ' ' || event, count(*) FROM usage_events GROUP BY 1"
                ).map { ($0[0] as String, $0[1] as Int) }.filter { $0.0.hasPrefix("(device)") || $0.0.hasSuffix("notification") })
        }
        #expect((counts["(device) unlock"] ?? 0) > 0 && (counts["(device) screen_on"] ?? 0) > 0, "\(counts)")
        #expect(counts.keys.contains { $0.hasSuffix(" notification") && !$0.hasPrefix("(device)") }, "\(counts)")
    }
}
