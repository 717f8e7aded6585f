import FetchLabSimulation
import Foundation
import Testing
import _FetchLabTestSupport

/// `fetchlab compare` run as a user would, on a small imported file.
@Suite struct CompareTests {
    let dir = TemporaryDirectory()
    var db: String { dir.path("compare.sqlite") }

    /// Two users, 12 days, three apps launched every 10 to 90 minutes from 8:00 to 22:00 UTC.
    func usageText() -> String { syntheticLaunchesCSV() }

    @Test func compareTableAndJSON() throws {
        let file = try dir.write("usage.csv", usageText())
        let imported = try dir.fetchlab(["import", "--db", db, file])
        #expect(imported.status == 0, "\(imported.err)")

        let table = try dir.fetchlab(["compare", "--db", db])
        #expect(table.status == 0, "\(table.err)")
        let lines = table.out.split(separator: "\n")
        // The prose is wrapped to 120 columns: read it with its continuation lines joined.
        let flat = table.out.replacingOccurrences(of: "\n +", with: " ", options: .regularExpression)
        #expect(lines.first?.hasPrefix("τ = 15 min, launch refreshes on, warm-up 7 d") == true, "\(table.out)")
        #expect(flat.contains("2 users, 6 pairs"), "\(table.out)")
        // Summary, context, the headline at 2 fetches/app/day, a warning (2 users), the table with the
        // standard set without push (no content updates here) in budget bands, the table of budgets.
        #expect(
            flat.contains(
                "platform none\ncontext: 2 users without context samples (no context samples: assumed Wi-Fi, 80 %, not charging for them); without a sample"
            ),
            "\(table.out)")
        #expect(flat.contains("\nAt 2 fetches/app/day "), "\(table.out)")
        #expect(lines.contains { $0.hasPrefix("  For an app team: ") }, "\(table.out)")
        #expect(lines.allSatisfy { $0.count <= 120 }, "\(table.out)")
        let warning = try #require(lines.firstIndex { $0.hasPrefix("warning: these figures rest on 2 users") })
        #expect(lines[..<warning].contains { $0.hasPrefix("  For a system scheduler: ") }, "\(table.out)")
        let standard = PolicyRegistry.standard(contentUpdates: false, notifications: false)
        let rows = lines.filter { line in standard.contains { line.contains("  \($0.name)  ") } }
        #expect(rows.count == standard.count, "\(table.out)")
        #expect(lines.contains { $0.hasPrefix("up to 0.5 fetches/app/day:") })
        #expect(lines.contains { $0.hasPrefix("clairvoyant (they know the future; not ranked):") })
        #expect(lines.contains { $0.hasPrefix("clairvoyant bound ") })
        #expect(!table.out.contains("push"))
        // The key under the table; the extra columns only with --wide.
        #expect(lines.contains { $0.hasPrefix("fresh@15 min: the share of launches that found their app's content") })
        #expect(lines.contains { $0.hasPrefix("share: the share of the possible gain") })
        #expect(lines.contains { $0.hasPrefix("bound: the clairvoyant bound") })
        #expect(
            lines.contains {
                $0.trimmingCharacters(in: .whitespaces).hasPrefix("#  policy") && $0.contains("fresh@15 min [95% CI]")
            })
        let header = try #require(lines.first { $0.trimmingCharacters(in: .whitespaces).hasPrefix("#  policy") })
        #expect(!header.contains("stale p50") && !header.contains("battery/day"), "\(header)")
        let wide = try dir.fetchlab(["compare", "--db", db, "--wide", "--no-store"])
        #expect(wide.status == 0, "\(wide.err)")
        let head = try #require(
            wide.out.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix("#  policy") })
        for column in [
            "fresh@5 min", "fresh@60 min", "95% CI", "stale p50", "wasted", "battery/day", "cell MB/day", "skipped",
        ] {
            #expect(head.contains(column), "\(column): \(head)")
        }
        #expect(!wide.out.contains("bound: the clairvoyant bound"))
        // Under each platform model, the default output keeps to 120 columns too.
        for platform in ["ios", "android"] {
            let r = try dir.fetchlab(["compare", "--db", db, "--platform", platform, "--no-store"])
            #expect(r.status == 0, "\(r.err)")
            let widest = r.out.split(separator: "\n").max { $0.count < $1.count } ?? ""
            #expect(widest.count <= 120, "\(platform): \(widest)")
        }

        let json = try dir.fetchlab([
            "compare", "--db", db, "--format", "json", "--policies", "fixed(1h),oracle", "--launch-refreshes", "off",
        ])
        #expect(json.status == 0, "\(json.err)")
        let object = try json.json()
        let settings = try #require(object["settings"] as? [String: Any])
        #expect(settings["launch_refreshes"] as? Bool == false)
        #expect(settings["users"] as? Int == 2)
        let policies = try #require(object["policies"] as? [[String: Any]])
        #expect(policies.map { $0["name"] as? String } == ["fixed(1h)", "oracle"])
        let oracle = try #require(policies[1]["metrics"] as? [String: Any])
        #expect(oracle["fresh_15m"] as? Double == 1)
        #expect(oracle["gap_closed"] == nil)
        #expect(oracle["share_of_possible"] as? Double ?? 0 <= 1 + 1e-9)
        let curve = try #require(object["budget_curve"] as? [[String: Any]])
        #expect(curve.map { $0["budget"] as? Double } == [0.5, 1, 2, 5, 10])
        for point in curve {
            #expect(Set(point.keys).isSuperset(of: ["budget", "fixed", "bound", "never", "families"]))
            #expect((point["bound"] as? Double ?? 0) >= (point["fixed"] as? Double ?? 1))
        }
        let fixed = try #require(policies[0]["metrics"] as? [String: Any])
        #expect(abs((fixed["fetches_per_app_day"] as? Double ?? 0) - 24) < 0.5)  // E − S is not a whole number of days
    }

    @Test func badValuesAreOneLine() throws {
        let file = try dir.write("usage.csv", usageText())
        _ = try dir.fetchlab(["import", "--db", db, file])
        let unknown = try dir.fetchlab(["compare", "--db", db, "--policies", "sometimes"])
        #expect(unknown.status == 64)
        #expect(unknown.err.contains("unknown policy 'sometimes'"), "\(unknown.err)")
        let tau = try dir.fetchlab(["compare", "--db", db, "--tau", "2d"])
        #expect(tau.status == 64)
        let nothing = try dir.fetchlab(["compare", "--db", db, "--warm-up", "30"])
        #expect(nothing.status == 1)
        #expect(nothing.err.contains("no launch was scored"), "\(nothing.err)")
        // The replay's own options: each bad value is one line naming the option, exit 64.
        for (arguments, says) in [
            (["--platform", "windows"], "--platform"), (["--default-network", "carrier-pigeon"], "--default-network"),
            (["--app-cost", "com.example.news=5s"], "--app-cost"),
            (["--standby-deferrals", "2h,8h"], "--standby-deferrals"),
            (["--fetch-duration", "1h"], "--fetch-duration"), (["--battery-wh", "0"], "--battery-wh"),
            (["--low-battery", "120"], "--low-battery"), (["--from", "2024-03-12", "--to", "2024-03-01"], "--to"),
            (["--trace-day", "yesterday"], "--trace-day"),
        ] {
            let bad = try dir.fetchlab(["compare", "--db", db] + arguments)
            #expect(bad.status == 64, "\(arguments): \(bad.err)")
            #expect(bad.err.split(separator: "\n").count == 1 && bad.err.contains(says), "\(arguments): \(bad.err)")
        }
        // A user or trace user that is not there: one line, exit 1.
        for arguments in [["--users", "nobody"], ["--trace-user", "nobody"]] {
            let missing = try dir.fetchlab(["compare", "--db", db] + arguments)
            #expect(missing.status == 1, "\(arguments): \(missing.err)")
            #expect(missing.err.split(separator: "\n").count == 1 && missing.err.contains("nobody"), "\(missing.err)")
        }
    }

    /// Two users: every output that shows an interval says it is over days of these 2 users, not
    /// over users (the table's column, the headline's brackets, the warning, the budget note, CSV,
    /// JSON); ten users: over users, the column as before.
    @Test func intervalsSayTheyAreOverDaysWithFewUsers() throws {
        try dir.importGenerated(users: 2, days: 21, seed: 4, into: db)
        let text = try dir.fetchlab(["compare", "--db", db, "--resamples", "200"])
        #expect(text.status == 0, "\(text.err)")
        let scope = "over days of these 2 users, not over users"
        // The prose wrapped to 120 columns, read with its continuation lines joined.
        let flat = text.out.replacingOccurrences(of: "\n +", with: " ", options: .regularExpression)
        let lines = flat.split(separator: "\n").map(String.init)
        // The table's interval column in the default table is fresh@τ's brackets; its key says what they are over.
        #expect(
            text.out.contains("\nfresh@15 min: ") && text.out.contains(" [95 % interval over days]."), "\(text.out)")
        let wide = try dir.fetchlab(["compare", "--db", db, "--resamples", "200", "--wide", "--no-store"])
        #expect(
            wide.out.split(separator: "\n").contains {
                $0.trimmingCharacters(in: .whitespaces).hasPrefix("#") && $0.contains("95% CI over days")
            }, "\(wide.out)")
        #expect(lines.contains { $0.hasPrefix("At 2 fetches/app/day") }, "\(text.out)")
        // (the headline's indented lines joined to the one above it)
        #expect(
            lines.contains {
                $0.hasPrefix("At 2 fetches/app/day") && $0.contains(" For an app team: ") && $0.contains(" \(scope)]")
            },
            "\(text.out)")
        #expect(lines.contains { $0.hasPrefix("warning: these figures rest on 2 users") && $0.contains(scope) })
        #expect(lines.contains { $0.contains("bootstrap \(scope), 200 resamples") }, "\(text.out)")
        let markdown = try dir.fetchlab(["compare", "--db", db, "--resamples", "200", "--format", "markdown"])
        #expect(markdown.out.contains("95% CI over days"), "\(markdown.out)")
        let csv = try dir.fetchlab(["compare", "--db", db, "--resamples", "200", "--format", "csv"])
        let rows = csv.out.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        let column = try #require(rows.first?.firstIndex(of: "fresh_ci_over"))
        #expect(
            rows.dropFirst().contains { $0[column] == "days" } && rows.dropFirst().allSatisfy { $0[column] != "users" })
        let json = try dir.fetchlab(["compare", "--db", db, "--resamples", "200", "--format", "json"]).json()
        #expect((json["budget"] as? [String: Any])?["interval_over"] as? String == "days")

        let other = TemporaryDirectory()
        let many = other.path("many.sqlite")
        try other.importGenerated(users: 10, days: 12, seed: 4, into: many)
        let ten = try other.fetchlab(["compare", "--db", many, "--resamples", "200", "--policies", "never,fixed(1h)"])
        #expect(ten.status == 0, "\(ten.err)")
        #expect(!ten.out.contains("over days") && ten.out.contains("[95% CI]"), "\(ten.out)")
        #expect(ten.out.contains("[95 % interval over users]"), "\(ten.out)")
        #expect(
            ten.out.replacingOccurrences(of: "\n +", with: " ", options: .regularExpression).contains(
                "bootstrap over users, 200 resamples"), "\(ten.out)")
    }
}
