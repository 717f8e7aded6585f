import Foundation
import Testing
import _FetchLabTestSupport

/// `compare --platform ios|android` run as a user would: a requested interval replayed through
/// iOS's scheduler and wake budget, and one line when the platform had nothing to act on.
@Suite struct PlatformModelTests {
    let dir = TemporaryDirectory()
    var db: String { dir.path("platform.sqlite") }

    /// Two users' launches (no context samples, no force-quit, no refresh switch), and optionally
    /// one force-quit.
    func imported(forceQuit: Bool = false) throws {
        var text = syntheticLaunchesCSV()
        if forceQuit { text += "1709541000,u0,com.app0,force_quit\n" }
        try dir.importUsage(text, into: db)
    }

    @Test func fixedUnderIOSIsReplayedThroughTheSystemAndItsTicksAreNotRefusals() throws {
        try imported()
        let table = try dir.fetchlab(["compare", "--db", db, "--platform", "ios", "--policies", "never,fixed(15m)"])
        #expect(table.status == 0, "\(table.err)")
        #expect(table.out.contains("platform ios: fixed(T) asks for a minimum interval"), "\(table.out)")
        // A floor's ticks are not requests: no skip line for fixed(15m).
        #expect(!table.out.split(separator: "\n").contains { $0.hasPrefix("  fixed(15m): ") }, "\(table.out)")
        #expect(table.out.contains("its ticks not requests"), "\(table.out)")

        let result = try dir.fetchlab([
            "compare", "--db", db, "--platform", "ios", "--policies", "fixed(15m)", "--format", "json",
            "--ios-wake-budget-max", "3",
        ])
        #expect(result.status == 0, "\(result.err)")
        let object = try result.json()
        let rules = try #require((object["settings"] as? [String: Any])?["platform_rules"] as? [String: Any])
        #expect(rules["ios_wake_budget_max"] as? Int == 3 && rules["ios_interval_is_floor"] as? Bool == true)
        let metrics = try #require((object["policies"] as? [[String: Any]])?.first?["metrics"] as? [String: Any])
        // At most the budget's three wakes per app per day, not 96; the rest declined by reason.
        #expect((metrics["fetches_per_app_day"] as? Double ?? 99) <= 3, "\(metrics)")
        let reasons = try #require(metrics["skips"] as? [String: Int])
        // A floor is not a request: iOS ran what it ran, and nothing counts as refused.
        #expect(reasons.values.allSatisfy { $0 == 0 } && reasons["not_predicted"] == nil, "\(reasons)")
    }

    @Test(arguments: ["ios", "android"])
    func aPlatformWithNothingToActOnSaysSoInOneLine(platform: String) throws {
        try imported()
        let table = try dir.fetchlab(["compare", "--db", db, "--platform", platform, "--policies", "never,fixed(1h)"])
        #expect(table.status == 0, "\(table.err)")
        let lines = table.err.split(separator: "\n")
        #expect(lines.count == 2, "\(table.err)")
        #expect(
            lines.first?.hasPrefix(
                "platform \(platform): no context samples, force-quits or refresh switches in the logs of 2 users")
                == true,
            "\(table.err)")
        #expect(lines.last == "run 1 stored in \(db)")
        #expect(!table.out.contains("no context samples, force-quits"))  // stdout carries the results only

        let json = try dir.fetchlab(["compare", "--db", db, "--platform", platform, "--format", "json"]).json()
        let inputs = try #require(json["platform_inputs"] as? [String: Any])
        #expect(inputs["inert"] as? Bool == true && inputs["users"] as? Int == 2 && inputs["force_quits"] as? Int == 0)
    }

    @Test func aForceQuitOrPlatformNoneGivesNoSuchLine() throws {
        try imported(forceQuit: true)
        let ios = try dir.fetchlab(["compare", "--db", db, "--platform", "ios", "--policies", "never"])
        #expect(ios.status == 0 && ios.err == "run 1 stored in \(db)\n", "\(ios.err)")
        let json = try dir.fetchlab(["compare", "--db", db, "--platform", "ios", "--format", "json"]).json()
        let inputs = try #require(json["platform_inputs"] as? [String: Any])
        #expect(inputs["inert"] as? Bool == false && inputs["force_quits"] as? Int == 1)
        // Under none every fetch asked for happens: nothing to say, no such field.
        let none = try dir.fetchlab(["compare", "--db", db, "--policies", "never", "--format", "json"])
        #expect(none.err == "run 3 stored in \(db)\n", "\(none.err)")
        #expect(try none.json()["platform_inputs"] == nil)
    }

    @Test func tuneSaysWhatThePlatformSettingsHadToActOn() throws {
        try imported()
        let result = try dir.fetchlab(["tune", "--db", db, "--family", "fixed", "--subject-to", "fetches<=30"])
        #expect(result.status == 0, "\(result.err)")
        #expect(result.err == "tuning run 1 stored in \(db)\n", "\(result.err)")
        #expect(
            result.out.contains("(no context samples, force-quits or refresh switches in the logs of the 2 users read"))
        let ios = try #require(
            result.out.split(separator: "\n").first { $0.hasPrefix("  ios: setMinimumBackgroundFetchInterval") })
        // Every fixed interval gains 0 over the fixed baseline, so which one is chosen is the tie's
        // rule; whichever it is, iOS replays it as its adaptive scheduler with that interval as the floor.
        let interval = try #require(ios.firstRange(of: "modelled as fixed(")).upperBound
        let chosen = ios[interval...].prefix { $0 != ")" }
        #expect(
            ios.contains("replayed as iOS runs it: ios-adaptive(10m,\(chosen)) within the daily wake budget"), "\(ios)")
        // The floor's ticks are not requests the system refused.
        #expect(ios.hasSuffix(", 0 refused") && !ios.contains("system did not expect a launch"), "\(ios)")
    }
}
