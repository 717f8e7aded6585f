import ArgumentParser
import FetchLabTerminal
import FetchLabWorkflows

/// Whether a command stores its run (`--no-store`: the database is only read).
struct StoreOptions: ParsableArguments {
    @Flag(help: "Do not store the run in the database (it is then only read).")
    var noStore = false
}

extension RunRecorder.Messages {
    /// The recorder's notes and errors on stderr.
    static var terminal: Self { Self(note: { Terminal.note($0) }, error: { Terminal.error($0) }) }
}

extension Recording {
    /// After the results are printed: a run that could not be stored fails the command (exit 1;
    /// its error is already printed).
    func requireStored() throws {
        if failure != nil { throw ExitCode(Exit.failure) }
    }
}
