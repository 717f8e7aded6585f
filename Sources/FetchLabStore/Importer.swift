import FetchLabCore
import FetchLabIngest
import FetchLabResults
import Foundation
import GRDB
import GRDBSQLite

/// Imports log files into a ``FetchLabDatabase``: each file in one transaction, all or nothing.
///
/// Reading (inflate, split, parse, validate) runs on a second thread and hands batches to the
/// writer. Usage events are put in primary-key order (sorted runs, inserted as they fill when the
/// file is in user order, else spilled and merged; see ``UsageRunSorter``) and inserted as one
/// sweep with reused prepared statements and raw binds.
/// Duplicates are dropped by the tables' primary keys (`INSERT OR IGNORE`), so
/// overlapping files never double an event; a file whose content was imported before with the
/// same read options is recognised by its SHA-256 and the options' fingerprint, and left alone.
public struct Importer: Sendable {
    public let database: FetchLabDatabase
    /// Usage rows sorted in memory before a sorted run spills to a temporary file; bounds the
    /// importer's memory whatever the file size (32 bytes a row).
    public var sortRunRows: Int

    public init(database: FetchLabDatabase, sortRunRows: Int = UsageRunSorter.defaultRunCapacity) {
        self.database = database
        self.sortRunRows = sortRunRows
    }

    /// Imports one file (`-` for standard input).
    ///
    /// A file whose content was imported before with the same read options (`ReadFingerprint`)
    /// and gave at least one accepted row is left alone (status `ImportSummary.Status.unchanged`)
    /// unless `force`; a forced re-read stores nothing twice (its rows count as duplicates). A file
    /// with no accepted row is recorded with its rejects but never blocks a later import of it.
    ///
    /// - Throws: `IngestError` for unreadable, corrupt or (in strict mode) malformed input,
    ///   ``StoreError`` for database failures. Nothing of the file is committed then.
    public func importFile(
        _ path: String, options: ReadOptions = ReadOptions(), force: Bool = false,
        progress: (@Sendable (ImportProgress) -> Void)? = nil
    ) throws -> ImportSummary {
        let clock = ContinuousClock()
        let start = clock.now
        let waitedBefore = database.waiting.totalSeconds
        // Working time: the time spent waiting for another process's lock is not this import's
        // (see ``FetchLabDatabase/waiting`` for how long it waited).
        func elapsed() -> Double {
            max(0, (clock.now - start) / .seconds(1) - (database.waiting.totalSeconds - waitedBefore))
        }
        let fingerprint = ReadFingerprint.of(options)

        let earlier: ImportRecord?
        do {
            earlier = force ? nil : try earlierImportOfSameContent(path, fingerprint: fingerprint)
        } catch let error as DatabaseError {
            throw database.storeError(error, while: "while importing \(path)")
        }
        if let earlier, let id = earlier.id {
            return ImportSummary(unchanged: path, earlier: earlier, importID: id, seconds: elapsed())
        }

        let reader = try openRecordSource(path: path, options: options)
        let pipe = BatchPipe()
        let box = ReaderBox(reader)
        let thread = Thread {
            do {
                while let batch = try box.reader.nextBatch() {
                    if !pipe.put(batch) { break }
                }
                pipe.finish(nil)
            } catch {
                pipe.finish(error)
            }
        }
        thread.stackSize = 8 << 20
        thread.name = "fetchlab-reader"
        thread.start()
        defer {
            pipe.cancel()
            pipe.waitUntilFinished()
        }

        do {
            return try database.writer.writeWithoutTransaction { db -> ImportSummary in
                try db.execute(sql: "PRAGMA foreign_keys = OFF; PRAGMA cache_size = -32768")
                defer { try? db.execute(sql: "PRAGMA foreign_keys = ON") }
                var summary: ImportSummary?
                try db.inTransaction(.immediate) {
                    var writer = try BatchWriter(
                        db: db, reader: reader, path: path, options: options, sortRunRows: sortRunRows)
                    while let batch = try pipe.take() {
                        try writer.write(batch)
                        progress?(
                            ImportProgress(
                                path: path, bytesRead: batch.inputBytesRead, totalBytes: reader.totalBytes,
                                rows: writer.counts.rows, elapsed: elapsed()))
                    }
                    // The reader is done: its content hash is complete.
                    let hash = reader.contentSHA256
                    if !force,
                        let earlier = try Self.sameImport(
                            contentSHA256: hash, fingerprint: fingerprint, excluding: writer.importID
                        ).fetchOne(db),
                        let id = earlier.id
                    {
                        summary = ImportSummary(unchanged: path, earlier: earlier, importID: id, seconds: elapsed())
                        return .rollback
                    }
                    let totalBytes = reader.totalBytes
                    let bytesRead = reader.inputBytesRead
                    summary = try writer.finish(contentSHA256: hash, seconds: elapsed) { stored, rows in
                        progress?(
                            ImportProgress(
                                path: path, phase: .storing, bytesRead: bytesRead, totalBytes: totalBytes,
                                rows: rows, stored: stored, elapsed: elapsed()))
                    }
                    return .commit
                }
                guard let summary else { throw StoreError(.database, "\(path): import did not finish") }
                return summary
            }
        } catch let error as IngestError {
            throw error
        } catch let error as StoreError {
            throw error
        } catch let error as DatabaseError {
            throw database.storeError(error, while: "while importing \(path)")
        }
    }

    /// Earlier imports that make importing this content with these options again pointless: same
    /// content, same read options, and at least one row accepted.
    static func sameImport(contentSHA256: String, fingerprint: String, excluding id: Int64? = nil)
        -> QueryInterfaceRequest<ImportRecord>
    {
        var request = sameImports(fingerprint: fingerprint).filter(ImportRecord.Columns.contentSHA256 == contentSHA256)
        if let id { request = request.filter(ImportRecord.Columns.id != id) }
        return request
    }

    /// Finished imports with these read options and at least one row accepted, oldest first.
    private static func sameImports(fingerprint: String) -> QueryInterfaceRequest<ImportRecord> {
        typealias C = ImportRecord.Columns
        return ImportRecord.filter(C.readFingerprint == fingerprint && C.rowsAccepted > 0 && C.finishedAt != nil)
            .order(C.id)
    }

    /// For a regular file whose size matches an earlier import with the same read options, hashes
    /// it to see whether it is the same content, so that re-imports are recognised without reading
    /// the rows.
    private func earlierImportOfSameContent(_ path: String, fingerprint: String) throws -> ImportRecord? {
        guard path != "-",
            let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            attributes[.type] as? FileAttributeType == .typeRegular,
            let size = (attributes[.size] as? NSNumber)?.int64Value
        else { return nil }
        let candidates = try database.writer.read { db in
            try Self.sameImports(fingerprint: fingerprint).filter(ImportRecord.Columns.bytes == size).fetchAll(db)
        }
        guard !candidates.isEmpty, let hash = try? Self.sha256(ofFile: path) else { return nil }
        return candidates.first { $0.contentSHA256 == hash }
    }

    /// SHA-256 of a file's bytes (read through swift-system, retrying on EINTR).
    static func sha256(ofFile path: String) throws(IngestError) -> String {
        try SHA256.hexDigest(ofFile: path)
    }
}

/// Carries the reader to its thread (it is used by that thread only until it finishes).
private final class ReaderBox: @unchecked Sendable {
    let reader: any RecordSource
    init(_ reader: any RecordSource) { self.reader = reader }
}
