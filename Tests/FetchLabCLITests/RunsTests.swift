import FetchLabSimulation
import Foundation
import GRDB
import Testing
import _FetchLabTestSupport

/// `compare`'s formats and `--output`, and the runs it stores (`fetchlab runs`), with the real binary.
@Suite struct RunsTests {
    let dir = TemporaryDirectory()
    var db: String { dir.path("runs.sqlite") }
    static let policies = ["--policies", "fixed(15m),fixed(1h),oracle"]

    /// Two users, 12 days, three apps (see `syntheticLaunchesCSV`), imported.
    func imported() throws { try dir.importUsage(syntheticLaunchesCSV(seed: 5), into: db) }

    @Test func csvParsesBackWithARowPerPolicy() throws {
        try imported()
        let r = try dir.fetchlab(["compare", "--db", db, "--format", "csv"] + Self.policies)
        #expect(r.status == 0, "\(r.err)")
        let rows = r.out.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        #expect(rows.count == 4)
        #expect(rows[0].prefix(6) == ["name", "family", "scope", "scored_launches", "fresh_5m", "fresh_15m"])
        #expect(rows.allSatisfy { $0.count == rows[0].count })
        #expect(rows.dropFirst().map { String($0[0]) } == ["fixed(15m)", "fixed(1h)", "oracle"])
        let fresh15 = try #require(rows[0].firstIndex(of: "fresh_15m"))
        #expect(rows[3][fresh15] == "1.0")
    }

