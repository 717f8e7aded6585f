import Foundation
import GRDBSQLite

/// Builds small Knowledge stores (`knowledgeC.db`) for tests, from the schema in
/// `Tests/FetchLabIngestTests/Resources/knowledgeC-schema.sql`, with the sqlite3 C API.
public enum KnowledgeStoreFixture {
    /// One `ZOBJECT` row; dates are ISO-8601 UTC (`2024-03-01T12:00:00Z`) or nil for NULL.
    public struct Object: Sendable {
        public var pk: Int
        public var stream: String
        public var start: String?
        public var end: String?
        public var string: String?
        public var integer: Int?
        public var double: Double?
        public var offset: Int?
        public var source: Int?

        public init(
            _ pk: Int, _ stream: String, start: String?, end: String? = nil, string: String? = nil,
            integer: Int? = nil, double: Double? = nil, offset: Int? = 0, source: Int? = nil
        ) {
            self.pk = pk
            self.stream = stream
            self.start = start
            self.end = end ?? start
            self.string = string
            self.integer = integer
            self.double = double
            self.offset = offset
            self.source = source
        }
    }

    /// The schema's SQL.
    public static func schema() throws -> String {
        try String(
            contentsOf: packageRoot().appendingPathComponent(
                "Tests/FetchLabIngestTests/Resources/knowledgeC-schema.sql"),
            encoding: .utf8)
    }

    /// Core Data seconds (since 2001-01-01 UTC) of an ISO-8601 UTC date.
    public static func coreData(_ iso: String) -> Double {
        let formatter = ISO8601DateFormatter()
        guard let date = formatter.date(from: iso) else { fatalError("bad date \(iso)") }
        return date.timeIntervalSince1970 - 978_307_200
    }

    /// The INSERT of a row.
    public static func insert(_ o: Object) -> String {
        func num<T>(_ v: T?) -> String { v.map { "\($0)" } ?? "NULL" }
        func date(_ v: String?) -> String { v.map { "\(coreData($0))" } ?? "NULL" }
        func text(_ v: String?) -> String { v.map { "'\($0.replacingOccurrences(of: "'", with: "''"))'" } ?? "NULL" }
        return """
            INSERT INTO ZOBJECT (Z_PK, ZSTREAMNAME, ZSTARTDATE, ZENDDATE, ZVALUESTRING, ZVALUEINTEGER, ZVALUEDOUBLE,
            ZSECONDSFROMGMT, ZSOURCE) VALUES (\(o.pk), \(text(o.stream)), \(date(o.start)), \(date(o.end)),
            \(text(o.string)), \(num(o.integer)), \(num(o.double)), \(num(o.offset)), \(num(o.source)));
            """
    }

    /// Writes a store at `path` with `objects`, then runs `sql` (extra rows, schema changes).
    public static func make(_ path: String, _ objects: [Object], sql: String = "") throws {
        try? FileManager.default.removeItem(atPath: path)
        let db = try SQLiteConnection(path)
        try db.execute(try schema())
        try db.execute("BEGIN; " + objects.map(insert).joined(separator: "\n") + "COMMIT;")
        if !sql.isEmpty { try db.execute(sql) }
    }
}

/// A read-write sqlite3 connection for tests.
public final class SQLiteConnection: @unchecked Sendable {
    public let handle: OpaquePointer

    public init(_ path: String) throws {
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK, let db else {
            sqlite3_close_v2(db)
            throw FixtureError("cannot open \(path)")
        }
        handle = db
    }

    deinit { sqlite3_close_v2(handle) }

    public func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        if sqlite3_exec(handle, sql, nil, nil, &message) != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? "error"
            sqlite3_free(message)
            throw FixtureError("\(text) in \(sql)")
        }
    }
}

public struct FixtureError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
