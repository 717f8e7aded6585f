import FetchLabResults
import FetchLabSimulation
import FetchLabStore
import FetchLabWorkflows
import Testing
import _FetchLabTestSupport

@testable import fetchlab

/// A run that cannot be stored has no run id and says why (the command prints its results, then
/// exits 1).
@Suite struct RunRecorderTests {
    @Test func aReadOnlyDatabaseGivesNoRunID() throws {
        let dir = TemporaryDirectory()
        let path = dir.path("ro.sqlite")
        _ = try FetchLabDatabase(path: path)
        let report = ComparisonReport(
            settings: ComparisonSettings(
                tau: .minutes(15), taus: [.minutes(15)], launchRefreshes: true, warmUpDays: 7, minLaunches: 20,
                platform: .none, users: 1, pairs: 1, scoredLaunches: 1),
            policies: [])
        // The messages go to a list, not into the test output.
        var said: [String] = []
        let messages = RunRecorder.Messages(
            note: { said.append("note: " + $0) }, error: { said.append("error: " + $0) })
        let failed = RunRecorder.store(
            report, command: "compare", in: try FetchLabDatabase(path: path, readOnly: true), messages: messages)
        #expect(failed.id == nil)
        #expect(failed.failure?.hasPrefix("run not stored: ") == true)
        #expect(throws: (any Error).self) { try failed.requireStored() }
        #expect(said.count == 1 && said[0].hasPrefix("error: run not stored: ") && said[0].contains("ro.sqlite"))
        // Stored by path (as the commands do): the database opened for writing.
        let stored = RunRecorder.store(report, command: "compare", path: path, messages: messages)
        #expect(said.last == "note: run 1 stored in \(path)")
        #expect(stored.id == 1 && stored.failure == nil)
        try stored.requireStored()
        #expect(throws: Never.self) { try Recording.skipped.requireStored() }
    }
}