    @Test func markdownHasAHeaderRow() throws {
        try imported()
        let r = try dir.fetchlab(["compare", "--db", db, "--format", "markdown"] + Self.policies)
        #expect(r.status == 0, "\(r.err)")
        let lines = r.out.split(separator: "\n")
        #expect(
            lines.contains {
                $0.hasPrefix("| # | policy | scope | fresh@5 min | fresh@15 min | fresh@60 min | 95% CI over days |")
            })
        #expect(lines.contains("| ---: | --- | --- |" + String(repeating: " ---: |", count: 13)))
        // Header, alignment and the three policies; then the budget table: header, alignment, the
        // bound, fixed intervals and never (no causal family among these policies).
        #expect(lines.filter { $0.hasPrefix("|") }.count == 2 + 3 + 5)
        #expect(lines.contains { $0.hasPrefix("| clairvoyant bound |") })
    }

    @Test func outputWritesTheFileAndNothingToStdout() throws {
        try imported()
        let file = dir.path("table.txt")
        try dir.write("table.txt", "an older file, replaced whole\n")
        let refused = try dir.fetchlab(["compare", "--db", db, "--output", file] + Self.policies)
        #expect(refused.status == 64 && refused.err.contains("--force"), "\(refused.err)")
        let written = try dir.fetchlab(["compare", "--db", db, "--output", file, "--force"] + Self.policies)
        #expect(written.status == 0, "\(written.err)")
        #expect(written.out.isEmpty)
        let printed = try dir.fetchlab(["compare", "--db", db] + Self.policies)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == printed.out)
        // No temporary file left next to it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.path).filter { $0.hasSuffix(".tmp") } == [])
    }

    /// `--output` through a symbolic link replaces the file it names (the link stays a link); a
    /// device is written to, never replaced by a regular file (`--output /dev/full` once replaced
    /// the machine's /dev/full).
    @Test func anOutputLinkOrDeviceIsWrittenThroughNotReplaced() throws {
        try imported()
        let target = dir.path("target.csv")
        try dir.write("target.csv", "old\n")
        chmod(target, 0o640)
        let link = dir.path("link.csv")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "target.csv")
        let r = try dir.fetchlab(
            ["compare", "--db", db, "--format", "csv", "--no-store", "--output", "link.csv", "--force"] + Self.policies)
        #expect(r.status == 0, "\(r.err)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "target.csv")
        #expect(try String(contentsOfFile: target, encoding: .utf8).hasPrefix("name,family,"))
        let mode = try FileManager.default.attributesOfItem(atPath: target)[.posixPermissions] as? Int
        #expect(mode == 0o640)
        // A character device (a copy of Linux's /dev/null, 1:3, which only root may make).
        #if os(Linux)
            guard getuid() == 0 else { return }
            let device = dir.path("null-device")
            #expect(mknod(device, S_IFCHR | 0o666, dev_t((1 << 8) | 3)) == 0)
            let written = try dir.fetchlab(
                ["compare", "--db", db, "--format", "json", "--no-store", "--output", device] + Self.policies)
            #expect(written.status == 0, "\(written.err)")
            var info = stat()
            #expect(stat(device, &info) == 0 && (info.st_mode & S_IFMT) == S_IFCHR, "the device was replaced")
        #endif
    }

    @Test func anOutputThatCannotBeWrittenIsOneLineAndLeavesNothing() throws {
        try imported()
        for (output, reason) in [
            (dir.path("missing/out.csv"), "no directory \(dir.path("missing")) to write it in"),
            (dir.url.path, "is a directory"),
        ] {
            let before = try FileManager.default.contentsOfDirectory(atPath: dir.url.path).sorted()
            let r = try dir.fetchlab(["compare", "--db", db, "--format", "csv", "--output", output])
            #expect(r.status == 64)
            #expect(r.err == "fetchlab: error: --output \(output): \(reason)\n")
            #expect(r.out.isEmpty)
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.path).sorted() == before)
        }
        // Refused before the run: nothing was stored.
        #expect(try dir.fetchlab(["runs", "--db", db]).out.hasPrefix("no runs stored in"))
    }

    @Test func everyRunIsStoredAndShownAgain() throws {
        try imported()
        let json = try dir.fetchlab(["compare", "--db", db, "--format", "json"] + Self.policies)
        #expect(json.status == 0, "\(json.err)")
        #expect(json.err == "run 1 stored in \(db)\n")
        let table = try dir.fetchlab(["compare", "--db", db, "--launch-refreshes", "off"])
        #expect(table.err == "run 2 stored in \(db)\n")

        let list = try dir.fetchlab(["runs", "--db", db])
        #expect(list.status == 0, "\(list.err)")
        let lines = list.out.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines[0].split(separator: " ", omittingEmptySubsequences: true).first == "id")
        let first = lines[1].split(separator: " ")
        #expect(first.first == "1" && first[3] == "compare" && first[4] == "3" && first[5] == "2")

        let listed = try dir.fetchlab(["runs", "--db", db, "--format", "json"])
        let object = try listed.json()
        let runs = try #require(object["runs"] as? [[String: Any]])
        #expect(runs.map { $0["id"] as? Int } == [1, 2])
        #expect(runs.map { $0["policies"] as? Int } == [3, PolicyRegistry.standard(contentUpdates: false, notifications: false).count])

        // `runs show` prints what compare printed, in every format.
        let shown = try dir.fetchlab(["runs", "show", "1", "--db", db, "--format", "json"])
        #expect(shown.status == 0, "\(shown.err)")
        #expect(shown.out == json.out)
        let shownTable = try dir.fetchlab(["runs", "show", "2", "--db", db])
        #expect(shownTable.out == table.out)
        let csv = try dir.fetchlab(["runs", "show", "1", "--db", db, "--format", "csv", "--output", dir.path("1.csv")])
        #expect(csv.status == 0 && csv.out.isEmpty)
        #expect(try String(contentsOfFile: dir.path("1.csv"), encoding: .utf8).split(separator: "\n").count == 4)

        // Plain SQL over the stored metrics, as a notebook would.
        let queue = try DatabaseQueue(path: db)
        let fresh = try queue.read {
            try Double.fetchOne($0, sql: "SELECT fresh_15m FROM run_policies WHERE run_id = 1 AND name = 'oracle'")
        }
        #expect(fresh == 1)
    }

    @Test func unknownRunsAndDatabasesAreOneLine() throws {
        let missing = try dir.fetchlab(["runs", "--db", dir.path("none.sqlite")])
        #expect(missing.status == 1)
        #expect(missing.err.hasPrefix("fetchlab: error: \(dir.path("none.sqlite")): no such database"))
        #expect(missing.err.split(separator: "\n").count == 1)
        try imported()
        #expect(
            try dir.fetchlab(["runs", "--db", db]).out == "no runs stored in \(db) (fetchlab compare stores one)\n")
        let unknown = try dir.fetchlab(["runs", "show", "7", "--db", db])
        #expect(unknown.status == 1)
        #expect(unknown.err == "fetchlab: error: \(db): no run 7 (fetchlab runs lists the stored runs)\n")
        let bad = try dir.fetchlab(["runs", "show", "seven", "--db", db])
        #expect(bad.status == 64)
        #expect(bad.err.split(separator: "\n").count == 1)
    }
}

