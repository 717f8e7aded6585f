import FetchLabCore
import FetchLabResults

/// The tables and views of stored runs (schema v4): one `run` row per `compare` or `demo`, one
/// `run_policy` row per policy, one `run_policy_app` / `run_policy_user` row per policy and app
/// (user). Each metric of the report is a column, so that notebooks query them with plain SQL; the
/// full report is kept as JSON in `run.report_json` (what `fetchlab runs show` prints again).
///
/// Frozen: this is what migration v4 creates. A later change is a new migration. The metric
/// columns come from `Metric.table` (each entry's column and the migration that added it), so they
/// are the same columns in the same order as long as the table's entries of v4 and v6 keep theirs.
enum RunSchema {
    /// Where a metric column's value comes from.
    enum Source: Equatable {
        /// An entry of `Metric.table`.
        case metric(Metric.ID)
        /// fresh at τ (null when the report has no such τ).
        case fresh(Microseconds)
        /// All skip reasons.
        case skipped
        /// Always null: gap closed was replaced by the share of the possible gain.
        case gapClosed
        /// The metrics object as JSON.
        case json
    }

    /// The sources of the columns of `migration` (4 or 6), in order: migration 4 has
    /// `scored_launches`, `fresh_<τ>m` for τ = 5, 15, 60 min, the other metrics of v4, then
    /// `skipped`, `gap_closed` and `metrics_json`; migration 6 its metrics.
    static func sources(migration: Int) -> [Source] {
        let metrics = Metric.table.filter { $0.column?.migration == migration }.map { Source.metric($0.id) }
        guard migration == 4 else { return metrics }
        return metrics.prefix(1) + freshColumnMinutes.map { .fresh(.minutes(fractional: $0)) } + metrics.dropFirst()
            + [.skipped, .gapClosed, .json]
    }

    /// Every metric column's source, in the order a row is written.
    static let allSources: [Source] = sources(migration: 4) + sources(migration: 6)

    static func column(_ source: Source) -> (name: String, type: String) {
        switch source {
        case .metric(let id): (id.metric.column?.name ?? id.metric.key, id.metric.column?.type ?? "REAL")
        case .fresh(let tau): (FreshKey.key(tau), "REAL")
        case .skipped: ("skipped", "INTEGER NOT NULL")
        case .gapClosed: ("gap_closed", "REAL")
        case .json: ("metrics_json", "TEXT NOT NULL")
        }
    }

    /// The metric columns of `run_policy`, `run_policy_app` and `run_policy_user` that migration v4
    /// creates, in order, with their SQL types.
    static let metricColumns: [(name: String, type: String)] = sources(migration: 4).map(column)

    /// The metric columns migration v6 adds after ``metricColumns`` (`gap_closed` stays, written as
    /// null: gap closed was replaced by the share of the possible gain).
    static let v6Columns: [(name: String, type: String)] = sources(migration: 6).map(column)

    /// Every metric column a row is written with, in order.
    static var allMetricColumns: [(name: String, type: String)] { metricColumns + v6Columns }

    /// Migration v6: the new metric columns on the three policy tables, the views again with them.
    static var v6SQL: String {
        let tables = ["run_policy", "run_policy_app", "run_policy_user"]
        let adds = tables.flatMap { t in v6Columns.map { "ALTER TABLE \(t) ADD COLUMN \($0.name) \($0.type);" } }
        let all = { (t: String) in allMetricColumns.map { "\(t).\($0.name)" }.joined(separator: ", ") }
        return adds.joined(separator: "\n") + """

            DROP VIEW run_policies;
            DROP VIEW run_policy_apps;
            DROP VIEW run_policy_users;
            CREATE VIEW run_policies AS
            SELECT p.run_id, r.created_at, r.command, p.position, p.name, p.family, p.params_json, \(all("p"))
            FROM run_policy p JOIN run r ON r.id = p.run_id;
            CREATE VIEW run_policy_apps AS
            SELECT g.run_id, g.policy_position, p.name AS policy, g.app, \(all("g"))
            FROM run_policy_app g JOIN run_policy p ON p.run_id = g.run_id AND p.position = g.policy_position;
            CREATE VIEW run_policy_users AS
            SELECT g.run_id, g.policy_position, p.name AS policy, g.user, \(all("g"))
            FROM run_policy_user g JOIN run_policy p ON p.run_id = g.run_id AND p.position = g.policy_position;
            """
    }

