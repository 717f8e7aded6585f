import FetchLabResults
import Foundation
import GRDB

/// A tuning run read back: the result as `tune` computed it and its platform settings.
public struct StoredTuningRun: Sendable, Hashable {
    public var id: Int64
    public var result: TuningResult
    public var platform: [PlatformOutcome]

    public init(id: Int64, result: TuningResult, platform: [PlatformOutcome]) {
        self.id = id
        self.result = result
        self.platform = platform
    }
}

/// Tuning runs (tables of schema v5, see `TuneSchema`): each run's options, choice and held-out
/// figures, every setting tried with its training figures, and the whole result as JSON.
extension RunStore {
    /// Stores a tuning result as a new tuning run, all of it in one transaction: a failure leaves
    /// the database as it was.
    ///
    /// - Parameters:
    ///   - result: the tuning result.
    ///   - platform: the platform settings `tune` printed with the result.
    ///   - fetchlabVersion: the version of the program that ran it.
    ///   - createdAt: when it ran.
    /// - Returns: the tuning run's id (1, 2, … never reused; numbered apart from comparison runs).
    /// - Throws: ``StoreError`` when the result cannot be encoded (a figure that is not a finite
    ///   number) or the database cannot be written.
    @discardableResult
    public func saveTuningRun(
        _ result: TuningResult, platform: [PlatformOutcome] = [], fetchlabVersion: String? = nil,
        createdAt: Date = Date()
    ) throws(StoreError) -> Int64 {
        try storing("the tuning run") {
            try TuneRow(result, platform: platform, fetchlabVersion: fetchlabVersion, createdAt: createdAt)
        } insert: { row, db in
            try row.insert(db)
        }
    }

    /// The stored tuning runs, oldest first.
    public func tuningRuns() throws(StoreError) -> [TuningRunSummary] {
        try reading { db in
            // A database of an earlier schema read where it cannot be migrated: none yet.
            guard try db.tableExists("tune_run") else { return [] }
            return try Row.fetchAll(
                db,
                sql: """
                    SELECT id, created_at, fetchlab_version, family, method, objective, settings, chosen, best_fixed
                    FROM tune_runs ORDER BY id
                    """
            ).map { row in
                TuningRunSummary(
                    id: row[0], createdAt: row[1], fetchlabVersion: row[2], family: row[3], method: row[4],
                    objective: row[5], settings: row[6], chosen: row[7], bestFixed: row[8])
            }
        }
    }

    /// Tuning run `id` as it was stored. Fields the stored JSON lacks that are optional (written
    /// by an earlier build) decode as absent; fields it has that this build does not know are
    /// ignored.
    ///
    /// - Throws: ``StoreError`` `notFound` when there is no such tuning run.
    public func loadTuningRun(_ id: Int64) throws(StoreError) -> StoredTuningRun {
        let found: Row? = try reading { db in
            guard try db.tableExists("tune_run") else { return nil }
            return try Row.fetchOne(
                db, sql: "SELECT result_json, platform_json FROM tune_run WHERE id = ?", arguments: [id])
        }
        guard let found else {
            throw StoreError(
                .notFound, "\(database.path): no tuning run \(id) (fetchlab runs lists the stored runs)")
        }
        do {
            let decoder = JSONDecoder()
            return StoredTuningRun(
                id: id, result: try decoder.decode(TuningResult.self, from: Data((found[0] as String).utf8)),
                platform: try decoder.decode([PlatformOutcome].self, from: Data((found[1] as String).utf8)))
        } catch {
            throw StoreError(
                .database,
                "\(database.path): tuning run \(id): its stored result cannot be read: \(Self.describe(error))")
        }
    }

    /// The latest tuning run, nil when there is none.
    public func latestTuningRun() throws(StoreError) -> StoredTuningRun? {
        guard let id = try tuningRuns().last?.id else { return nil }
        return try loadTuningRun(id)
    }
}