/// Databases of the previous schema, and databases that cannot be written.
@Suite struct RunsMigrationTests {
    let dir = TemporaryDirectory()

    /// A database imported by this build, taken back to schema v3 (the run and tuning tables, their
    /// views and the migrations' records gone), is migrated again by the next command; inspect reads it as before.
    @Test func aV3DatabaseIsMigratedAndInspectIsUnchanged() throws {
        let db = dir.path("v3.sqlite")
        let imported = try dir.fetchlab(["import", "--db", db, try dir.write("u.csv", syntheticLaunchesCSV())])
        #expect(imported.status == 0, "\(imported.err)")
        let inspected = try dir.fetchlab(["inspect", "--db", db])
        do {
            let queue = try DatabaseQueue(path: db)
            try queue.writeWithoutTransaction { db in
                try db.execute(
                    sql: """
                        DROP VIEW tune_runs; DROP VIEW tune_settings; DROP TABLE tune_setting; DROP TABLE tune_run;
                        DROP VIEW runs; DROP VIEW run_policies; DROP VIEW run_policy_apps; DROP VIEW run_policy_users;
                        DROP TABLE run_policy_user; DROP TABLE run_policy_app; DROP TABLE run_policy; DROP TABLE run;
                        DELETE FROM grdb_migrations WHERE identifier LIKE 'v4%' OR identifier LIKE 'v5%' OR identifier LIKE 'v6%' OR identifier LIKE 'v7%';
                        PRAGMA user_version = 3;
                        """)
            }
            try queue.close()
        }
        let again = try dir.fetchlab(["inspect", "--db", db])
        #expect(again.status == 0 && again.out == inspected.out, "\(again.err)")
        let compared = try dir.fetchlab(["compare", "--db", db, "--policies", "oracle"])
        #expect(compared.err == "run 1 stored in \(db)\n")
        let queue = try DatabaseQueue(path: db)
        #expect(try queue.read { try Int.fetchOne($0, sql: "PRAGMA user_version") } == 8)
        #expect(try queue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM run_policies") } == 1)
    }
}

/// `fetchlab report`: a stored run as HTML, without replaying.
@Suite struct ReportCommandTests {
    let dir = TemporaryDirectory()

    @Test func writesTheLatestOrAChosenRunAsHTML() throws {
        let db = dir.path("r.sqlite")
        let file = try dir.write("usage.csv", syntheticLaunchesCSV())
        #expect(try dir.fetchlab(["import", "--db", db, file]).status == 0)
        // Nothing stored yet: one line, exit 1.
        let none = try dir.fetchlab(["report", "--db", db, "--output", dir.path("none.html")])
        #expect(none.status == 1)
        #expect(none.err.split(separator: "\n").count == 1 && none.err.contains("no stored run"))
        #expect(!FileManager.default.fileExists(atPath: dir.path("none.html")))
        for policies in ["fixed(1h),oracle", "never,fixed(2h)"] {
            #expect(try dir.fetchlab(["compare", "--db", db, "--policies", policies]).status == 0)
        }
        let latest = try dir.fetchlab(["report", "--db", db, "--output", dir.path("latest.html")])
        #expect(latest.status == 0, "\(latest.err)")
        #expect(latest.out.contains("run 2 of \(db)"))
        let page = try String(contentsOfFile: dir.path("latest.html"), encoding: .utf8)
        #expect(page.hasPrefix("<!DOCTYPE html>"))
        #expect(page.contains("data-policy=\"fixed(2h)\"") && !page.contains("data-policy=\"oracle\""))
        let first = try dir.fetchlab(["report", "--db", db, "--run", "1", "--output", dir.path("first.html")])
        #expect(first.status == 0)
        let one = try String(contentsOfFile: dir.path("first.html"), encoding: .utf8)
        #expect(one.contains("data-policy=\"oracle\""))
        // The same run through runs show --format html gives the same page.
        let shown = try dir.fetchlab(["runs", "show", "1", "--db", db, "--format", "html"])
        #expect(shown.out == one + "\n")
        let missing = try dir.fetchlab(["report", "--db", db, "--run", "9", "--output", dir.path("x.html")])
        #expect(missing.status == 1 && missing.err.split(separator: "\n").count == 1)
    }
}

