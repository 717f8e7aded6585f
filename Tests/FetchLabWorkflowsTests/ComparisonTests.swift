import FetchLabCore
import FetchLabResults
import FetchLabSimulation
import FetchLabStore
import Foundation
import Synchronization
import Testing
import _FetchLabTestSupport

@testable import FetchLabWorkflows

/// The comparison workflow on a real database: what `compare` does without its options or output.
@Suite struct ComparisonTests {
    let dir = TemporaryDirectory()
    static let policies = "never,fixed(1h),predictive(15m,0.3),oracle"

    /// Five users, 12 days, imported into a new database; its path.
    func database() throws -> String {
        let path = dir.path("w.sqlite")
        let db = try FetchLabDatabase(path: path)
        _ = try Importer(database: db).importFile(try dir.write("u.csv", syntheticLaunchesCSV(users: 5, seed: 3)))
        return path
    }

    func request(_ path: String) throws -> ComparisonRequest {
        var request = ComparisonRequest(database: path, evaluation: EvaluationProtocol(), settings: ReplaySettings())
        request.policies = try PolicyRegistry.parseList(Self.policies)
        return request
    }

    final class Counter: WorkProgress {
        let state = Mutex((total: 0, done: 0, ended: false))
        func begin(total: Int) { state.withLock { $0.total = total } }
        func advance() { state.withLock { $0.done += 1 } }
        func end() { state.withLock { $0.ended = true } }
    }

    @Test func batchesGiveTheReportOfAllUsersAtOnce() throws {
        let path = try database()
        var request = try request(path)
        let counter = Counter()
        let small = try Comparison.run(request, progress: counter)
        // The simulator over every history in one batch.
        let histories = try HistoryBatches(path: path).sample(limit: 0)
        #expect(histories.count == 5)
        var run = Simulator().comparison(policies: try PolicyRegistry.parseList(Self.policies))
        run.add(histories)
        let direct = run.report()
        #expect(small.report.policies.map(\.metrics) == direct.policies.map(\.metrics))
        #expect(small.report.settings.users == 5)
        #expect(counter.state.withLock { $0 } == (total: 5, done: 5, ended: true))
        // A timeline for the representative user.
        #expect(small.report.timeline != nil)
        // Two users spread over the list; named users in the order given.
        request.users = .spread(2)
        #expect(try Comparison.run(request).report.settings.users == 2)
        request.users = .named(["u3", "u1"])
        let named = try Comparison.run(request)
        #expect(named.report.settings.users == 2)
        request.perUser = true
        let spooled = try Comparison.run(request)
        var users: [String] = []
        try #require(spooled.perUser).forEach(policy: 0) { users.append($0.name) }
        #expect(users == ["u3", "u1"])
    }

    @Test func failuresSayWhatIsWrong() throws {
        let path = try database()
        var request = try request(path)
        request.users = .named(["nobody"])
        #expect {
            try Comparison.run(request)
        } throws: { ($0 as? WorkflowError)?.code == .noData && "\($0)".contains("no user 'nobody'") }
        request.users = .all
        request.settings.cost.perApp = ["com.nowhere": AppFetchCost(duration: .seconds(5), bytes: 1_000)]
        #expect {
            try Comparison.run(request)
        } throws: { ($0 as? WorkflowError)?.code == .usage && "\($0)".contains("--app-cost com.nowhere") }
        request.settings.cost.perApp = [:]
        request.traceUser = "ghost"
        #expect {
            try Comparison.run(request)
        } throws: { ($0 as? WorkflowError)?.code == .noData && "\($0)".contains("--trace-user") }
        #expect {
            _ = try HistoryBatches(path: dir.path("missing.sqlite"))
        } throws: { ($0 as? WorkflowError)?.code == .store }
    }

    @Test func historyBatchesReadEveryUserInOrderABatchAtATime() throws {
        let path = try database()
        var batches = try HistoryBatches(path: path)
        batches.batchSize = 2
        var seen: [[String]] = []
        var progress: [Int] = []
        let names = ["u4", "u0", "nobody", "u2", "u1", "u3"].map { UserID($0) }
        try batches.forEach(names, progress: { done, total in progress.append(done * 10 + total) }) { batch in
            seen.append(batch.map(\.user.name))
        }
        // A user without launches is left out of its batch.
        #expect(seen == [["u4", "u0"], ["u2"], ["u1", "u3"]])
        #expect(progress == [26, 46, 66])
        var mapped: [String] = []
        try batches.map(names, work: { $0.launches.count }) { h, count in
            #expect(count == h.launches.count)
            mapped.append(h.user.name)
        }
        #expect(mapped == ["u4", "u0", "u2", "u1", "u3"])
    }
}

/// `tune` without its options or output.
@Suite struct TuningWorkflowTests {
    let dir = TemporaryDirectory()

    @Test func aTuningRunChoosesMeasuresAndChecksThePlatforms() throws {
        let path = dir.path("t.sqlite")
        let db = try FetchLabDatabase(path: path)
        _ = try Importer(database: db).importFile(
            try dir.write("u.csv", syntheticLaunchesCSV(users: 4, days: 20, seed: 5)))
        let space = try SearchSpace.parse(family: "fixed", grid: "interval=30m,2h")
        let tuner = Tuner(
            simulator: Simulator(), space: space, objective: Objective(metric: .fresh(.minutes(15)), maximize: true),
            constraints: [])
        let outcome = try Tuning.run(tuner, database: path)
        #expect(["fixed(30m)", "fixed(2h)"].contains(outcome.result.folds.last?.chosen ?? ""))
        #expect(Set(outcome.platform.map(\.setting.platform)) == [.ios, .android])
        // Constraints nothing can meet, even widened: a failure in one line naming the database.
        var strict = tuner
        strict.constraints = try TuningConstraint.parseList("fetches<=0.0001")
        #expect {
            try Tuning.run(strict, database: path)
        } throws: { ($0 as? WorkflowError)?.code == .failed && "\($0)".hasPrefix(path) }
    }
}
