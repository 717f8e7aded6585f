import GRDB

/// The database schema, as migrations. Tables are singular (`usage_event`); views with
/// readable columns are plural (`usage_events`) for people who open the file in `sqlite3`.
enum Schema {
    /// `PRAGMA application_id` of FetchLab databases ("FLAB").
    static let applicationID: Int32 = 0x464C_4142

    /// A schema change: its identifier (as GRDB's `grdb_migrations` table records it) and its SQL.
    struct Migration: Sendable {
        var identifier: String
        var migrate: @Sendable (Database) throws -> Void
    }

    /// The schema version this build writes (`PRAGMA user_version`): the number of migrations.
    static var version: Int { migrations.count }

    /// The tables "v1" created (views, indexes and GRDB's bookkeeping aside).
    static let importTables: Set<String> = [
        "user", "app", "import", "usage_event", "context_sample", "content_update", "rejected_row",
    ]

    /// The tables of stored runs, created by ``v4``.
    static let runTables: Set<String> = ["run", "run_policy", "run_policy_app", "run_policy_user"]

    /// The tables of stored tuning runs, created by ``v5``.
    static let tuneTables: Set<String> = ["tune_run", "tune_setting"]

    /// FetchLab's tables (views, indexes and GRDB's bookkeeping aside) in the latest schema.
    static var tables: Set<String> { importTables.union(runTables).union(tuneTables) }

    /// The tables a database holds once `applied` migrations ran.
    static func tables(applied: Set<String>) -> Set<String> {
        guard applied.contains(migrations[0].identifier) else { return [] }
        var out = importTables
        if applied.contains(v4) { out.formUnion(runTables) }
        if applied.contains(v5) { out.formUnion(tuneTables) }
        return out
    }