/// `compare --per-user`: each user's metrics in the JSON, as stored and shown again, spooled to
/// `$TMPDIR` as users finish.
@Suite struct PerUserOutputTests {
    let dir = TemporaryDirectory()
    var db: String { dir.path("per-user.sqlite") }

    @Test func perUserRowsArePrintedStoredAndShownAgain() throws {
        let imported = try dir.fetchlab([
            "import", "--db", db, try dir.write("usage.csv", syntheticLaunchesCSV(seed: 5)),
        ])
        #expect(imported.status == 0, "\(imported.err)")
        let printed = try dir.fetchlab(["compare", "--db", db, "--per-user", "--format", "json"] + RunsTests.policies)
        #expect(printed.status == 0, "\(printed.err)")
        let object = try printed.json()
        let policies = try #require(object["policies"] as? [[String: Any]])
        #expect(policies.count == 3)
        for policy in policies {
            let users = try #require(policy["per_user"] as? [[String: Any]])
            #expect(users.compactMap { $0["name"] as? String }.sorted() == ["u0", "u1"])
            #expect(users.allSatisfy { ($0["metrics"] as? [String: Any])?["scored_launches"] is Int })
        }
        // The same document from the stored run, and in a file.
        let shown = try dir.fetchlab(["runs", "show", "1", "--db", db, "--format", "json"])
        #expect(shown.status == 0, "\(shown.err)")
        #expect(shown.out == printed.out)
        let file = dir.path("per-user.json")
        let written = try dir.fetchlab(
            ["compare", "--db", db, "--per-user", "--format", "json", "--no-store", "--output", file]
                + RunsTests.policies)
        #expect(written.status == 0 && written.out.isEmpty, "\(written.err)")
        // The same document but for the run id (not stored).
        var fromFile = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as? [String: Any])
        #expect(fromFile.removeValue(forKey: "run_id") == nil)
        var fromStdout = object
        #expect(fromStdout.removeValue(forKey: "run_id") as? Int == 1)
        #expect(NSDictionary(dictionary: fromFile).isEqual(to: fromStdout))
        // One row per policy and user in the store.
        let queue = try DatabaseQueue(path: db)
        defer { try? queue.close() }
        #expect(
            try queue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM run_policy_users WHERE run_id = 1") } == 6)
    }

    @Test func aTemporaryDirectoryThatCannotBeWrittenIsOneLine() throws {
        let imported = try dir.fetchlab([
            "import", "--db", db, try dir.write("usage.csv", syntheticLaunchesCSV(seed: 5)),
        ])
        #expect(imported.status == 0, "\(imported.err)")
        let missing = dir.path("no-such-dir")
        let r = try dir.fetchlab(
            ["compare", "--db", db, "--per-user"] + RunsTests.policies, environment: ["TMPDIR": missing])
        #expect(r.status == 1, "\(r.err)")
        #expect(
            r.err.split(separator: "\n").count == 1 && r.err.contains("--per-user") && r.err.contains(missing),
            "\(r.err)")
        // Nothing stored.
        let runs = try dir.fetchlab(["runs", "list", "--db", db, "--format", "json"])
        #expect(runs.status == 0 && !runs.out.contains("\"id\""), "\(runs.out)")
    }
}
