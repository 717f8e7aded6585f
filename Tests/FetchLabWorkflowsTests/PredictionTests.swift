import FetchLabCore
import FetchLabPredict
import FetchLabStore
import Testing
import _FetchLabTestSupport

@testable import FetchLabWorkflows

/// `predict` for one user, without its options or output.
@Suite struct PredictionTests {
    let dir = TemporaryDirectory()

    func batches() throws -> HistoryBatches {
        let path = dir.path("p.sqlite")
        let db = try FetchLabDatabase(path: path)
        _ = try Importer(database: db).importFile(try dir.write("u.csv", syntheticLaunchesCSV(users: 3, seed: 9)))
        return try HistoryBatches(path: path)
    }

    @Test func aUsersPlanCarriesAnOutlookForEveryFetch() throws {
        let outcome = try Prediction.run(user: "u1", at: nil, request: PredictionRequest(), batches: try batches())
        #expect(outcome.report.user == "u1")
        #expect(!outcome.report.apps.isEmpty)
        let fetches = outcome.report.apps.flatMap(\.fetches)
        #expect(!fetches.isEmpty)
        #expect(fetches.allSatisfy { $0.outlook != nil })
        #expect(outcome.warning == nil)  // predicted right after the last launch
    }

    @Test func anUnknownUserNamesTheClosest() throws {
        #expect {
            try Prediction.run(user: "u7", at: nil, request: PredictionRequest(), batches: try batches())
        } throws: { error in
            (error as? WorkflowError)?.code == .noData && "\(error)".contains("u1")
        }
    }
}
