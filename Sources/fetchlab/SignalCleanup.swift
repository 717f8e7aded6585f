import FetchLabDatasets
import Foundation

/// Stopping `generate` (Ctrl-C, `kill`, a closed terminal) removes the files being written
/// before the process ends by the signal: the output directory holds the finished files or none.
enum SignalCleanup {
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []

    static func install() {
        // A queue of its own: it gets a thread even when every core is busy simulating users.
        let queue = DispatchQueue(label: "fetchlab.signals")
        for sig in [SIGINT, SIGTERM, SIGHUP] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: queue)
            source.setEventHandler {
                PartialFiles.shared.removeAllNow()
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
