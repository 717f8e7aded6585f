import FetchLabSimulation
import FetchLabStore

/// Keeps every comparison (`compare`, `demo`) and every tuning (`tune`) in the database it read.
enum RunRecorder {
    /// Stores `report` as a run of `command` and says so on stderr (`run 3 stored in DB`). A
    /// database that cannot be written (a read-only file) is a warning: the results are still
    /// printed, without a run id.
    ///
    /// - Returns: the run's id, nil when it could not be stored.
    static func store(_ report: ComparisonReport, command: String, in database: FetchLabDatabase) -> Int64? {
        record("run", in: database) {
            try $0.saveRun(report, command: command, fetchlabVersion: FetchLabCommand.configuration.version)
        }
    }

    /// Opens `path` for writing and stores the run there (see ``store(_:command:in:)``).
    static func store(_ report: ComparisonReport, command: String, path: String) -> Int64? {
        open(path, for: "run").flatMap { store(report, command: command, in: $0) }
    }

    /// Stores a tuning result and its platform settings as a tuning run in `path` and says so on
    /// stderr (`tuning run 2 stored in DB`); a database that cannot be written is a warning.
    static func store(_ result: TuningResult, platform: [PlatformOutcome], path: String) -> Int64? {
        open(path, for: "tuning run").flatMap { database in
            record("tuning run", in: database) {
                try $0.saveTuningRun(result, platform: platform, fetchlabVersion: FetchLabCommand.configuration.version)
            }
        }
    }

    /// Runs `save` on `database`, saying `<what> N stored in DB` or warning `<what> not stored: …`.
    private static func record(
        _ what: String, in database: FetchLabDatabase, _ save: (RunStore) throws -> Int64
    ) -> Int64? {
        do {
            let id = try save(RunStore(database: database))
            Terminal.note("\(what) \(id) stored in \(database.path)")
            return id
        } catch {
            Terminal.warning("\(what) not stored: \(Terminal.oneLine("\(error)"))")
            return nil
        }
    }

    /// `path` opened for writing; nil with a warning when it cannot be.
    private static func open(_ path: String, for what: String) -> FetchLabDatabase? {
        do {
            return try FetchLabDatabase(path: path)
        } catch {
            Terminal.warning("\(what) not stored: \(Terminal.oneLine(error.description))")
            return nil
        }
    }
}
