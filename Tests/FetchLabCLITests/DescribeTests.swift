import Foundation
import Testing
import _FetchLabTestSupport

/// `fetchlab describe` run as a user runs it: on a small imported log and on the real dev logs.
@Suite(.serialized) struct DescribeTests {
    let dir = TemporaryDirectory()
    var db: String { dir.path("usage.sqlite") }

    static func number(_ json: [String: Any], _ path: String) -> Double? {
        var node: Any? = json
        for key in path.split(separator: ".") { node = (node as? [String: Any])?[String(key)] }
        return (node as? NSNumber)?.doubleValue
    }

    @Test func textJSONAndUnknownUser() throws {
        try dir.importUsage(into: db)
        let text = try dir.fetchlab(["describe", "--db", db])
        #expect(text.status == 0, "\(text.err)")
        for heading in [
            "Population", "Launch classes", "Same-app gap", "Sessions", "Launch rates", "Regularity",
            "Weekday and weekend", "Hour-of-day entropy", "Transitions",
        ] {
            #expect(text.out.split(separator: "\n").contains { $0.hasPrefix(heading) }, "\(heading)")
        }
        #expect(text.out.contains("  users ") && text.out.contains("%") && text.out.contains(" min"))

        let json = try dir.fetchlab(["describe", "--db", db, "--format", "json", "--per-user"])
        #expect(json.status == 0, "\(json.err)")
        let report = try json.json()
        let population = try #require(report["population"] as? [String: Any])
        #expect(
            population.keys.sorted() == [
                "apps", "classes", "hourEntropy", "launches", "rates", "regularity", "sameAppGaps", "sessions",
                "transitions", "userDays", "users", "weekdayWeekend",
            ])
        #expect(Self.number(population, "users") == 2)
        let shares = ["coldShare", "sameAppShare", "afterOtherAppShare"].compactMap {
            Self.number(population, "classes.\($0)")
        }
        #expect(shares.count == 3 && abs(shares.reduce(0, +) - 1) < 1e-9)
        #expect(Self.number(population, "sameAppGaps.median") != nil)
        let rows = try #require(report["perUser"] as? [[String: Any]])
        #expect(rows.compactMap { $0["user"] as? String } == ["u0", "u1"])
        let launches = rows.compactMap { ($0["statistics"] as? [String: Any]).flatMap { Self.number($0, "launches") } }
        #expect(launches.reduce(0, +) == Self.number(population, "launches"))

        // One user only; the same user twice counts once.
        let one = try dir.fetchlab(["describe", "--db", db, "--user", "u1", "--user", "u1", "--format", "json"])
        #expect(one.status == 0, "\(one.err)")
        let only = try one.json()
        #expect(Self.number(only, "population.users") == 1)
        #expect(Self.number(only, "population.launches") == launches.last)

