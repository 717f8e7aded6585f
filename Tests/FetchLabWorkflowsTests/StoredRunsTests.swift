import FetchLabCore
import FetchLabResults
import FetchLabScale
import FetchLabSimulation
import FetchLabStore
import Foundation
import Testing
import _FetchLabTestSupport

@testable import FetchLabWorkflows

/// The workflows of `runs`, `report`, `inspect`, `merge --print-timeline-user` and demo's sample
/// lookup on a real database and real files: what the commands do without their options or output.
@Suite struct StoredRunsTests {
    let dir = TemporaryDirectory()

    /// Four users, 12 days, imported into a new database; its path.
    func database() throws -> String {
        let path = dir.path("r.sqlite")
        let db = try FetchLabDatabase(path: path)
        _ = try Importer(database: db).importFile(try dir.write("u.csv", syntheticLaunchesCSV(users: 4, seed: 5)))
        return path
    }

    func compared(_ path: String, tau: Microseconds = .minutes(15)) throws -> ComparisonOutcome {
        var evaluation = EvaluationProtocol()
        evaluation.primaryTau = tau
        var request = ComparisonRequest(database: path, evaluation: evaluation, settings: ReplaySettings())
        request.policies = try PolicyRegistry.parseList("never,fixed(1h),oracle")
        request.resamples = 0
        return try Comparison.run(request)
    }

    func store(_ report: ComparisonReport, _ path: String) -> Int64? {
        RunRecorder.store(
            report, command: "compare", path: path, messages: RunRecorder.Messages(note: { _ in }, error: { _ in })
        ).id
    }

    @Test func storedRunsAreListedReadDiffedAndDeleted() throws {
        let path = try database()
        #expect(try StoredRuns.list(database: path).runs.isEmpty)
        #expect(throws: WorkflowError.self) { try StoredRuns.reportInputs(run: nil, database: path) }
        let first = try compared(path).report
        let a = try #require(store(first, path))
        let b = try #require(store(try compared(path, tau: .minutes(60)).report, path))
        let listing = try StoredRuns.list(database: path)
        #expect(listing.runs.map(\.id) == [a, b] && listing.tuningRuns.isEmpty)
        #expect(try StoredRuns.run(a, database: path).policies.map(\.metrics) == first.policies.map(\.metrics))
        // The latest run by default, without a tuning run.
        let inputs = try StoredRuns.reportInputs(run: nil, database: path)
        #expect(inputs.id == b && inputs.tuning == nil)
        #expect(try StoredRuns.reportInputs(run: a, database: path).id == a)
        // Runs of another τ are refused, naming it, unless forced.
        #expect(
            performing: { try StoredRuns.diff(a, b, database: path, force: false) },
            throws: { ($0 as? WorkflowError)?.code == .failed && "\($0)".contains("pass --force") })
        let forced = try StoredRuns.diff(a, b, database: path, force: true)
        #expect(!forced.differingSettings.isEmpty)
        #expect(try StoredRuns.diff(a, a, database: path, force: false).differingSettings.isEmpty)
        // One id that names no run: nothing is deleted.
        #expect(throws: StoreError.self) { try StoredRuns.delete([a, 99], database: path) }
        #expect(try StoredRuns.list(database: path).runs.count == 2)
        #expect(try StoredRuns.delete([a], database: path) == [a])
        #expect(try StoredRuns.list(database: path).runs.map(\.id) == [b])
        #expect(throws: StoreError.self) { try StoredRuns.run(a, database: path) }
    }

    @Test func anInspectionReadsEveryUserOrOneApp() throws {
        let path = try database()
        let everyone = try Inspection.run(database: path, user: nil, app: nil)
        #expect(Set(everyone.launches.map(\.user)) == ["u0", "u1", "u2", "u3"])
        #expect(everyone.signals != nil)
        let one = try #require(everyone.launches.first)
        let app = try Inspection.run(database: path, user: one.user, app: one.app)
        #expect(app.launches.map(\.launches) == [one.launches])
        #expect(app.context.isEmpty && app.signals == nil)
        #expect(throws: StoreError.self) { try Inspection.run(database: dir.path("none.sqlite"), user: nil, app: nil) }
    }

    @Test func theTimelineUserOfPartialsIsTheirRepresentativeOrTheOneNamed() throws {
        let path = try database()
        var request = ComparisonRequest(database: path, evaluation: EvaluationProtocol(), settings: ReplaySettings())
        request.policies = try PolicyRegistry.parseList("never,fixed(1h)")
        request.resamples = 0
        request.partial = true
        let outcome = try Comparison.run(request)
        let file = dir.path("all.partial")
        try PartialFile.write(try #require(outcome.partial), to: file)
        let user = try Merge.timelineUser(of: [file])
        #expect(user == outcome.run.representativeUser)
        #expect(try Merge.timelineUser(of: [file], traceUser: "u2") == "u2")
    }

    @Test func theSampleIsTheDirectoryGivenOrTheBundledOne() throws {
        let given = dir.path("sample")
        try FileManager.default.createDirectory(atPath: given, withIntermediateDirectories: true)
        #expect(try BundledSample.directory(given: given) == given)
        #expect(
            performing: { try BundledSample.directory(given: dir.path("missing")) },
            throws: { "\($0)".hasSuffix("no such sample directory (--data)") })
        // From this repository (the tests run in it), the bundled sample is found.
        let bundled = try BundledSample.directory(given: nil)
        #expect(FileManager.default.fileExists(atPath: (bundled as NSString).appendingPathComponent("usage.csv.gz")))
    }
}
