import FetchLabResults

/// The tables and views of stored tuning runs (schema v5): one `tune_run` row per `fetchlab tune`,
/// one `tune_setting` row per setting tried on each fold. The figures a notebook plots are
/// columns; the whole result is kept as JSON in `tune_run.result_json` (what `fetchlab runs
/// show-tune` prints again), the platform settings in `tune_run.platform_json`.
///
/// Frozen: this is what migration v5 creates. A later change is a new migration.
enum TuneSchema {
    /// The held-out columns of `tune_run`, once for the tuned setting (`test_`) and once for the
    /// best fixed interval (`best_fixed_test_`): means over the folds (one fold: that fold's).
    /// Each of `Metric.tunable` (in its order) is a column, named by its column of the run tables.
    static let heldOutColumns: [String] = ["objective", "fresh_15m"] + Metric.tunable.map(columnName)

    /// The training columns of `tune_setting`, in order, with their SQL types.
    static let settingColumns: [(name: String, type: String)] =
        [("objective", "REAL NOT NULL"), ("fresh_15m", "REAL NOT NULL")]
        + Metric.tunable.map { (columnName($0), "REAL NOT NULL") } + [("scored_launches", "INTEGER NOT NULL")]

    static func columnName(_ metric: Metric) -> String { metric.column?.name ?? metric.key }

    static func heldOut(_ prefix: String) -> [String] { heldOutColumns.map { prefix + $0 } }

    static var sql: String {
        let held = (heldOut("test_") + heldOut("best_fixed_test_")).map { "\($0) REAL" }
        let settings = settingColumns.map { "\($0.name) \($0.type)" }
        return """
            CREATE TABLE tune_run (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                created_at TEXT NOT NULL,               -- ISO-8601 UTC
                fetchlab_version TEXT,
                family TEXT NOT NULL,                   -- fixed, predictive, budgeted, workmanager
                method TEXT NOT NULL,                   -- grid, random, coordinate
                objective TEXT NOT NULL,                -- maximize fresh@15m
                constraints TEXT,                       -- battery<=1%/day,fetches<=5; NULL: none
                split TEXT NOT NULL,                    -- the folds' labels, joined by '; '
                folds INTEGER NOT NULL,
                chosen TEXT NOT NULL,                   -- the last fold's choice (the recommendation)
                best_fixed TEXT,                        -- the last fold's best fixed interval; NULL: none feasible
                \(held.joined(separator: ",\n    ")),
                test_scored_launches INTEGER NOT NULL,  -- summed over the folds
                replays INTEGER NOT NULL,
                result_json TEXT NOT NULL,              -- the whole TuningResult, as it decodes again
                platform_json TEXT NOT NULL DEFAULT '[]' -- the platform settings and their replays
            );
            CREATE TABLE tune_setting (
                run_id INTEGER NOT NULL REFERENCES tune_run(id) ON DELETE CASCADE,
                fold INTEGER NOT NULL,                  -- 1-based
                rank INTEGER NOT NULL,                  -- 1-based, feasible first, then the objective on train
                name TEXT NOT NULL,                     -- predictive(10m,0.3)
                parameters TEXT NOT NULL,               -- lead=10m threshold=0.3
                params_json TEXT NOT NULL,              -- {"lead":"10m","threshold":"0.3"}
                \(settings.joined(separator: ",\n    ")),
                feasible INTEGER NOT NULL,              -- 0/1
                pareto INTEGER NOT NULL,                -- 0/1: on the front of fresh@15m, energy and cellular
                chosen INTEGER NOT NULL,                -- 0/1: the fold's choice
                PRIMARY KEY (run_id, fold, rank)
            ) WITHOUT ROWID;

            CREATE VIEW tune_runs AS
            SELECT t.id, t.created_at, t.fetchlab_version, t.family, t.method, t.objective, t.constraints, t.split,
                   t.folds, t.chosen, t.best_fixed, \(heldOut("t.test_").joined(separator: ", ")),
                   t.test_scored_launches, \(heldOut("t.best_fixed_test_").joined(separator: ", ")), t.replays,
                   (SELECT count(*) FROM tune_setting s WHERE s.run_id = t.id) AS settings
            FROM tune_run t;
            CREATE VIEW tune_settings AS
            SELECT s.run_id, t.created_at, t.family, t.objective AS objective_name, s.fold, s.rank, s.name, s.parameters, s.params_json,
                   \(settingColumns.map { "s.\($0.name)" }.joined(separator: ", ")), s.feasible, s.pareto, s.chosen
            FROM tune_setting s JOIN tune_run t ON t.id = s.run_id;
            """
    }
}
