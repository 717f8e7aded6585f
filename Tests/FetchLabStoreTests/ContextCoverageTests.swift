import FetchLabCore
import Foundation
import Testing
import _FetchLabTestSupport

@testable import FetchLabStore

@Suite struct ContextCoverageTests {
    @Test func sharesAreOfTheSamplesThatRecordedTheField() throws {
        let f = try Fixture()
        let path = try f.dir.write(
            "ctx.csv",
            """
            timestamp,user,battery,charging,network,low_power
            2024-03-01T12:00:00Z,u1,80,true,wifi,false
            2024-03-01T13:00:00Z,u1,79,false,wifi,
            2024-03-02T13:00:00Z,u1,78,false,cellular,true
            2024-03-03T23:59:59Z,u1,77,,none,
            2024-03-05T08:30:00Z,u2,50,true,,

            """)
        let summary = try f.importer.importFile(path)
        #expect(summary.inserted.contextSamples == 5)
        let coverage = try UsageQueries(database: f.db).contextCoverage()
        #expect(coverage.map(\.user) == ["u1", "u2"])
        let u1 = coverage[0]
        #expect(u1.samples == 4)
        #expect(u1.first == "2024-03-01T12:00:00Z" && u1.last == "2024-03-03T23:59:59Z")
        #expect(u1.daysCovered == 3)
        #expect(u1.chargingKnown == 3 && u1.chargingShare == 1.0 / 3)
        #expect(u1.networkKnown == 4)
        #expect(u1.wifiShare == 0.5 && u1.cellularShare == 0.25 && u1.noNetworkShare == 0.25)
        #expect(u1.lowPowerKnown == 2 && u1.lowPowerShare == 0.5)
        let u2 = coverage[1]
        #expect(u2.samples == 1 && u2.daysCovered == 1 && u2.chargingShare == 1)
        // Unknown fields are unknown, not 0 %.
        #expect(u2.networkKnown == 0 && u2.wifiShare == nil && u2.lowPowerShare == nil)
        #expect(try UsageQueries(database: f.db).contextCoverage(user: "u2") == [u2])
        #expect(try UsageQueries(database: f.db).contextCoverage(user: "nobody").isEmpty)
    }

    @Test func datesAndTimesAreCivil() {
        #expect(UsageQueries.date(0) == "1970-01-01")
        #expect(UsageQueries.date(19_783) == "2024-03-01")
        #expect(
            UsageQueries.utc(Instant(sinceEpoch: 1_709_294_400_000_000) + .minutes(5) + 7) == "2024-03-01T12:05:00Z")
        #expect(UsageQueries.utc(-1) == "1969-12-31T23:59:59Z")
    }
}
