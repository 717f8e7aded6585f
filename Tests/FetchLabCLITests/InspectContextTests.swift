import Foundation
import GRDB
import Testing
import _FetchLabTestSupport

/// `fetchlab inspect` on context samples, alone and next to launches.
@Suite struct InspectContextTests {
    let dir = TemporaryDirectory()
    var db: String { dir.path("inspect.sqlite") }

    let context = """
        timestamp,user,battery,charging,network,low_power
        2024-03-01T12:00:00Z,dev1,80,true,wifi,
        2024-03-01T13:00:00Z,dev1,79,false,wifi,
        2024-03-02T13:00:00Z,dev1,78,false,cellular,
        2024-03-03T13:00:00Z,dev1,77,false,none,

        """

    @Test func contextAloneIsShownNotNoLaunches() throws {
        let file = try dir.write("ctx.csv", context)
        #expect(try dir.fetchlab(["import", "--db", db, file]).status == 0)
        let text = try dir.fetchlab(["inspect", "--db", db])
        #expect(text.status == 0, "\(text.err)")
        #expect(!text.err.contains("no launches"))
        let row = try #require(text.out.split(separator: "\n").first { $0.hasPrefix("dev1") })
        #expect(row.contains("4"))
        #expect(row.contains("2024-03-01T12:00:00Z") && row.contains("2024-03-03T13:00:00Z"))
        #expect(row.contains("25%") && row.contains("50%"))
        #expect(row.hasSuffix("–"))  // low power: not recorded

        let json = try dir.fetchlab(["inspect", "--db", db, "--format", "json"])
        let report = try json.json()
        #expect((report["launches"] as? [Any])?.isEmpty == true)
        let coverage = try #require((report["context"] as? [[String: Any]])?.first)
        #expect(coverage["user"] as? String == "dev1")
        #expect(coverage["samples"] as? Int == 4)
        #expect(coverage["chargingShare"] as? Double == 0.25)
        #expect(coverage["wifiShare"] as? Double == 0.5)
        #expect(coverage["lowPowerShare"] == nil)
    }

    @Test func contextIsShownAlongsideLaunches() throws {
        let usage = try dir.write("u.csv", "timestamp,user,app\n2024-03-01T12:00:00Z,dev1,com.a\n")
        let ctx = try dir.write("ctx.csv", context)
        #expect(try dir.fetchlab(["import", "--db", db, usage, ctx]).status == 0)
        let text = try dir.fetchlab(["inspect", "--db", db])
        #expect(text.status == 0)
        #expect(text.out.contains("launches  days  /day"))
        #expect(text.out.contains("samples  first (UTC)"))
        #expect(text.out.contains("Profile: launches per hour"))
        let json = try dir.fetchlab(["inspect", "--db", db, "--format", "json", "--user", "dev1"])
        let report = try json.json()
        #expect((report["launches"] as? [Any])?.count == 1)
        #expect((report["context"] as? [Any])?.count == 1)
        // --app asks about apps: context (per user) is left out.
        let app = try dir.fetchlab(["inspect", "--db", db, "--app", "com.a"])
        #expect(!app.out.contains("samples"))
        #expect(app.out.contains("com.a"))
    }

    @Test func anEmptyOrMissingDatabase() throws {
        let missing = try dir.fetchlab(["inspect", "--db", db])
        #expect(missing.status == 1)
        #expect(missing.err.hasPrefix("fetchlab: error: \(db): no such database"))
        #expect(missing.err.split(separator: "\n").count == 1)
        let notDB = try dir.write("text.sqlite", "not a database")
        let refused = try dir.fetchlab(["inspect", "--db", notDB])
        #expect(refused.status == 1)
        #expect(refused.err.contains("refusing to touch it"))
        _ = try DatabaseQueue(path: db)  // an empty file becomes a database on import
        let file = try dir.write("u.csv", "timestamp,user,app\n2024-03-01T12:00:00Z,u1,com.a\n")
        #expect(try dir.fetchlab(["import", "--db", db, file]).status == 0)
        let none = try dir.fetchlab(["inspect", "--db", db, "--user", "nobody"])
        #expect(none.status == 0)
        #expect(none.err.contains("no launches or context samples stored for user nobody"))
    }
}
