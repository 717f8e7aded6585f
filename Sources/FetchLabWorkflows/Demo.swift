import FetchLabCore
import FetchLabIngest
import FetchLabResults
import FetchLabSimulation
import FetchLabStore
import Foundation

/// `demo` without its options or output: a sample imported into a new database, the default
/// policies compared on it as `compare` does, the run stored, and what the HTML report shows
/// besides (the latest tuning run).
public enum Demo {
    /// What to import and how to compare.
    public struct Request: Sendable {
        /// The sample directory (its log files are imported).
        public var sample: String
        /// The database to import into (nil: `fetchlab-demo.sqlite` in a new temporary directory).
        public var database: String?
        /// Start the database afresh (its file and its journals removed first).
        public var fresh = false
        public var settings = ReplaySettings()
        /// The budgets, resamples and bootstrap seed of the comparison (see ``ComparisonRequest``).
        public var budgets: [Double]? = nil
        public var resamples = 1_000
        public var bootstrapSeed: UInt64 = 1
        /// Also read the latest tuning run (for the HTML report).
        public var tuning = true

        public init(sample: String, database: String?) {
            self.sample = sample
            self.database = database
        }
    }

    /// One step of the demo, in the order it happens.
    public enum Event: Sendable {
        /// The sample imported (its rows, and the database they went into).
        case imported(rows: Int, database: String)
        /// A warning of the comparison.
        case warning(String)
        /// The run stored (`run 1 stored in DB`): a note.
        case note(String)
        /// The run not stored: an error, and the command fails once its results are out.
        case error(String)
    }

    public struct Outcome: Sendable {
        public var database: String
        public var rows: Int
        public var report: ComparisonReport
        public var recording: Recording
        /// The latest tuning run in the database (nil: none, or not asked for).
        public var tuning: StoredTuningRun?
    }

    /// Imports, compares and stores; `importing` and `comparing` are told how far each part has
    /// got, `event` each step on the calling thread.
    public static func run(
        _ request: Request, importing: (any WorkProgress)? = nil, comparing: (any WorkProgress)? = nil,
        event: (Event) -> Void
    ) throws -> Outcome {
        if let db = request.database, request.fresh {
            for suffix in ["", "-wal", "-shm", "-journal"] { unlink(db + suffix) }
        }
        let path = try request.database ?? temporaryDatabase()
        let files = try InputFiles.expand([request.sample])
        let store = try FetchLabDatabase(path: path)
        let importer = Importer(database: store)
        importing?.begin(total: files.count)
        defer { importing?.end() }
        var rows = 0
        for file in files {
            let summary = try importer.importFile(file)
            guard summary.status != .nothingAccepted else {
                throw WorkflowError(.failed, "\(file): nothing could be imported from the sample")
            }
            rows += summary.counts.rows
            importing?.advance()
        }
        importing?.end()
        event(.imported(rows: rows, database: path))
        var comparison = ComparisonRequest(database: path, evaluation: EvaluationProtocol(), settings: request.settings)
        comparison.budgets = request.budgets
        comparison.resamples = request.resamples
        comparison.bootstrapSeed = request.bootstrapSeed
        let compared = try Comparison.run(comparison, progress: comparing)
        for warning in compared.warnings { event(.warning(warning)) }
        let recording = withoutActuallyEscaping(event) { event in
            RunRecorder.store(
                compared.report, command: "demo", in: store,
                messages: RunRecorder.Messages(note: { event(.note($0)) }, error: { event(.error($0)) }))
        }
        let tuning = request.tuning ? try storing { try RunStore(database: store).latestTuningRun() } : nil
        return Outcome(database: path, rows: rows, report: compared.report, recording: recording, tuning: tuning)
    }

    /// `fetchlab-demo.sqlite` in a new temporary directory.
    static func temporaryDatabase() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fetchlab-demo-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        } catch {
            throw WorkflowError(
                .io, "\(dir.path): cannot create a temporary directory: \(error.localizedDescription)")
        }
        return dir.appendingPathComponent("fetchlab-demo.sqlite").path
    }
}
