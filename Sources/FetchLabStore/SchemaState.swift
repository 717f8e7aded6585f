import GRDB

/// What a database holds, as far as FetchLab is concerned, and what opening it must do: read
/// before anything is written, and again inside the write transaction that completes the schema.
struct SchemaState: Sendable, Equatable {
    var applicationID: Int32 = 0
    /// `PRAGMA user_version`: the schema version FetchLab stamped (0 before builds that stamp it).
    var userVersion = 0
    /// Tables other than SQLite's and GRDB's own.
    var tables: Set<String> = []
    /// Identifiers in GRDB's `grdb_migrations` table (empty when there is none).
    var applied: Set<String> = []

    enum Verdict: Equatable {
        /// FetchLab's, up to date and stamped: nothing to write.
        case complete
        /// FetchLab's but not finished: a new (empty) file, one left half-created by a process
        /// killed during its creation or by an older build, or one of an earlier schema version.
        /// `missing`: the migrations to run; the application id and version are stamped as well.
        case incomplete(missing: [String])
        /// Another application's database.
        case foreign
        /// Written by a newer FetchLab: its schema version, and the migrations this build does not know.
        case tooNew(version: Int, unknown: [String])
    }

    static func read(_ db: Database) throws -> SchemaState {
        var state = SchemaState()
        state.applicationID = try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0
        state.userVersion = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
        let names = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
        state.tables = Set(names.filter { !$0.hasPrefix("sqlite_") && !$0.hasPrefix("grdb_") })
        if names.contains("grdb_migrations") {
            state.applied = try String.fetchSet(db, sql: "SELECT identifier FROM grdb_migrations")
        }
        return state
    }

    var verdict: Verdict {
        let known = Schema.migrations.map(\.identifier)
        let unknown = applied.subtracting(known).sorted()
        if applicationID != Schema.applicationID {
            guard applicationID == 0 else { return .foreign }
            // Not stamped: FetchLab's only if it holds nothing else than what FetchLab's
            // migrations recorded in grdb_migrations created (nothing, or FetchLab's tables).
            guard unknown.isEmpty else { return .foreign }
            let expected = Schema.tables(applied: applied)
            guard tables == expected else { return .foreign }
        }
        if !unknown.isEmpty || userVersion > Schema.version {
            return .tooNew(version: max(userVersion, applied.count), unknown: unknown)
        }
        let missing = known.filter { !applied.contains($0) }
        if missing.isEmpty && applicationID == Schema.applicationID && userVersion == Schema.version {
            return .complete
        }
        return .incomplete(missing: missing)
    }
}

extension Schema {
    /// Completes the schema: runs the missing migrations, records them in `grdb_migrations` and
    /// stamps the application id and the schema version. Call it inside a write transaction
    /// (`BEGIN IMMEDIATE`) so that all of it commits at once, and so that a second process waits
    /// for the first and then finds the schema finished.
    ///
    /// - Returns: the state found before (the caller refuses `foreign` and `tooNew`: nothing is
    ///   written then).
    @discardableResult
    static func complete(_ db: Database) throws -> SchemaState {
        let state = try SchemaState.read(db)
        guard case .incomplete(let missing) = state.verdict else { return state }
        try db.execute(sql: "CREATE TABLE IF NOT EXISTS grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
        // Foreign keys are checked at the end, as GRDB's migrator does.
        try db.execute(sql: "PRAGMA defer_foreign_keys = ON")
        for migration in migrations where missing.contains(migration.identifier) {
            try migration.migrate(db)
            try db.execute(
                sql: "INSERT INTO grdb_migrations (identifier) VALUES (?)", arguments: [migration.identifier])
        }
        try db.execute(sql: "PRAGMA application_id = \(applicationID)")
        try db.execute(sql: "PRAGMA user_version = \(version)")
        try db.checkForeignKeys()
        return state
    }
}
