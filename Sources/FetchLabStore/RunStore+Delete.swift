import FetchLabResults
import Foundation
import GRDB

extension RunStore {
    /// Deletes the comparison runs `ids` and all their rows (policies, per-app and per-user
    /// metrics) in one transaction. Every id is checked first: when one names no run, nothing is
    /// deleted.
    ///
    /// - Returns: the ids deleted, in the order given, each once.
    /// - Throws: ``StoreError`` `notFound` naming the first unknown id; `database` when the
    ///   database cannot be written.
    @discardableResult
    public func deleteRuns(_ ids: [Int64]) throws(StoreError) -> [Int64] {
        var unique: [Int64] = []
        for id in ids where !unique.contains(id) { unique.append(id) }
        let path = database.path
        do {
            return try database.writer.write { db -> [Int64] in
                let exists = try db.tableExists("run")
                for id in unique {
                    let row = exists ? try Int.fetchOne(db, sql: "SELECT 1 FROM run WHERE id = ?", arguments: [id]) : nil
                    guard row != nil else {
                        throw StoreError(.notFound, "\(path): no run \(id) (fetchlab runs lists the stored runs); nothing deleted")
                    }
                }
                for id in unique {
                    for table in ["run_policy_user", "run_policy_app", "run_policy"] {
                        try db.execute(sql: "DELETE FROM \(table) WHERE run_id = ?", arguments: [id])
                    }
                    try db.execute(sql: "DELETE FROM run WHERE id = ?", arguments: [id])
                }
                return unique
            }
        } catch let error as StoreError {
            throw error
        } catch let error as DatabaseError {
            throw database.storeError(error, while: "deleting runs")
        } catch {
            throw StoreError(.database, "\(path): cannot delete runs: \(error)")
        }
    }
}
