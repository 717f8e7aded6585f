import FetchLabIngest
import FetchLabStore
import Foundation
import Testing
import _FetchLabTestSupport

@testable import FetchLabWorkflows

/// The import workflow on real files and a real database: what `import` does without its options
/// or output.
@Suite struct ImportTests {
    let dir = TemporaryDirectory()

    enum Step: Equatable {
        case skipped, unreadable, imported(String, accepted: Int), failed(String)
    }

    @Test func eachFileIsImportedOrLostWholeAndTheStepsComeInOrder() throws {
        let good = try dir.write("good.csv", "timestamp,user,app\n2024-03-01T12:00:00Z,u,a\n2024-03-01T13:00:00Z,u,b\n")
        let empty = try dir.write("empty.csv", "timestamp,user,app\nnot-a-time,u,a\n")
        // A gzip stream cut after its header: the file fails whole.
        let bad = dir.path("bad.csv.gz")
        try Data([0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x4B, 0x4C]).write(to: URL(fileURLWithPath: bad))
        var files = InputFiles.Expansion()
        files.paths = [good, bad, empty]
        files.skipped = ["fifo: not a regular file"]
        files.problems = ["link: dangling symbolic link"]
        let store = try FetchLabDatabase(path: dir.path("i.sqlite"))
        var steps: [Step] = []
        let outcome = Import.run(files, into: store) { event in
            switch event {
            case .skipped: steps.append(.skipped)
            case .unreadable: steps.append(.unreadable)
            case .imported(let summary, _):
                steps.append(.imported(summary.path, accepted: summary.inserted.usageEvents))
            case .failed(let path, let error):
                #expect(error is IngestError, "\(error)")
                steps.append(.failed(path))
            }
        }
        #expect(
            steps == [
                .skipped, .unreadable, .imported(good, accepted: 2), .failed(bad), .imported(empty, accepted: 0),
            ])
        // Problems: the unreadable entry, the failed file, the file with nothing accepted.
        #expect(outcome.problems == 3 && outcome.failed)
        #expect(outcome.summaries.map { $0.path } == [good, empty])
        // Nothing of the failed file is stored: only the good file's launches.
        let stored = try UsageQueries(database: store).appUsage().map { "\($0.user) \($0.app) \($0.launches)" }.sorted()
        #expect(stored == ["u a 1", "u b 1"])
    }

    @Test func filesThatAllImportAreNoFailure() throws {
        let good = try dir.write("one.csv", "timestamp,user,app\n2024-03-01T12:00:00Z,u,a\n")
        var files = InputFiles.Expansion()
        files.paths = [good]
        let outcome = Import.run(files, into: try FetchLabDatabase(path: dir.path("j.sqlite"))) { _ in }
        #expect(!outcome.failed && outcome.summaries.count == 1)
    }
}