    /// GRDB's migrator over ``migrations``, for tests that build databases of earlier versions.
    /// FetchLab itself migrates with ``complete(_:)``, inside one write transaction.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for migration in migrations {
            migrator.registerMigration(migration.identifier, migrate: migration.migrate)
        }
        return migrator
    }

    static let migrations: [Migration] = [
        Migration(identifier: "v1") { db in
            try db.execute(sql: "PRAGMA application_id = \(applicationID)")
            try db.execute(
                sql: """
                    CREATE TABLE user (
                        id INTEGER PRIMARY KEY,
                        name TEXT NOT NULL UNIQUE,
                        time_zone TEXT
                    );
                    CREATE TABLE app (
                        id INTEGER PRIMARY KEY,
                        name TEXT NOT NULL UNIQUE
                    );
                    CREATE TABLE import (
                        id INTEGER PRIMARY KEY,
                        path TEXT NOT NULL,
                        content_sha256 TEXT NOT NULL,
                        format TEXT NOT NULL,
                        syntax TEXT,
                        compression TEXT,
                        bytes INTEGER NOT NULL,
                        decompressed_bytes INTEGER NOT NULL,
                        rows_read INTEGER NOT NULL DEFAULT 0,
                        rows_accepted INTEGER NOT NULL DEFAULT 0,
                        rows_rejected INTEGER NOT NULL DEFAULT 0,
                        rows_duplicate INTEGER NOT NULL DEFAULT 0,
                        rows_excluded INTEGER NOT NULL DEFAULT 0,
                        records_inserted INTEGER NOT NULL DEFAULT 0,
                        options TEXT NOT NULL DEFAULT '{}',
                        started_at TEXT NOT NULL,
                        finished_at TEXT
                    );
                    CREATE INDEX import_by_hash ON import(content_sha256);
                    CREATE TABLE usage_event (
                        user_id INTEGER NOT NULL REFERENCES user(id),
                        app_id INTEGER NOT NULL REFERENCES app(id),
                        time INTEGER NOT NULL,          -- microseconds since 1970 UTC
                        kind INTEGER NOT NULL,          -- 0 launch, 1 close, 2 force_quit
                        utc_offset INTEGER,             -- seconds, when the log said
                        import_id INTEGER NOT NULL REFERENCES import(id),
                        PRIMARY KEY (user_id, app_id, time, kind)
                    ) WITHOUT ROWID;
                    CREATE TABLE context_sample (
                        user_id INTEGER NOT NULL REFERENCES user(id),
                        time INTEGER NOT NULL,
                        battery REAL,                   -- percent 0-100
                        charging INTEGER,               -- 0/1
                        network INTEGER,                -- 0 none, 1 wifi, 2 cellular
                        low_power INTEGER,              -- 0/1
                        screen_on INTEGER,              -- 0/1
                        import_id INTEGER NOT NULL REFERENCES import(id),
                        PRIMARY KEY (user_id, time)
                    ) WITHOUT ROWID;
                    CREATE TABLE content_update (
                        app_id INTEGER NOT NULL REFERENCES app(id),
                        time INTEGER NOT NULL,
                        import_id INTEGER NOT NULL REFERENCES import(id),
                        PRIMARY KEY (app_id, time)
                    ) WITHOUT ROWID;
                    CREATE TABLE rejected_row (
                        id INTEGER PRIMARY KEY,
                        import_id INTEGER NOT NULL REFERENCES import(id) ON DELETE CASCADE,
                        line INTEGER NOT NULL,
                        reason TEXT NOT NULL,
                        raw TEXT NOT NULL
                    );
                    CREATE INDEX rejected_row_by_import ON rejected_row(import_id, line);

                    CREATE VIEW usage_events AS
                    SELECT u.name AS user, a.name AS app,
                           strftime('%Y-%m-%dT%H:%M:%fZ', e.time / 1000000.0, 'unixepoch') AS time_utc,
                           CASE e.kind WHEN 0 THEN 'launch' WHEN 1 THEN 'close' ELSE 'force_quit' END AS event,
                           e.utc_offset, e.time AS time_us, e.import_id
                    FROM usage_event e JOIN user u ON u.id = e.user_id JOIN app a ON a.id = e.app_id;
                    CREATE VIEW context_samples AS
                    SELECT u.name AS user,
                           strftime('%Y-%m-%dT%H:%M:%fZ', c.time / 1000000.0, 'unixepoch') AS time_utc,
                           c.battery,
                           CASE c.charging WHEN 1 THEN 'true' WHEN 0 THEN 'false' END AS charging,
                           CASE c.network WHEN 0 THEN 'none' WHEN 1 THEN 'wifi' WHEN 2 THEN 'cellular' END AS network,
                           CASE c.low_power WHEN 1 THEN 'true' WHEN 0 THEN 'false' END AS low_power,
                           CASE c.screen_on WHEN 1 THEN 'true' WHEN 0 THEN 'false' END AS screen_on,
                           c.time AS time_us, c.import_id
                    FROM context_sample c JOIN user u ON u.id = c.user_id;
                    CREATE VIEW content_updates AS
                    SELECT a.name AS app,
                           strftime('%Y-%m-%dT%H:%M:%fZ', c.time / 1000000.0, 'unixepoch') AS time_utc,
                           c.time AS time_us, c.import_id
                    FROM content_update c JOIN app a ON a.id = c.app_id;
                    CREATE VIEW imports AS
                    SELECT id, path, format, compression, bytes, rows_read, rows_accepted, rows_rejected,
                           rows_duplicate, rows_excluded, records_inserted, started_at, finished_at, content_sha256
                    FROM import;
                    CREATE VIEW rejected_rows AS
                    SELECT i.path, r.line, r.reason, r.raw, r.import_id
                    FROM rejected_row r JOIN import i ON i.id = r.import_id;
                    """)
        },
        Migration(identifier: "v2: Background App Refresh events") { db in
            // kind 3 refresh_off, 4 refresh_on: Background App Refresh switched off/on for the app.
            try db.execute(
                sql: """
                    DROP VIEW usage_events;
                    CREATE VIEW usage_events AS
                    SELECT u.name AS user, a.name AS app,
                           strftime('%Y-%m-%dT%H:%M:%fZ', e.time / 1000000.0, 'unixepoch') AS time_utc,
                           CASE e.kind WHEN 0 THEN 'launch' WHEN 1 THEN 'close' WHEN 2 THEN 'force_quit'
                                       WHEN 3 THEN 'refresh_off' WHEN 4 THEN 'refresh_on' END AS event,
                           e.utc_offset, e.time AS time_us, e.import_id
                    FROM usage_event e JOIN user u ON u.id = e.user_id JOIN app a ON a.id = e.app_id;
                    """)
        },
        Migration(identifier: v3) { db in
            // read_fingerprint: SHA-256 of the options that change what is read (ReadFingerprint);
            // an import is "the same" only with the same content and the same fingerprint. NULL for
            // older imports: they never block a new read (whose rows then count as duplicates).
            // rows_merged: foreground rows that continued a session (accepted, no record of their own).
            try db.execute(
                sql: """
                    ALTER TABLE import ADD COLUMN read_fingerprint TEXT;
                    ALTER TABLE import ADD COLUMN rows_merged INTEGER NOT NULL DEFAULT 0;
                    DROP INDEX import_by_hash;
                    CREATE INDEX import_by_hash ON import(content_sha256, read_fingerprint);
                    DROP VIEW imports;
                    CREATE VIEW imports AS
                    SELECT id, path, format, compression, bytes, rows_read, rows_accepted, rows_rejected,
                           rows_duplicate, rows_excluded, rows_merged, records_inserted, started_at, finished_at,
                           content_sha256, read_fingerprint
                    FROM import;
                    """)
        },
        Migration(identifier: v4) { db in
            try db.execute(sql: RunSchema.sql)
        },
        Migration(identifier: v5) { db in
            try db.execute(sql: TuneSchema.sql)
        },
        Migration(identifier: v6) { db in
            try db.execute(sql: RunSchema.v6SQL)
        },
        Migration(identifier: v7) { db in
            // The order of a run's users (as summed and printed): rows of runs stored before are NULL
            // (their report JSON holds the per-user arrays).
            try db.execute(sql: "ALTER TABLE run_policy_user ADD COLUMN user_position INTEGER")
        },
        Migration(identifier: v8) { db in
            // Signals (kinds 5–8): unlock, screen_on (app "(device)"), notification, system_ui.
            try db.execute(
                sql: """
                    DROP VIEW usage_events;
                    CREATE VIEW usage_events AS
                    SELECT u.name AS user, a.name AS app,
                           strftime('%Y-%m-%dT%H:%M:%fZ', e.time / 1000000.0, 'unixepoch') AS time_utc,
                           CASE e.kind WHEN 0 THEN 'launch' WHEN 1 THEN 'close' WHEN 2 THEN 'force_quit'
                                       WHEN 3 THEN 'refresh_off' WHEN 4 THEN 'refresh_on' WHEN 5 THEN 'unlock'
                                       WHEN 6 THEN 'screen_on' WHEN 7 THEN 'notification' WHEN 8 THEN 'system_ui' END
                               AS event,
                           e.utc_offset, e.time AS time_us, e.import_id
                    FROM usage_event e JOIN user u ON u.id = e.user_id JOIN app a ON a.id = e.app_id;
                    """)
        },
    ]

    static let v3 = "v3: read-options fingerprint and merged rows of imports"
    static let v4 = "v4: stored runs"
    static let v5 = "v5: stored tuning runs"
    static let v6 = "v6: gain over fixed intervals and share of the possible gain"
    static let v7 = "v7: the order of a run's users"
    /// The latest migration.
    static let v8 = "v8: signal events (unlock, screen on, notification, system UI)"
}
