import FetchLabSimulation
import FetchLabStore

/// Keeps every comparison in the database it read (`compare`, `demo`).
enum RunRecorder {
    /// Stores `report` as a run of `command` and says so on stderr (`run 3 stored in DB`). A
    /// database that cannot be written (a read-only file) is a warning: the results are still
    /// printed, without a run id.
    ///
    /// - Returns: the run's id, nil when it could not be stored.
    static func store(_ report: ComparisonReport, command: String, in database: FetchLabDatabase) -> Int64? {
        do {
            let id = try RunStore(database: database).saveRun(
                report, command: command, fetchlabVersion: FetchLabCommand.configuration.version)
            Terminal.note("run \(id) stored in \(database.path)")
            return id
        } catch {
            Terminal.warning("run not stored: \(Terminal.oneLine(error.description))")
            return nil
        }
    }

    /// Opens `path` for writing and stores the run there (see ``store(_:command:in:)``).
    static func store(_ report: ComparisonReport, command: String, path: String) -> Int64? {
        do {
            return store(report, command: command, in: try FetchLabDatabase(path: path))
        } catch {
            Terminal.warning("run not stored: \(Terminal.oneLine(error.description))")
            return nil
        }
    }
}
