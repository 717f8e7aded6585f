import ArgumentParser
import FetchLabCore
import FetchLabIngest
import FetchLabReport
import FetchLabSimulation
import FetchLabStore
import Foundation

/// `fetchlab demo`: the bundled sample imported, the policies compared, the table printed.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Import the bundled sample population and compare the fetch policies on it.",
        discussion: """
            Imports Datasets/sample (25 synthetic users × 42 days: launches, device context, content \
            updates) into a new database (a temporary one unless --db), replays the default policies \
            as `fetchlab compare` does and prints the ranked table, then where the database is, for \
            `fetchlab inspect`, `predict`, `evaluate-predictors` and `compare --format json`.
            """
    )

    @Option(help: "The database to import into (default: a new one in a temporary directory).")
    var db: String?

    @Option(help: "The sample to import (run from the top of the FetchLab repository, or name it).")
    var data = "Datasets/sample"

    @Option(help: "Output: table or json.")
    var format: CompareFormat = .table

    func run() throws {
        try Exit.reporting {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: data, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw CommandFailure(
                    "\(data): no sample directory here; run fetchlab demo from the top of the FetchLab repository "
                        + "or give --data DIR")
            }
            let path = try db ?? Self.temporaryDatabase()
            let files = try InputFiles.expand([data])
            let store = try FetchLabDatabase(path: path)
            let importer = Importer(database: store)
            var rows = 0
            for file in files {
                let summary = try importer.importFile(file)
                guard summary.status != .nothingAccepted else {
                    throw CommandFailure("\(file): nothing could be imported from the sample")
                }
                rows += summary.counts.rows
            }
            let histories = try HistoryLoader.histories(UsageQueries(database: store), limit: 0)
            let report = Simulator(evaluation: EvaluationProtocol()).compare(
                histories, policies: PolicyRegistry.standard(contentUpdates: histories.contains { !$0.contentUpdates.isEmpty }))
            switch format {
            case .json:
                print(Format.json(report))
            case .table, .text:
                print("imported \(Format.counted(rows, "row")) of \(data) into \(path)\n")
                print(CompareRenderer.text(report))
                print(
                    "\nThe database stays at \(path): try `fetchlab inspect --db \(path)`, "
                        + "`fetchlab compare --db \(path) --format json`.")
            }
        }
    }

    /// `fetchlab-demo.sqlite` in a new temporary directory.
    static func temporaryDatabase() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fetchlab-demo-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        } catch {
            throw CommandFailure("\(dir.path): cannot create a temporary directory: \(error.localizedDescription)")
        }
        return dir.appendingPathComponent("fetchlab-demo.sqlite").path
    }
}
