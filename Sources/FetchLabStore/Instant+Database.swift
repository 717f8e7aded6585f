import FetchLabCore
import GRDB
import GRDBSQLite

/// An instant is stored as its microseconds since 1970 (the `time` columns' INTEGER).
extension Instant: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { sinceEpoch.value.databaseValue }

    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Instant? {
        Int64.fromDatabaseValue(dbValue).map { Instant(sinceEpoch: Microseconds($0)) }
    }
}

/// Read straight from the statement's column, as `Int64` is (no `DatabaseValue` in between).
extension Instant: StatementColumnConvertible {
    @inline(__always)
    public init(sqliteStatement: SQLiteStatement, index: CInt) {
        self.init(sinceEpoch: Microseconds(sqlite3_column_int64(sqliteStatement, index)))
    }
}
