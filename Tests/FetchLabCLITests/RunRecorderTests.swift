import FetchLabSimulation
import FetchLabStore
import Testing
import _FetchLabTestSupport

@testable import fetchlab

/// A run that cannot be stored is a warning: the results are still printed, without a run id.
@Suite struct RunRecorderTests {
    @Test func aReadOnlyDatabaseGivesNoRunID() throws {
        let dir = TemporaryDirectory()
        let path = dir.path("ro.sqlite")
        _ = try FetchLabDatabase(path: path)
        let report = ComparisonReport(
            settings: ComparisonSettings(
                tauMinutes: 15, tausMinutes: [15], launchRefreshes: true, warmUpDays: 7, minLaunches: 20,
                platform: "none", users: 1, pairs: 1, scoredLaunches: 1),
            policies: [])
        #expect(
            RunRecorder.store(report, command: "compare", in: try FetchLabDatabase(path: path, readOnly: true)) == nil)
        #expect(RunRecorder.store(report, command: "compare", in: try FetchLabDatabase(path: path)) == 1)
    }
}
