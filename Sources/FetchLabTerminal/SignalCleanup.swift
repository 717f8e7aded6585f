import Foundation

/// Stopping a command (Ctrl-C, `kill`, a closed terminal) runs its cleanup (`generate`: the files
/// being written are removed) before the process ends by the signal: the output directory holds
/// the finished files or none.
public enum SignalCleanup {
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []

    /// Runs `cleanup` (on a queue of its own) when the process is stopped by a signal, before it ends by it.
    public static func install(cleanup: @escaping @Sendable () -> Void) {
        // A queue of its own: it gets a thread even when every core is busy simulating users.
        let queue = DispatchQueue(label: "fetchlab.signals")
        for sig in [SIGINT, SIGTERM, SIGHUP] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: queue)
            source.setEventHandler {
                cleanup()
                if isatty(2) == 1 { Terminal.clearProgress() }
                // End by the signal, as if not caught: sent to the process (this dispatch thread blocks
                // signals), and should it not be delivered, the shell's code for it.
                signal(sig, SIG_DFL)
                kill(getpid(), sig)
                usleep(200_000)
                _exit(128 + sig)
            }
            source.resume()
            sources.append(source)
        }
    }
}
