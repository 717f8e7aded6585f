import FetchLabReport
import Foundation
import Synchronization

/// A progress bar on stderr (`[#####     ] 45% 120/268 users, ETA 0:12`), drawn only when stderr
/// is a terminal, at most ten times a second. Safe to update from several threads at once.
///
/// ```swift
/// let progress = ProgressBar(total: users.count, unit: "users")
/// defer { progress.finish() }
/// for … { progress.update(done: n) }   // or progress.advance()
/// ```
public final class ProgressBar: Sendable {
    /// Units in all (``extend(total:)`` may raise it).
    public var total: Int { state.withLock { $0.total } }
    public let unit: String
    /// Whether it draws at all (stderr is a terminal).
    public let isVisible: Bool
    private let start = ContinuousClock.now
    private let state: Mutex<State>

    private struct State {
        var total: Int
        var done = 0
        var lastDraw: ContinuousClock.Instant?
        var finished = false
        var drawn = false
    }

    /// The least time between two redraws.
    public static let interval = Duration.milliseconds(100)

    /// Where the line goes: a line to draw, or nil to clear it (stderr; tests collect them).
    private let draw: @Sendable (String?) -> Void

    /// - Parameters:
    ///   - total: units in all.
    ///   - unit: what is counted, plural (`users`, `files`).
    ///   - visible: whether to draw (default: when stderr is a terminal).
    ///   - draw: draws a line, or clears it (nil); called under the bar's lock, one call at a time.
    public init(
        total: Int, unit: String, visible: Bool = Terminal.stderrIsTerminal,
        draw: @escaping @Sendable (String?) -> Void = { line in
            if let line { Terminal.progress(line) } else { Terminal.clearProgress() }
        }
    ) {
        state = Mutex(State(total: total))
        self.unit = unit
        isVisible = visible
        self.draw = draw
    }

    /// Sets the units done so far (a smaller count than one seen before is ignored, so that
    /// threads reporting out of order never move the bar back).
    public func update(done: Int) {
        guard isVisible else { return }
        state.withLock { s in
            guard !s.finished else { return }
            s.done = max(s.done, done)
            let now = ContinuousClock.now
            if let last = s.lastDraw, now - last < Self.interval, s.done < s.total { return }
            s.lastDraw = now
            s.drawn = true
            draw(line(done: s.done, total: s.total, at: now))
        }
    }

    /// One more unit done (or `count`).
    public func advance(by count: Int = 1) {
        guard isVisible else { return }
        let done = state.withLock { s in
            s.done += count
            return s.done
        }
        update(done: done)
    }

    /// Raises the units in all to `total` when the work turns out larger than first estimated
    /// (a smaller total is ignored).
    public func extend(total: Int) {
        state.withLock { $0.total = max($0.total, total) }
    }

    /// Clears the bar's line; later updates draw nothing.
    public func finish() {
        state.withLock { s in
            guard !s.finished else { return }
            s.finished = true
            if s.drawn { draw(nil) }
        }
    }

    private func line(done: Int, total: Int, at now: ContinuousClock.Instant) -> String {
        ProgressLine.line(done: done, total: total, unit: unit, elapsed: (now - start) / .seconds(1))
    }
}
