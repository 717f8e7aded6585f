import FetchLabCore
import Foundation
import Testing
import _FetchLabTestSupport

/// `fetchlab predict` and `fetchlab evaluate-predictors` on a generated population, as a user runs them.
@Suite(.serialized) struct PredictCommandTests {
    let dir = TemporaryDirectory()
    var db: String { dir.path("pop.sqlite") }

    func population() throws {
        let gen = try dir.fetchlab([
            "generate", "--users", "6", "--days", "21", "--seed", "5", "--output", dir.path("pop"),
        ])
        #expect(gen.status == 0, "\(gen.err)")
        let imported = try dir.fetchlab(["import", "--db", db, dir.path("pop")])
        #expect(imported.status == 0, "\(imported.err)")
    }

    @Test func predictPlansFetchesForAUser() throws {
        try population()
        let text = try dir.fetchlab(["predict", "--db", db, "--user", "u00001", "--at", "2024-03-20 00:00"])
        #expect(text.status == 0, "\(text.err)")
        let lines = text.out.split(separator: "\n")
        #expect(lines.first?.hasPrefix("u00001 from 2024-03-20 00:00 (") == true)
        #expect(lines.dropFirst().allSatisfy { $0.hasPrefix("com.example.") })
        #expect(lines.contains { $0.contains(" fetch ") && $0.contains("→ use expected") && $0.contains(" J") })

        let json = try dir.fetchlab(["predict", "--db", db, "--user", "u00001", "--format", "json", "--lead", "15m"])
        #expect(json.status == 0)
        let report = try json.json()
        #expect(report["leadMinutes"] as? Double == 15)
        let apps = try #require(report["apps"] as? [[String: Any]])
        #expect(!apps.isEmpty)
        for app in apps {
            for fetch in app["fetches"] as? [[String: Any]] ?? [] {
                let at = try #require(fetch["fetchAt_us"] as? Int64)
                let use = try #require(fetch["expectedUse_us"] as? Int64)
                #expect(abs(Microseconds(use - at).inMinutes - 15) < 0.01)
                // The network and energy expected then, from the same moments of past days.
                let outlook = try #require(fetch["outlook"] as? [String: Any])
                let shares = ["wifi", "cellular", "offline"].compactMap { outlook[$0] as? Double }
                #expect(shares.count == 3 && abs(shares.reduce(0, +) - 1) < 1e-9)
                #expect((outlook["joules"] as? Double ?? -1) >= 0)
            }
        }
        // One app only; every user at once.
        let one = try dir.fetchlab(["predict", "--db", db, "--user", "u00001", "--app", "com.example.nosuchapp"])
        #expect(one.status == 1)
        #expect(one.err.split(separator: "\n").count == 1)
        let all = try dir.fetchlab(["predict", "--db", db])
        #expect(all.status == 0)
        #expect(all.out.hasPrefix("6 users, "))
    }

