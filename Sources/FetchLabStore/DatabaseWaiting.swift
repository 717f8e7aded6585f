import FetchLabCore
import Foundation
import GRDB
import Synchronization

/// How FetchLab waits for another process's lock on the database: SQLite's busy handler, with
/// the same back-off as `sqlite3_busy_timeout` (1 ms growing to 100 ms between tries), that also
/// tells an observer that it is waiting (for a progress line) and adds up the time spent waiting
/// (so that a summary can tell waiting from working).
public final class DatabaseWaiting: Sendable {
    /// The longest wait for one lock, in seconds.
    public let timeout: Double
    private let observer: (@Sendable (_ waited: Double) -> Void)?
    private let total = Mutex<Double>(0)

    /// The longest `--busy-timeout` FetchLab accepts: one day.
    public static let maximumTimeout = Double(Seconds.perDay)

    /// - Parameters:
    ///   - timeout: how long to wait for another process's lock, in seconds.
    ///   - observer: called while waiting (at the first try, then at every try, at most
    ///   every 100 ms) with the seconds waited so far for this lock.
    public init(timeout: Double, observer: (@Sendable (_ waited: Double) -> Void)? = nil) {
        self.timeout = timeout
        self.observer = observer
    }

    /// Seconds spent waiting for locks so far (all waits of this database's connections).
    public var totalSeconds: Double { total.withLock { $0 } }

    /// The pause before each try after the first, as SQLite's own busy timeout does it.
    static let delays: [Duration] = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100].map { .milliseconds($0) }

    /// Seconds slept before try number `tries` (0-based) of one wait.
    static func slept(before tries: Int) -> Double {
        let early = delays.prefix(tries).reduce(Duration.zero, +)
        let late = delays.last! * max(0, tries - delays.count)
        return (early + late) / .seconds(1)
    }

    /// The busy handler: sleeps and returns true (try again) until the timeout is spent.
    func retry(tries: Int) -> Bool {
        let slept = Self.slept(before: tries)
        guard slept < timeout else { return false }
        observer?(slept)
        let delay = min(
            (tries < Self.delays.count ? Self.delays[tries] : Self.delays.last!) / .seconds(1), timeout - slept)
        Thread.sleep(forTimeInterval: delay)
        total.withLock { $0 += delay }
        return true
    }

    /// Counts a wait that did not go through the busy handler (a retried open).
    func add(_ seconds: Double) {
        total.withLock { $0 += seconds }
    }

    /// The GRDB busy mode that waits through this object.
    var busyMode: Database.BusyMode {
        .callback { [self] tries in retry(tries: tries) }
    }
}
