import ArgumentParser
import FetchLabResults
import FetchLabSimulation
import FetchLabStore

/// Whether a command stores its run (`--no-store`: the database is only read).
struct StoreOptions: ParsableArguments {
    @Flag(help: "Do not store the run in the database (it is then only read).")
    var noStore = false
}

/// What became of a run: stored with an id, not stored (the one-line reason, already printed as an
/// error), or not asked for (`--no-store`).
struct Recording {
    var id: Int64?
    var failure: String?

    static let skipped = Recording(id: nil, failure: nil)

    /// After the results are printed: a run that could not be stored fails the command (exit 1).
    func requireStored() throws {
        if failure != nil { throw ExitCode(Exit.failure) }
    }
}

/// Keeps every comparison (`compare`, `demo`) and every tuning (`tune`) in the database it read.
/// Storing is part of the command: a run that cannot be stored (a read-only file, a full disk) is
/// an error, printed before the results, and the command exits 1 after printing them.
enum RunRecorder {
    /// Where the recorder's one-line messages go: stderr, or (in tests) a list.
    struct Messages {
        var note: (String) -> Void = Terminal.note
        var error: (String) -> Void = Terminal.error
        static var terminal: Messages { Messages() }
    }

    /// Stores `report` as a run of `command` and says so on stderr (`run 3 stored in DB`).
    /// `perUser`: the per-user rows, when the comparison spooled them.
    static func store(
        _ report: ComparisonReport, command: String, in database: FetchLabDatabase, perUser: PerUserSpool? = nil,
        messages: Messages = .terminal
    ) -> Recording {
        record("run", in: database, messages) {
            try $0.saveRun(
                report, command: command, fetchlabVersion: FetchLabCommand.configuration.version, perUser: perUser)
        }
    }

    /// Opens `path` for writing and stores the run there (see ``store(_:command:in:perUser:)``).
    static func store(
        _ report: ComparisonReport, command: String, path: String, perUser: PerUserSpool? = nil
    ) -> Recording {
        opened(path, for: "run") { store(report, command: command, in: $0, perUser: perUser) }
    }

    /// Stores a tuning result and its platform settings as a tuning run in `path` and says so on
    /// stderr (`tuning run 2 stored in DB`).
    static func store(_ result: TuningResult, platform: [PlatformOutcome], path: String) -> Recording {
        opened(path, for: "tuning run") { database in
            record("tuning run", in: database, .terminal) {
                try $0.saveTuningRun(result, platform: platform, fetchlabVersion: FetchLabCommand.configuration.version)
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
            return failed(what, Terminal.oneLine("\(error)"), messages)
        }
    }

    private static func failed(_ what: String, _ reason: String, _ messages: Messages = .terminal) -> Recording {
        let message = "\(what) not stored: \(reason) (--no-store runs without storing)"
        messages.error(message)
        return Recording(id: nil, failure: message)
    }

    /// `body` on `path` opened for writing, or the failure to open it (printed).
    private static func opened(_ path: String, for what: String, _ body: (FetchLabDatabase) -> Recording) -> Recording {
        do {
            return body(try FetchLabDatabase(path: path))
        } catch {
            return failed(what, Terminal.oneLine(error.description))
        }
    }
}