    /// A local --at reads the user's clock as it was then, not after a later DST change.
    @Test func localOriginUsesTheOffsetOfItsTime() throws {
        var text = "timestamp,user,app\n"
        for d in 1...9 { text += "2024-03-0\(d)T12:00:00-05:00,ny,com.news\n" }
        for d in 11...25 { text += "2024-03-\(d)T12:00:00-04:00,ny,com.news\n" }
        let imported = try dir.fetchlab(["import", "--db", dir.path("ny.sqlite"), try dir.write("ny.csv", text)])
        #expect(imported.status == 0, "\(imported.err)")
        let r = try dir.fetchlab(["predict", "--db", dir.path("ny.sqlite"), "--user", "ny", "--at", "2024-03-08 00:00"])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.hasPrefix("ny from 2024-03-08 00:00 (-05:00)"), "\(r.out)")
    }

    @Test func badArgumentsAreOneLineErrors() throws {
        try population()
        let unknown = try dir.fetchlab(["predict", "--db", db, "--user", "nobody"])
        #expect(unknown.status == 1)
        #expect(
            unknown.err
                == "fetchlab: error: \(db): no launches for user \"nobody\"; closest users: "
                + "u00001, u00002, u00003, u00004, u00005\n")
        let lead = try dir.fetchlab(["predict", "--db", db, "--user", "u00001", "--lead", "10s"])
        #expect(lead.status == 64)
        #expect(lead.err.contains("must cover the fetch duration"))
        let noDB = try dir.fetchlab(["evaluate-predictors", "--db", dir.path("missing.sqlite")])
        #expect(noDB.status == 1)
        #expect(noDB.err.contains("no such database"))
    }

    /// A small log of two users in New York: news at noon, -05:00 until March 10, -04:00 after.
    func newYork() throws -> String {
        var text = "timestamp,user,app\n"
        for d in 1...9 { text += "2024-03-0\(d)T12:00:00-05:00,ny,com.news\n" }
        for d in 11...25 { text += "2024-03-\(d)T12:00:00-04:00,ny,com.news\n" }
        text += "2024-03-20T09:00:00-04:00,nj,com.mail\n"
        let path = dir.path("ny.sqlite")
        let imported = try dir.fetchlab(["import", "--db", path, try dir.write("ny.csv", text)])
        #expect(imported.status == 0, "\(imported.err)")
        return path
    }

    @Test func aOneDigitHourIsALocalTime() throws {
        let r = try dir.fetchlab(["predict", "--db", try newYork(), "--user", "ny", "--at", "2024-03-08 8:00"])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.hasPrefix("ny from 2024-03-08 08:00 (-05:00)"), "\(r.out)")
        #expect(r.err.isEmpty)
    }

    @Test func anOriginLongAfterTheLogWarnsThatTheHistoryIsStale() throws {
        let r = try dir.fetchlab(["predict", "--db", try newYork(), "--user", "ny", "--at", "2024-05-01 08:00"])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.hasPrefix("ny from 2024-05-01 08:00 (-04:00)"))
        #expect(
            r.err
                == "fetchlab: warning: user \"ny\"'s last launch before the origin is 36 days earlier; "
                + "predicting from stale history\n")
    }

    @Test func anUnknownUserInASmallDatabaseListsTheUsers() throws {
        let db = try newYork()
        let r = try dir.fetchlab(["predict", "--db", db, "--user", "nyc"])
        #expect(r.status == 1)
        #expect(r.err == "fetchlab: error: \(db): no launches for user \"nyc\"; users with launches: nj, ny\n")
    }

    @Test func aMissingDatabaseExitsOne() throws {
        let r = try dir.fetchlab(["predict", "--db", dir.path("missing.sqlite"), "--user", "ny"])
        #expect(r.status == 1)
        #expect(r.err.split(separator: "\n").count == 1)
        #expect(r.err.contains("no such database"))
    }

    @Test func evaluatingTooLittleDataSaysWhyAndWhatWouldHelp() throws {
        var text = "timestamp,user,app\n"
        for d in 1...3 { text += "2024-03-0\(d)T08:00:00+01:00,u,com.mail\n2024-03-0\(d)T12:00:00+01:00,u,com.news\n" }
        let db = dir.path("short.sqlite")
        let imported = try dir.fetchlab(["import", "--db", db, try dir.write("short.csv", text)])
        #expect(imported.status == 0, "\(imported.err)")
        let r = try dir.fetchlab(["evaluate-predictors", "--db", db])
        #expect(r.status == 1)
        #expect(r.out.isEmpty)
        #expect(
            r.err
                == "fetchlab: error: \(db): no origins or launches were scored: the warm-up of 7 days is longer than "
                + "the data's span of 3 days; a shorter --warm-up (at most 1) would help\n")
        let shorter = try dir.fetchlab(["evaluate-predictors", "--db", db, "--warm-up", "1"])
        #expect(shorter.status == 0, "\(shorter.err)")
        #expect(shorter.out.hasPrefix("1 user, 6 launches; scores on 1 held-out user-day "))
    }

    @Test func evaluatePredictorsPrintsTheTableAndJSON() throws {
        try population()
        let text = try dir.fetchlab([
            "evaluate-predictors", "--db", db, "--every", "6", "--truth", dir.path("pop/truth.json"),
        ])
        #expect(text.status == 0, "\(text.err)")
        for name in [
            "blend", "profile", "gap", "sequence", "android", "same-time-tomorrow", "last-gap", "most-frequent",
            "most-recent",
        ] {
            #expect(text.out.contains("\n\(name) "), "\(name)")
        }
        #expect(text.out.contains("truth: found"))
        #expect(text.out.contains("reliability of the blend"))
        let json = try dir.fetchlab(["evaluate-predictors", "--db", db, "--every", "6", "--format", "json"])
        let report = try json.json()
        #expect(report["users"] as? Int == 6)
        #expect((report["scores"] as? [Any])?.count == 9)
    }

    /// The planned fetches' calibrated p against what happened on held-out time, in text and JSON.
    @Test func evaluatePredictorsShowsThePlannedFetchesReliability() throws {
        try population()
        let text = try dir.fetchlab(["evaluate-predictors", "--db", db, "--every", "24"])
        #expect(text.status == 0, "\(text.err)")
        #expect(text.out.contains("planned fetches' p = P(launch within 30 min after the fetch)"))
        #expect(text.out.contains("calibrated p of the blend's fetches:"))
        let json = try dir.fetchlab(["evaluate-predictors", "--db", db, "--every", "24", "--format", "json"])
        #expect(json.status == 0, "\(json.err)")
        let report = try json.json()
        let blend = try #require((report["scores"] as? [[String: Any]])?.first)
        let planned = try #require(blend["plannedFetches"] as? [String: Any])
        #expect((planned["fit_samples"] as? Int ?? 0) > 0)
        #expect(planned["calibrator"] is [String: Any])
        let calibrated = try #require(planned["calibrated"] as? [String: Any])
        #expect(calibrated["minimum_count"] as? Int == 30)
        let bins = try #require(calibrated["bins"] as? [[String: Any]])
        #expect(bins.count == 10)
        let counted = bins.filter { ($0["count"] as? Int ?? 0) > 0 }
        #expect(!counted.isEmpty)
        for bin in counted {
            for key in ["lower", "upper", "mean_stated", "observed", "gap", "too_small"] {
                #expect(bin[key] != nil, "\(key)")
            }
        }
    }

    /// The learned family's model as a predictor: its own question's Brier score against stating
    /// the base rate, its ranking of the next launch that needs a fetch, its reliability, on
    /// held-out time, in text and JSON.
    @Test func evaluatePredictorsJudgesTheLearnedModel() throws {
        try population()
        let text = try dir.fetchlab(["evaluate-predictors", "--db", db, "--every", "24"])
        #expect(text.status == 0, "\(text.err)")
        #expect(
            text.out.contains(
                "\nlearned model (learned(B)'s, asked at every moment a policy may act), on held-out time:"))
        #expect(text.out.contains("\n  P(launch of the app within 15 min): "))
        #expect(
            text.out.contains("\n  the next launch that needs a fetch, ranked at the launch of another app before it: ")
        )
        let json = try dir.fetchlab(["evaluate-predictors", "--db", db, "--every", "24", "--format", "json"])
        let model = try #require(try json.json()["learnedModel"] as? [String: Any])
        let questions = try #require(model["questions"] as? Int)
        #expect(questions > 1_000)
        let brier = try #require(model["brier"] as? Double)
        let base = try #require(model["baseRateBrier"] as? Double)
        // A model that learned anything beats stating the base rate.
        #expect(brier < base, "Brier \(brier), base rate \(base)")
        let hr1 = try #require(model["hr1"] as? Double)
        let hr5 = try #require(model["hr5"] as? Double)
        let mrr = try #require(model["mrr"] as? Double)
        #expect(0 < hr1 && hr1 <= mrr && mrr <= hr5 && hr5 <= 1, "\(hr1) \(mrr) \(hr5)")
        #expect((model["rankedLaunches"] as? Int ?? 0) > 100)
        let bins = try #require((model["reliability"] as? [String: Any])?["bins"] as? [[String: Any]])
        #expect(bins.reduce(0) { $0 + ($1["count"] as? Int ?? 0) } == questions)
        // Each judged bin says whether chance explains its gap, as the JSON's flag does.
        let judged = bins.filter { ($0["too_small"] as? Bool) == false }
        #expect(!judged.isEmpty)
        let lines = text.out.split(separator: "\n")
        let beyond = lines.filter { $0.hasSuffix("  beyond chance") }.count
        let within = lines.filter { $0.contains("  within chance (±") }.count
        #expect(beyond + within == judged.count)
        #expect(beyond == judged.filter { ($0["beyond_chance"] as? Bool) == true }.count)
        #expect(judged.allSatisfy { ($0["chance_gap"] as? Double).map { $0 > 0 && $0 < 0.5 } ?? false })
    }

    /// `predict` states each fetch's calibrated p next to the planner's raw score.
    @Test func predictStatesCalibratedProbabilities() throws {
        try population()
        let json = try dir.fetchlab(["predict", "--db", db, "--user", "u00001", "--format", "json"])
        #expect(json.status == 0, "\(json.err)")
        let report = try json.json()
        let fetches = (report["apps"] as? [[String: Any]] ?? []).flatMap { $0["fetches"] as? [[String: Any]] ?? [] }
        #expect(!fetches.isEmpty)
        let pairs = fetches.compactMap { f in
            (f["probability"] as? Double).flatMap { p in (f["score"] as? Double).map { (p, $0) } }
        }
        #expect(pairs.count == fetches.count)
        // Scores are at least the threshold; the stated p is what such plans turned out to be.
        #expect(pairs.allSatisfy { $0.1 >= 0.5 })
        #expect(pairs.contains { abs($0.0 - $0.1) > 0.05 })
    }
}