        let unknown = try dir.fetchlab(["describe", "--db", db, "--user", "u0", "--user", "nobody"])
        #expect(unknown.status == 1)
        #expect(unknown.out.isEmpty)
        #expect(unknown.err.split(separator: "\n").count == 1)
        #expect(unknown.err.contains("\"nobody\""))
    }

    /// A database with a close but no launch.
    @Test func noLaunchesIsAOneLineError() throws {
        let closeOnly = "timestamp,user,app,event\n1709280000,u0,com.app0,close\n"
        let empty = try dir.fetchlab(["import", "--db", db, try dir.write("close.csv", closeOnly)])
        #expect(empty.status == 0, "\(empty.err)")
        let result = try dir.fetchlab(["describe", "--db", db])
        #expect(result.status == 1)
        #expect(result.err.split(separator: "\n").count == 1)
        #expect(result.err.contains("no launches"))
    }

    /// The dev logs' pooled figures of the statistics the generator is calibrated on (issue 14's
    /// table), as `devLogs()` measures them.
    static let devTable: [(String, Double)] = [
        ("population.classes.coldShare", 0.273), ("population.classes.sameAppShare", 0.257),
        ("population.classes.afterOtherAppShare", 0.470), ("population.sameAppGaps.median", 55.9),
        ("population.sessions.appsMean", 2.48), ("population.sessions.appsP90", 5),
        ("population.rates.perAppDayMedian", 3.06),
    ]

    /// `describe --format json` of a freshly generated population (default config, a seed the
    /// defaults were not tuned on), imported as a user would.
    func generatedPopulation() throws -> [String: Any] {
        let out = dir.path("generated")
        let generated = try dir.fetchlab([
            "generate", "--users", "80", "--days", "28", "--seed", "2024", "--start", "2024-09-02", "--output", out,
        ])
        #expect(generated.status == 0, "\(generated.err)")
        let generatedDB = dir.path("generated.sqlite")
        let imported = try dir.fetchlab(["import", "--db", generatedDB, out + "/usage.csv.gz"])
        #expect(imported.status == 0, "\(imported.err)")
        let result = try dir.fetchlab(["describe", "--db", generatedDB, "--format", "json"])
        #expect(result.status == 0, "\(result.err)")
        return try result.json()
    }

    /// Every statistic of the table within ±25 % (relative) of `reference`.
    func expectClose(_ generated: [String: Any], to reference: [(String, Double)]) throws {
        for (path, value) in reference {
            let got = try #require(Self.number(generated, path), "\(path)")
            #expect(abs(got / value - 1) <= 0.25, "\(path): generated \(got), real \(value)")
        }
    }

    /// The generator's defaults reproduce the real logs' session structure (checked against the
    /// dev logs' recorded figures, so it runs where ../shared is absent too).
    @Test func aGeneratedPopulationUsesItsPhoneLikeTheDevLogsRecorded() throws {
        try expectClose(try generatedPopulation(), to: Self.devTable)
    }

    /// The same, against the dev logs measured now.
    @Test(.enabled(if: sharedDatasets() != nil, "../shared/datasets is not here"))
    func aGeneratedPopulationUsesItsPhoneLikeTheDevLogs() throws {
        try importDevLogs()
        let result = try dir.fetchlab(["describe", "--db", db, "--format", "json"])
        #expect(result.status == 0, "\(result.err)")
        let real = try result.json()
        let measured = try Self.devTable.map { (path, _) in (path, try #require(Self.number(real, path), "\(path)")) }
        try expectClose(try generatedPopulation(), to: measured)
    }

    /// The real foreground logs of ../shared/datasets/dev, imported as Docs/commands/describe.md says.
    func importDevLogs() throws {
        let data = try #require(sharedDatasets())
        let logs = try FileManager.default.contentsOfDirectory(atPath: data.path)
            .filter { $0.hasPrefix("foreground") && $0.hasSuffix(".csv.gz") }.sorted()
            .map { data.appendingPathComponent($0).path }
        #expect(logs.count == 4)
        let imported = try dir.fetchlab(
            [
                "import", "--db", db, "--timezone", "Europe/Ljubljana", "--exclude", "*launcher*", "--exclude",
                "com.example.nextapp", "--exclude", "com.android.systemui", "--exclude", "android",
            ] + logs)
        #expect(imported.status == 0, "\(imported.err)")
    }

    /// The figures Docs/commands/describe.md quotes for the dev logs, imported as it says.
    @Test(.enabled(if: sharedDatasets() != nil, "../shared/datasets is not here"))
    func devLogs() throws {
        try importDevLogs()
        let result = try dir.fetchlab(["describe", "--db", db, "--format", "json"])
        #expect(result.status == 0, "\(result.err)")
        let json = try result.json()
        for (path, value) in Self.devTable {
            let got = try #require(Self.number(json, path), "\(path)")
            #expect(abs(got - value) <= 0.01 * value, "\(path): \(got), expected \(value)")
        }
    }
}
