import FetchLabCore
import FetchLabPredict
import FetchLabResults
import FetchLabSimulation
import FetchLabStore
import Foundation
import Testing
import _FetchLabTestSupport

@testable import FetchLabWorkflows

/// The workflows of `demo`, `describe`, `evaluate-predictors` and `predict` without `--user`, and
/// the run recorder, on a real database: what the commands do without their options or output.
@Suite struct CommandWorkflowTests {
    let dir = TemporaryDirectory()

    /// `users` users, 12 days, imported into a new database.
    func batches(users: Int = 3) throws -> HistoryBatches {
        let path = dir.path("c.sqlite")
        let db = try FetchLabDatabase(path: path)
        _ = try Importer(database: db).importFile(try dir.write("u.csv", syntheticLaunchesCSV(users: users, seed: 9)))
        return try HistoryBatches(path: path)
    }

    @Test func everyUserGetsAPlanInOrder() throws {
        var users: [String] = []
        var done = 0
        let summary = try Prediction.runAll(
            request: PredictionRequest(), batches: try batches(), progress: { n, _ in done = n }
        ) { users.append($0.user) }
        #expect(users == ["u0", "u1", "u2"])
        #expect(done == 3)
        #expect(summary.users == 3 && summary.fittedOn == 3)
        #expect(summary.launches > 0 && summary.apps > 0 && summary.fetches > 0)
        #expect(summary.unpredicted.isEmpty && summary.warning == nil)
        #expect(summary.totalSeconds >= summary.fitSeconds)
    }

    @Test func anEmptyDatabaseHasNothingToPredictDescribeOrEvaluate() throws {
        let path = dir.path("empty.sqlite")
        _ = try FetchLabDatabase(path: path)
        let empty = try HistoryBatches(path: path)
        let noData = { (error: any Error) in (error as? WorkflowError)?.code == .noData && "\(error)".hasPrefix(path) }
        #expect(
            performing: { try Prediction.runAll(request: PredictionRequest(), batches: empty) { _ in } }, throws: noData
        )
        #expect(performing: { try Description.run(users: [], perUser: false, batches: empty) }, throws: noData)
        #expect(
            performing: { try PredictorEvaluation.run(EvaluationOptions(), users: 0, truth: nil, batches: empty) },
            throws: noData)
    }

    @Test func aDescriptionPoolsTheUsersNamedOnce() throws {
        let batches = try batches()
        let everyone = try Description.run(users: [], perUser: true, batches: batches)
        #expect(everyone.perUser.map(\.user) == ["u0", "u1", "u2"])
        #expect(everyone.signals != nil)
        let one = try Description.run(users: ["u2", "u2"], perUser: true, batches: batches)
        #expect(one.perUser.map(\.user) == ["u2"])
        #expect(one.population == everyone.perUser[2].statistics)
        #expect {
            try Description.run(users: ["u9"], perUser: false, batches: batches)
        } throws: { error in
            (error as? WorkflowError)?.code == .noData && "\(error)".contains("u9")
        }
    }

    @Test func anEvaluationScoresTheSampleOrSaysTheLogIsTooShort() throws {
        let batches = try batches()
        var evaluated: [Int] = []
        let report = try PredictorEvaluation.run(
            EvaluationOptions(), users: 2, truth: nil, batches: batches, willEvaluate: { evaluated.append($0) })
        #expect(evaluated == [2])
        #expect(!report.scoredNothing)
        #expect(report.learnedModel != nil)
        var long = EvaluationOptions()
        long.warmUpDays = 30
        #expect {
            try PredictorEvaluation.run(long, users: 0, truth: nil, batches: batches)
        } throws: { error in
            (error as? WorkflowError)?.code == .noData && "\(error)".contains("--warm-up")
        }
    }

    @Test func theDemoImportsComparesAndStoresItsRun() throws {
        let sample = dir.path("sample")
        try FileManager.default.createDirectory(atPath: sample, withIntermediateDirectories: true)
        try syntheticLaunchesCSV(users: 4, seed: 5).write(
            toFile: sample + "/usage.csv", atomically: true, encoding: .utf8)
        var request = Demo.Request(sample: sample, database: dir.path("demo.sqlite"))
        request.resamples = 0
        var events: [String] = []
        let outcome = try Demo.run(request) { event in
            switch event {
            case .imported(let rows, let database): events.append("imported \(rows) into \(database)")
            case .warning(let text): events.append("warning: " + text)
            case .note(let text): events.append("note: " + text)
            case .error(let text): events.append("error: " + text)
            }
        }
        #expect(outcome.database == dir.path("demo.sqlite"))
        #expect(outcome.rows > 0)
        #expect(events.first == "imported \(outcome.rows) into \(outcome.database)")
        #expect(events.last == "note: run 1 stored in \(outcome.database)")
        #expect(outcome.recording.id == 1 && outcome.recording.failure == nil)
        #expect(outcome.report.settings.users == 4)
        #expect(outcome.tuning == nil)
        #expect(try RunStore(database: try FetchLabDatabase(path: outcome.database)).loadRun(1).settings.users == 4)
        // Afresh: the same database, one run again.
        request.fresh = true
        let again = try Demo.run(request) { _ in }
        #expect(again.recording.id == 1)
        // Without a database: a new one in a temporary directory each time.
        request.database = nil
        request.tuning = false
        let temporary = try Demo.run(request) { _ in }
        #expect(temporary.database.hasSuffix("/fetchlab-demo.sqlite") && temporary.database != outcome.database)
        try? FileManager.default.removeItem(atPath: (temporary.database as NSString).deletingLastPathComponent)
    }

    @Test func aSampleWithNothingToImportFailsTheDemo() throws {
        let sample = dir.path("bad")
        try FileManager.default.createDirectory(atPath: sample, withIntermediateDirectories: true)
        try "timestamp,user,app\nnot-a-time,u1,a\n".write(
            toFile: sample + "/usage.csv", atomically: true, encoding: .utf8)
        #expect {
            try Demo.run(Demo.Request(sample: sample, database: dir.path("bad.sqlite"))) { _ in }
        } throws: { error in
            "\(error)".contains("nothing could be imported from the sample")
        }
    }
}
