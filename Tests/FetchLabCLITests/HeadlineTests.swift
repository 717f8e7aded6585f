import FetchLabCore
import Foundation
import Testing
import _FetchLabTestSupport

/// The headline as a user reads it from `compare --format json`: for an app team one app-scope
/// setting, for a system scheduler one setting of any scope, each with its own row's figures, and
/// the app's setting on iOS and Android with the figures `compare --platform <p> --policies <model>`
/// gives on the same users.
@Suite struct HeadlineTests {
    let dir = TemporaryDirectory()
    var db: String { dir.path("headline.sqlite") }

    static let keys = ["fresh", "gain_vs_fixed", "fetches_per_app_day"]

    func compare(_ options: [String]) throws -> [String: Any] {
        let result = try dir.fetchlab(["compare", "--db", db, "--format", "json", "--no-store"] + options)
        #expect(result.status == 0, "\(result.err)")
        return try result.json()
    }

    @Test func eachNamedSettingQuotesItsOwnRowAndEachPlatformLineItsOwnReplay() throws {
        try dir.importGenerated(
            users: 12, days: 21, seed: 5, signals: true, logs: ["usage", "context", "content"], into: db)
        let report = try compare(["--warm-up", "3"])
        let headline = try #require(report["headline"] as? [String: Any])
        let rows = try #require(report["policies"] as? [[String: Any]])
        func row(_ name: String) throws -> [String: Any] { try #require(rows.first { $0["name"] as? String == name }) }
        let budget = try #require(headline["budget"] as? Double)
        for audience in ["app", "os"] {
            let named = try #require(headline[audience] as? [String: Any], "\(audience)")
            let own = try row(try #require(named["policy"] as? String))
            let metrics = try #require(own["metrics"] as? [String: Any])
            #expect(named["fresh"] as? Double == metrics["fresh_15m"] as? Double)
            #expect(named["gain_vs_fixed"] as? Double == metrics["gain_vs_fixed"] as? Double)
            #expect(named["fetches_per_app_day"] as? Double == metrics["fetches_per_app_day"] as? Double)
            #expect((named["gain_ci"] as? [Double]) == (metrics["gain_ci"] as? [Double]))
            #expect(try #require(named["fetches_per_app_day"] as? Double) <= budget + 1e-9)
            #expect(named["scope"] as? String == own["scope"] as? String)
            if audience == "app" { #expect(own["scope"] as? String == "app") }
            #expect(own["scope"] as? String != "clairvoyant")
        }
        // The OS's setting may read anything, so it is at least as fresh as the app's.
        let app = try #require(headline["app"] as? [String: Any])
        let os = try #require(headline["os"] as? [String: Any])
        #expect(try #require(os["fresh"] as? Double) >= (try #require(app["fresh"] as? Double)))
        let platforms = try #require(headline["platforms"] as? [[String: Any]])
        #expect(Set(platforms.compactMap { $0["platform"] as? String }) == ["ios", "android"])
        for line in platforms {
            let platform = try #require(line["platform"] as? String)
            let policy = try #require(line["policy"] as? String)
            #expect(!(line["snippet"] as? String ?? "").isEmpty)
            let alone = try compare(["--warm-up", "3", "--platform", platform, "--policies", policy])
            let replayed = try #require((alone["policies"] as? [[String: Any]])?.first?["metrics"] as? [String: Any])
            #expect(line["fresh"] as? Double == replayed["fresh_15m"] as? Double, "\(platform) \(policy)")
            #expect(line["gain_vs_fixed"] as? Double == replayed["gain_vs_fixed"] as? Double, "\(platform) \(policy)")
            #expect((line["gain_ci"] as? [Double]) == (replayed["gain_ci"] as? [Double]), "\(platform) \(policy)")
            #expect(line["fetches_per_app_day"] as? Double == replayed["fetches_per_app_day"] as? Double)
        }
    }

    @Test func theTextNamesBothAudiencesAndAMergeLeavesThePlatformsOut() throws {
        try dir.importGenerated(users: 6, days: 21, seed: 9, into: db)
        let text = try dir.fetchlab(["compare", "--db", db, "--no-store", "--warm-up", "3"])
        #expect(text.status == 0, "\(text.err)")
        #expect(text.out.contains("  For an app team: "), "\(text.out)")
        #expect(text.out.contains("  For a system scheduler: "), "\(text.out)")
        #expect(text.out.contains("    on iOS: ") && text.out.contains("    on Android: "), "\(text.out)")
        let without = try compare(["--warm-up", "3", "--no-platform-lines"])
        let headline = try #require(without["headline"] as? [String: Any])
        #expect((headline["platforms"] as? [Any])?.isEmpty == true)
        #expect(headline["app"] is [String: Any])
    }
}
