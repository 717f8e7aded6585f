import FetchLabResults
import FetchLabStore

/// `inspect` without its options or output: what a database holds, per user and app, read-only.
public enum Inspection {
    public struct Outcome: Sendable {
        /// Launches per user and app (every app; a front end shows the top ones).
        public var launches: [AppUsage]
        /// Device-context coverage per user (none with an app named: context is per user).
        public var context: [ContextCoverage]
        /// What the imports dropped and could not link (empty with an app named).
        public var notes: ImportNotes
        /// The signal events stored, per kind; nil with an app named.
        public var signals: SignalCounts?
    }

    /// What `database` holds of `user` (nil: everyone) and `app` (nil: every app).
    public static func run(database path: String, user: String?, app: String?) throws -> Outcome {
        let queries = UsageQueries(database: try FetchLabDatabase(path: path, readOnly: true))
        let everyApp = app == nil
        return Outcome(
            launches: try queries.appUsage(user: user, app: app),
            context: everyApp ? try queries.contextCoverage(user: user) : [],
            notes: everyApp ? try queries.importNotes() : ImportNotes(),
            signals: everyApp ? try queries.signalCounts(users: user.map { [$0] } ?? []) : nil)
    }
}
