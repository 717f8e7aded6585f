import Foundation
import Testing
import _FetchLabTestSupport

/// `fetchlab tune` says how its choice was tested: the constraints on every test part, the test
/// users and launches with an interval, the user split's folds and its refusal, and a grid widened
/// toward a constraint or refused.
extension TuneTests {
    func imported(users: Int, days: Int = 12) throws {
        try dir.importUsage(syntheticLaunchesCSV(users: users, days: days), into: db)
    }

    @Test func constraintsAreCheckedOnEveryFoldsTestPartWithAnInterval() throws {
        try imported(users: 3, days: 20)
        let arguments = ["tune", "--db", db, "--family", "fixed", "--subject-to", "fetches<=5", "--folds", "2"]
        let text = try dir.fetchlab(arguments)
        #expect(text.status == 0, "\(text.err)")
        #expect(
            text.out.contains("constraints on the test parts: fetches<=5/app/day held on 2 of 2 folds"), "\(text.out)")
        #expect(text.out.contains("settings ranked by their mean over the 2 training parts"), "\(text.out)")
        #expect(text.out.contains("test: 3 users (u0, u1, u2), "), "\(text.out)")
        #expect(text.out.contains("(bootstrap over the test users, 1,000 resamples, seed 1)"), "\(text.out)")
        #expect(
            text.out.contains("\nwarning: few to measure on (fewer than 10 users or 500 scored launches"), "\(text.out)"
        )
        let object = try dir.fetchlab(arguments + ["--format", "json"]).json()
        let held = try #require(object["constraints_held"] as? [[String: Any]])
        #expect(held.count == 1 && held[0]["held"] as? Int == 2 && held[0]["folds"] as? Int == 2)
        let folds = try #require(object["folds"] as? [[String: Any]])
        #expect(Set(folds.compactMap { $0["chosen"] as? String }) == [object["chosen"] as? String ?? ""])
        for fold in folds {
            let checks = try #require(fold["constraints_on_test"] as? [[String: Any]])
            #expect(checks.first?["held"] as? Bool == true && (checks.first?["value"] as? Double ?? 9) <= 5)
            #expect(fold["test_users"] as? Int == 3 && fold["train_users"] as? Int == 3)
            let interval = try #require(fold["test_interval"] as? [String: Any])
            #expect((interval["low"] as? Double ?? 2) <= (interval["fresh"] as? Double ?? -1))
        }
        let pooled = try #require(object["held_out"] as? [String: Any])
        #expect(pooled["resamples"] as? Int == 1_000 && pooled["seed"] as? Int == 1 && pooled["users"] as? Int == 3)
        #expect((object["warnings"] as? [String])?.count == 1)
        #expect((object["ranking"] as? [[String: Any]])?.count == 7)
    }

    @Test func aUserSplitOfOneUserIsRefusedInOneLine() throws {
        try imported(users: 1)
        let result = try dir.fetchlab(["tune", "--db", db, "--family", "fixed", "--split", "users"])
        #expect(result.status == 1, "\(result.err)")
        #expect(result.err.split(separator: "\n").count == 1, "\(result.err)")
        #expect(result.err.contains("--split users needs at least 2 users with scored launches"), "\(result.err)")
        #expect(result.out.isEmpty)
        // Nothing stored: no held-out result of no launches.
        #expect(try dir.fetchlab(["runs", "show-tune", "1", "--db", db]).status == 1)
    }

    @Test func aUserSplitOfThreeUsersLeavesOneOutPerFold() throws {
        try imported(users: 3)
        let arguments = ["tune", "--db", db, "--family", "fixed", "--split", "users", "--subject-to", "fetches<=5"]
        let object = try dir.fetchlab(arguments + ["--format", "json"]).json()
        let folds = try #require(object["folds"] as? [[String: Any]])
        #expect(folds.map { $0["test_user_names"] as? [String] } == [["u0"], ["u1"], ["u2"]])
        #expect(folds.allSatisfy { $0["train_users"] as? Int == 2 })
        #expect(folds.allSatisfy { (($0["chosen_test"] as? [String: Any])?["scored_launches"] as? Int ?? 0) > 0 })
        #expect((object["split"] as? String)?.hasPrefix("leave one user out: 3 users") == true)
        let text = try dir.fetchlab(arguments)
        #expect(text.status == 0, "\(text.err)")
        for user in ["u0", "u1", "u2"] {
            #expect(text.out.contains("the test part holds one user (\(user)): its figures are that user's alone"))
        }
        #expect(
            text.out.contains("constraints on the test parts: fetches<=5/app/day held on 3 of 3 folds"), "\(text.out)")
        // The HTML section shows the folds, each with its one test user.
        let page = dir.path("split.html")
        #expect(try dir.fetchlab(arguments + ["--format", "html", "--output", page]).status == 0)
        let html = try String(contentsOfFile: page, encoding: .utf8)
        #expect(html.contains("<table id=\"tuning-folds\" data-rows=\"3\">"))
        #expect(occurrences(of: "data-one-user=\"1\"", in: html) == 3)
        #expect(html.contains("fetches&lt;=5/app/day held on 3 of 3 folds"))
    }

    @Test func anInfeasibleGridIsWidenedOrRefusedInOneLine() throws {
        try imported(users: 2)
        let widened = try dir.fetchlab([
            "tune", "--db", db, "--family", "workmanager", "--subject-to", "fetches<=5", "--format", "json",
        ])
        #expect(widened.status == 0, "\(widened.err)")
        let object = try widened.json()
        #expect((object["widened"] as? String)?.contains("period to 4h") == true, "\(object["widened"] ?? "")")
        #expect((object["chosen"] as? String)?.hasPrefix("workmanager(") == true)
        let refused = try dir.fetchlab([
            "tune", "--db", db, "--family", "workmanager", "--grid", "period=15m", "--subject-to", "fetches<=0.5",
        ])
        #expect(refused.status == 1, "\(refused.err)")
        #expect(refused.err.split(separator: "\n").count == 1, "\(refused.err)")
        #expect(
            refused.err.contains(
                "workmanager: no setting meets fetches<=0.5/app/day on the training part, even with "
                    + "period to 30m, 1h, 2h added; the closest, workmanager(2h,"), "\(refused.err)")
        #expect(refused.err.contains(" has fetches ") && refused.err.hasSuffix("/app/day\n"), "\(refused.err)")
        #expect(refused.out.isEmpty)
    }
}
