import FetchLabCore
import FetchLabReport
import FetchLabResults
import Foundation
import Testing

@testable import FetchLabSimulation

/// `--per-user` rows kept apart as users are summed (`PerUserRows`: in memory here, on disk with
/// FetchLabScale's `PerUserSpool`, whose tests run the same checks): the output and the rows read
/// back are exactly what holding every user's metrics in the report gives.
@Suite struct PerUserSpoolTests {
    static let policies = "never, fixed(1h), predictive(15m,0.3), budgeted(1,4), oracle"

    /// The same comparison twice: per-user metrics held, and spooled.
    static func runs(
        users: Int = 12, rows: (Int) throws -> any PerUserRows = { MemoryPerUserRows(policies: $0) }
    ) throws -> (held: ComparisonRun, spooled: ComparisonRun) {
        var simulator = Simulator()
        simulator.perUser = true
        let policies = try PolicyRegistry.parseList(Self.policies)
        let population = BudgetCurveTests.population(users: users)
        var held = simulator.comparison(policies: policies)
        var spooled = simulator.comparison(policies: policies)
        spooled.keepPerUser(in: try rows(spooled.requestedPolicies))
        for run in [0, 1] {
            // Two batches, as the command adds them.
            for batch in [Array(population.prefix(5)), Array(population.dropFirst(5))] {
                if run == 0 { held.add(batch) } else { spooled.add(batch) }
            }
        }
        try spooled.perUserRows?.finish()
        return (held, spooled)
    }

    @Test func theSpooledJSONIsTheHeldJSONByteForByte() throws {
        let (held, spooled) = try Self.runs()
        let expected = CompareRenderer.json(held.report(), runID: 7)
        let report = spooled.report()
        #expect(report.policies.allSatisfy { $0.perUser == nil && $0.spooledPerUser != nil })
        let spool = try #require(spooled.perUserRows)
        #expect(spool.users == 12)
        var written = ""
        var pieces = 0
        try spool.writeJSON(CompareRenderer.json(report, runID: 7)) {
            written += $0
            pieces += 1
        }
        #expect(written == expected)
        #expect(pieces > 12)  // written a row at a time, not as one string
        let object = try #require(try JSONSerialization.jsonObject(with: Data(written.utf8)) as? [String: Any])
        let policies = try #require(object["policies"] as? [[String: Any]])
        #expect(policies.count == report.policies.count && policies.count >= 5)
        #expect(policies.allSatisfy { ($0["per_user"] as? [Any])?.count == 12 })
    }

    @Test func rowsReadBackAreTheHeldRowsInOrder() throws {
        let (held, spooled) = try Self.runs()
        let report = held.report()
        let spool = try #require(spooled.perUserRows)
        for (i, policy) in report.policies.enumerated() {
            var read: [GroupResult] = []
            try spool.forEach(policy: i) { read.append($0) }
            #expect(read == policy.perUser, "\(policy.name)")
        }
    }

    @Test func noUsersGiveEmptyArraysAsTheEncoderWritesThem() throws {
        let metrics = PolicyMetrics(scoredLaunches: 0, fresh: [], fetchesPerAppDay: 0)
        let settings = ComparisonSettings(
            tau: .minutes(15), taus: [.minutes(15)], launchRefreshes: true, warmUpDays: 7, minLaunches: 20,
            platform: .none, users: 0, pairs: 0, scoredLaunches: 0)
        let held = ComparisonReport(
            settings: settings,
            policies: [PolicyResult(name: "never", family: "never", params: [:], metrics: metrics, perUser: [])])
        var spooledReport = held
        spooledReport.policies[0].perUser = nil
        spooledReport.policies[0].spooledPerUser = 0
        let spool = MemoryPerUserRows(policies: 1)
        try spool.finish()
        var written = ""
        try spool.writeJSON(TextFormat.json(spooledReport)) { written += $0 }
        #expect(written == TextFormat.json(held))
    }
}
