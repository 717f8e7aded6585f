import FetchLabResults
import FetchLabStore

/// What became of a run: stored with an id, not stored (the one-line reason, already told as an
/// error), or not asked for (`--no-store`).
public struct Recording: Sendable {
    public var id: Int64?
    public var failure: String?

    public init(id: Int64?, failure: String?) {
        self.id = id
        self.failure = failure
    }

    public static let skipped = Recording(id: nil, failure: nil)
}

/// Keeps every comparison (`compare`, `demo`, `merge`) and every tuning (`tune`) in the database it
/// read. Storing is part of the command: a run that cannot be stored (a read-only file, a full
/// disk) is an error, told before the results, and the command fails after printing them.
public enum RunRecorder {
    /// The version stored with each run (and printed by `fetchlab --version`).
    public static let fetchlabVersion = "0.1.0"

    /// Where the recorder's one-line messages go: stderr, or (in tests) a list.
    public struct Messages {
        public var note: (String) -> Void
        public var error: (String) -> Void

        public init(note: @escaping (String) -> Void, error: @escaping (String) -> Void) {
            self.note = note
            self.error = error
        }
    }

    /// Stores `report` as a run of `command` and says so (`run 3 stored in DB`).
    /// `perUser`: the per-user rows, when the comparison spooled them.
    public static func store(
        _ report: ComparisonReport, command: String, in database: FetchLabDatabase, perUser: (any PerUserRows)? = nil,
        messages: Messages
    ) -> Recording {
        record("run", in: database, messages) {
            try $0.saveRun(report, command: command, fetchlabVersion: fetchlabVersion, perUser: perUser)
        }
    }

    /// Opens `path` for writing and stores the run there (see `store(_:command:in:perUser:messages:)`).
    public static func store(
        _ report: ComparisonReport, command: String, path: String, perUser: (any PerUserRows)? = nil, messages: Messages
    ) -> Recording {
        opened(path, for: "run", messages) {
            store(report, command: command, in: $0, perUser: perUser, messages: messages)
        }
    }

    /// Stores a tuning result and its platform settings as a tuning run in `path` and says so
    /// (`tuning run 2 stored in DB`).
    public static func store(
        _ result: TuningResult, platform: [PlatformOutcome], path: String, messages: Messages
    ) -> Recording {
        opened(path, for: "tuning run", messages) { database in
            record("tuning run", in: database, messages) {
                try $0.saveTuningRun(result, platform: platform, fetchlabVersion: fetchlabVersion)
            }
        }
    }

    /// Runs `save` on `database` and writes the log into the file, saying `<what> N stored in DB`,
    /// or the error `<what> not stored: …`.
    private static func record(
        _ what: String, in database: FetchLabDatabase, _ messages: Messages, _ save: (RunStore) throws -> Int64
    ) -> Recording {
        do {
            let id = try save(RunStore(database: database))
            // A copy of the file alone holds the run (best effort: the run is stored either way).
            try? database.checkpoint()
            messages.note("\(what) \(id) stored in \(database.path)")
            return Recording(id: id, failure: nil)
        } catch {
            return failed(what, WorkflowError.oneLine("\(error)"), messages)
        }
    }

    private static func failed(_ what: String, _ reason: String, _ messages: Messages) -> Recording {
        let message = "\(what) not stored: \(reason) (--no-store runs without storing)"
        messages.error(message)
        return Recording(id: nil, failure: message)
    }

    /// `body` on `path` opened for writing, or the failure to open it (told).
    private static func opened(
        _ path: String, for what: String, _ messages: Messages, _ body: (FetchLabDatabase) -> Recording
    ) -> Recording {
        do {
            return body(try FetchLabDatabase(path: path))
        } catch {
            return failed(what, WorkflowError.oneLine(error.description), messages)
        }
    }
}
