import Foundation
import Testing
import _FetchLabTestSupport

/// Issue 25, with the real binary: no file replaced silently; predict's one probability, its
/// reasons and its JSON times; assumed context shown as assumed.
@Suite struct NoSilentOverwriteTests {
    let dir = TemporaryDirectory()
    var db: String { dir.path("o.sqlite") }

    @Test func everyOutputRefusesAnExistingFileUnlessForced() throws {
        try dir.importUsage(syntheticLaunchesCSV(seed: 5), into: db)
        #expect(try dir.fetchlab(["compare", "--db", db, "--policies", "oracle"]).status == 0)
        let file = try dir.write("existing.out", "keep me\n")
        for command in [
            ["compare", "--db", db, "--policies", "oracle", "--no-store"], ["runs", "show", "1", "--db", db],
            ["report", "--db", db], ["tune", "--db", db, "--family", "fixed", "--no-store"],
        ] {
            let refused = try dir.fetchlab(command + ["--output", file])
            expectOneLineError(refused, status: 64, [file, "--force"], context: command[0])
            #expect(try String(contentsOfFile: file, encoding: .utf8) == "keep me\n", "\(command[0])")
        }
        for command in [
            ["compare", "--db", db, "--policies", "oracle", "--no-store"], ["runs", "show", "1", "--db", db],
            ["report", "--db", db],
        ] {
            let forced = try dir.fetchlab(command + ["--output", file, "--force"])
            #expect(forced.status == 0, "\(command[0]): \(forced.err)")
            #expect(try String(contentsOfFile: file, encoding: .utf8) != "keep me\n", "\(command[0])")
            try dir.write("existing.out", "keep me\n")
        }
        // A device is written to, never refused.
        #expect(try dir.fetchlab(["report", "--db", db, "--output", "/dev/null"]).status == 0)
    }

    @Test func generateRefusesToReplaceAPopulation() throws {
        let out = dir.path("pop")
        let first = try dir.fetchlab(["generate", "--users", "2", "--days", "3", "--output", out])
        #expect(first.status == 0, "\(first.err)")
        let again = try dir.fetchlab(["generate", "--users", "2", "--days", "3", "--output", out])
        expectOneLineError(again, status: 64, [out, "--force"])
        let forced = try dir.fetchlab(["generate", "--users", "2", "--days", "3", "--output", out, "--force"])
        #expect(forced.status == 0, "\(forced.err)")
    }
}

@Suite struct PredictPresentationTests {
    let dir = TemporaryDirectory()
    var db: String { dir.path("p.sqlite") }

    /// Usage only (no context samples): the outlook is said to be assumed, compare says so too.
    @Test func assumedContextIsShownAsAssumed() throws {
        try dir.importUsage(syntheticLaunchesCSV(users: 2, days: 21, seed: 5), into: db)
        let text = try dir.fetchlab(["predict", "--db", db, "--user", "u0"])
        #expect(text.status == 0, "\(text.err)")
        #expect(text.out.contains(" fetch "), "\(text.out)")
        #expect(text.out.contains("no context samples: assumed Wi-Fi, 80 %, not charging"), "\(text.out)")
        #expect(!text.out.contains("usually"))
        let compare = try dir.fetchlab(["compare", "--db", db, "--policies", "oracle", "--no-store"])
        #expect(compare.out.contains("without context samples (no context samples: assumed Wi-Fi, 80 %, not charging"))
        #expect(!compare.out.contains("rules read assumed context"))
        // Under a platform model, its device rules are said to read assumed context.
        for platform in ["ios", "android"] {
            let modelled = try dir.fetchlab(
                ["compare", "--db", db, "--policies", "oracle", "--platform", platform, "--no-store"])
            #expect(modelled.status == 0, "\(modelled.err)")
            // The prose wraps at 120 columns, continuation lines indented two spaces.
            let joined = modelled.out.replacingOccurrences(of: "\n  ", with: " ")
            #expect(
                joined.contains(
                    "platform \(platform): its battery, power-saving and network rules read assumed context, not observed, "
                        + "for 2 of 2 users (no context samples: assumed Wi-Fi, 80 %, not charging)"), "\(modelled.out)"
            )
            let markdown = try dir.fetchlab(
                [
                    "compare", "--db", db, "--policies", "oracle", "--platform", platform, "--no-store", "--format",
                    "markdown",
                ])
            #expect(markdown.out.contains("rules read assumed context, not observed"))
        }
    }

    @Test func jsonTimesAreISO8601WithTheOffsetAndMicrosecondsBeside() throws {
        try dir.importUsage(syntheticLaunchesCSV(users: 2, days: 21, seed: 5), into: db)
        let r = try dir.fetchlab(["predict", "--db", db, "--user", "u0", "--format", "json"])
        #expect(r.status == 0, "\(r.err)")
        let report = try r.json()
        let iso = try Regex(#"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?[+-]\d{2}:\d{2}$"#)
        let origin = try #require(report["origin"] as? String)
        #expect(origin.wholeMatch(of: iso) != nil, "\(origin)")
        #expect(report["origin_us"] is Int64)
        let apps = try #require(report["apps"] as? [[String: Any]])
        let fetches = apps.flatMap { $0["fetches"] as? [[String: Any]] ?? [] }
        #expect(!fetches.isEmpty)
        for f in fetches {
            let at = try #require(f["fetchAt"] as? String)
            #expect(at.wholeMatch(of: iso) != nil, "\(at)")
            let us = try #require(f["fetchAt_us"] as? Int64)
            let parsed = try #require(ISO8601DateFormatter().date(from: String(at.prefix(19)) + String(at.suffix(6))))
            #expect(abs(parsed.timeIntervalSince1970 - Double(us) / 1e6) < 1)
        }
        for app in apps where (app["fetches"] as? [Any])?.isEmpty == true {
            #expect(app["noFetchReason"] is String)
        }
    }

    @Test func theHeaderDefinesTheOneProbability() throws {
        try dir.importUsage(syntheticLaunchesCSV(users: 2, days: 21, seed: 5), into: db)
        let text = try dir.fetchlab(["predict", "--db", db, "--user", "u0"])
        let header = try #require(text.out.split(separator: "\n").first)
        #expect(!header.contains("score ≥"))
        #expect(header.contains("p: chance of a launch within 30 min after the fetch"))
    }
}
