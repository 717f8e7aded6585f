import FetchLabResults
import FetchLabStore

/// `runs` and `report` without their options or output: the comparison and tuning runs a
/// database keeps, read back (the database opened read-only, except to delete).
public enum StoredRuns {
    /// Every stored run, oldest first: comparisons, then tuning runs.
    public struct Listing: Sendable {
        public var runs: [RunSummary]
        public var tuningRuns: [TuningRunSummary]
    }

    public static func list(database path: String) throws -> Listing {
        let store = try open(path)
        return Listing(runs: try store.runs(), tuningRuns: try store.tuningRuns())
    }

    /// Comparison run `id` as it was stored (a `StoreError` `.notFound` when there is none).
    public static func run(_ id: Int64, database path: String) throws -> ComparisonReport {
        try open(path).loadRun(id)
    }

    /// Tuning run `id` as it was stored.
    public static func tuningRun(_ id: Int64, database path: String) throws -> StoredTuningRun {
        try open(path).loadTuningRun(id)
    }

    /// Deletes the runs `ids`, all or none (one that names no run: nothing is deleted); the ids deleted.
    public static func delete(_ ids: [Int64], database path: String) throws -> [Int64] {
        try RunStore(database: try FetchLabDatabase(path: path)).deleteRuns(ids)
    }

    /// Runs `a` and `b` policy by policy. Runs whose τ or protocol differ are refused (a
    /// ``WorkflowError`` `.failed` naming the settings) unless `force`; the diff then names them
    /// (`RunDiff.differingSettings`) for a warning.
    public static func diff(_ a: Int64, _ b: Int64, database path: String, force: Bool) throws -> RunDiff {
        let store = try open(path)
        let diff = RunDiff(try store.loadRun(a), id: a, try store.loadRun(b), id: b)
        if !diff.differingSettings.isEmpty && !force {
            throw WorkflowError(
                .failed,
                "runs \(a) and \(b) differ in \(diff.differingSettings.joined(separator: ", ")): their figures do "
                    + "not compare; pass --force to diff them anyway")
        }
        return diff
    }

    /// What `report` renders: run `id` (nil: the latest) and the latest tuning run, if any.
    public struct ReportInputs: Sendable {
        public var id: Int64
        public var report: ComparisonReport
        public var tuning: StoredTuningRun?
        /// The three, for a destructuring `let`.
        public var parts: (Int64, ComparisonReport, StoredTuningRun?) { (id, report, tuning) }
    }

    /// Run `id` (nil: the latest; a ``WorkflowError`` `.noData` when the database holds none) and
    /// the latest tuning run.
    public static func reportInputs(run id: Int64?, database path: String) throws -> ReportInputs {
        let store = try open(path)
        guard let id = try id ?? store.runs().last?.id else {
            throw WorkflowError(.noData, "\(path): no stored run (run fetchlab compare first)")
        }
        return ReportInputs(id: id, report: try store.loadRun(id), tuning: try store.latestTuningRun())
    }

    static func open(_ path: String) throws -> RunStore {
        RunStore(database: try FetchLabDatabase(path: path, readOnly: true))
    }
}