    /// The τs (minutes) that have a `fresh_<τ>m` column.
    static let freshColumnMinutes: [Double] = [5, 15, 60]

    /// A group table (`run_policy_app`, `run_policy_user`) keyed by its policy and `column`.
    static func groupTable(_ name: String, column: String) -> String {
        """
        CREATE TABLE \(name) (
            run_id INTEGER NOT NULL,
            policy_position INTEGER NOT NULL,
            \(column) TEXT NOT NULL,
            \(definitions),
            PRIMARY KEY (run_id, policy_position, \(column)),
            FOREIGN KEY (run_id, policy_position) REFERENCES run_policy(run_id, position) ON DELETE CASCADE
        ) WITHOUT ROWID;
        """
    }

    /// A view of a group table with the policy's name next to the app (user).
    static func groupView(_ name: String, table: String, column: String) -> String {
        """
        CREATE VIEW \(name) AS
        SELECT g.run_id, g.policy_position, p.name AS policy, g.\(column), \(metrics("g"))
        FROM \(table) g JOIN run_policy p ON p.run_id = g.run_id AND p.position = g.policy_position;
        """
    }

    static var definitions: String { metricColumns.map { "\($0.name) \($0.type)" }.joined(separator: ",\n    ") }

    /// The metric columns, qualified by `table`.
    static func metrics(_ table: String) -> String {
        metricColumns.map { "\(table).\($0.name)" }.joined(separator: ", ")
    }

    static var sql: String {
        """
        CREATE TABLE run (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            created_at TEXT NOT NULL,               -- ISO-8601 UTC
            command TEXT NOT NULL,                  -- compare, demo
            fetchlab_version TEXT,
            tau_minutes REAL NOT NULL,
            launch_refreshes INTEGER NOT NULL,      -- 0/1
            warm_up_days INTEGER NOT NULL,
            min_launches INTEGER NOT NULL,
            platform TEXT NOT NULL,
            users INTEGER NOT NULL,
            pairs INTEGER NOT NULL,
            scored_launches INTEGER NOT NULL,
            first_scored_day TEXT,                  -- YYYY-MM-DD
            last_scored_day TEXT,
            settings_json TEXT NOT NULL,
            report_json TEXT NOT NULL,              -- the report as `compare --format json` prints it
            frontier_json TEXT NOT NULL DEFAULT '[]' -- [[fetches/day, fresh rate]]
        );
        CREATE TABLE run_policy (
            run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
            position INTEGER NOT NULL,              -- 0-based, in the report's order
            name TEXT NOT NULL,
            family TEXT NOT NULL,
            params_json TEXT NOT NULL,
            \(definitions),
            PRIMARY KEY (run_id, position)
        ) WITHOUT ROWID;
        \(groupTable("run_policy_app", column: "app"))
        \(groupTable("run_policy_user", column: "user"))

        CREATE VIEW runs AS
        SELECT r.id, r.created_at, r.command, r.fetchlab_version, r.tau_minutes,
               CASE r.launch_refreshes WHEN 1 THEN 'on' ELSE 'off' END AS launch_refreshes,
               r.warm_up_days, r.min_launches, r.platform, r.users, r.pairs, r.scored_launches,
               r.first_scored_day, r.last_scored_day,
               (SELECT count(*) FROM run_policy p WHERE p.run_id = r.id) AS policies
        FROM run r;
        CREATE VIEW run_policies AS
        SELECT p.run_id, r.created_at, r.command, p.position, p.name, p.family, p.params_json, \(metrics("p"))
        FROM run_policy p JOIN run r ON r.id = p.run_id;
        \(groupView("run_policy_apps", table: "run_policy_app", column: "app"))
        \(groupView("run_policy_users", table: "run_policy_user", column: "user"))
        """
    }
}
