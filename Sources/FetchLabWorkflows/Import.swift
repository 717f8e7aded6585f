import FetchLabCore
import FetchLabIngest
import FetchLabResults
import FetchLabStore

/// What `fetchlab import` does without its options or its output: the files one after the other,
/// each in its own transaction (all of it or nothing), a file that fails losing nothing of the
/// others. What happens is told as it happens, for a front end to show.
public enum Import {
    /// One step of an import, in the order it happens.
    public enum Event: Sendable {
        /// A directory entry skipped because it is not a regular file (a FIFO, a socket): a note.
        case skipped(String)
        /// An argument or directory entry that names nothing to read (a path that does not exist,
        /// a directory without log files, a dangling link): an error of the import; the other files
        /// are still read.
        case unreadable(String)
        /// A file read and committed (or recorded with its rejects when nothing was accepted);
        /// `waitedSeconds`: how long its import waited for another process's lock, apart from
        /// the summary's own time.
        case imported(ImportSummary, waitedSeconds: Double)
        /// A file of which nothing was stored, and why (an `IngestError` or a `StoreError`).
        case failed(path: String, error: any Error & Sendable)
    }

    /// What was imported, and how many problems there were (unreadable entries, failed files,
    /// files with no accepted row).
    public struct Outcome: Sendable {
        public var summaries: [ImportSummary] = []
        public var problems = 0
        /// Per import (by id) that stored context samples: each user's samples beside that
        /// user's launches in time, once every file is in.
        public var contextOverlaps: [Int64: [ContextOverlap]] = [:]
        /// The first and last launch in the database once every file is in; nil when none.
        public var launches: ClosedRange<Instant>?
        /// Whether the import as a whole failed (any problem): the command exits 1.
        public var failed: Bool { problems > 0 }
    }

    /// Imports `files` (as `InputFiles.expandReporting` found them) into `store`, telling `event`
    /// each step on the calling thread, and `progress` how far the file being read has got (from
    /// the reading thread).
    public static func run(
        _ files: InputFiles.Expansion, into store: FetchLabDatabase, options: ReadOptions = ReadOptions(),
        force: Bool = false, progress: (@Sendable (ImportProgress) -> Void)? = nil, event: (Event) -> Void
    ) -> Outcome {
        var outcome = Outcome()
        for note in files.skipped { event(.skipped(note)) }
        for problem in files.problems {
            outcome.problems += 1
            event(.unreadable(problem))
        }
        let importer = Importer(database: store)
        // Waiting for another process's lock: opening's wait counts with the first file.
        var waitedBefore = 0.0
        for path in files.paths {
            defer { waitedBefore = store.waiting.totalSeconds }
            do {
                let summary = try importer.importFile(path, options: options, force: force, progress: progress)
                if summary.status == .nothingAccepted { outcome.problems += 1 }
                outcome.summaries.append(summary)
                event(.imported(summary, waitedSeconds: store.waiting.totalSeconds - waitedBefore))
            } catch {
                outcome.problems += 1
                event(.failed(path: path, error: error))
            }
        }
        // A context file read before the usage log of the same users (a directory's files come in
        // name order: context.csv.gz before usage.csv.gz) matched no one when it was read: only the
        // devices that still have no launch once every file is in are unmatched.
        if outcome.summaries.contains(where: { !$0.unmatchedContextUsers.isEmpty }),
            let still = try? Set(UsageQueries(database: store).importNotes().unmatchedContextUsers)
        {
            for i in outcome.summaries.indices {
                outcome.summaries[i].unmatchedContextUsers.removeAll { !still.contains($0) }
            }
        }
        // Context is matched to launches by user name and read at the time of each launch: samples
        // that do not overlap the launches in time are read by no replay.
        let queries = UsageQueries(database: store)
        for s in outcome.summaries where s.status == .imported && s.inserted.contextSamples > 0 {
            if let overlaps = try? queries.contextOverlap(ofImport: s.importID) {
                outcome.contextOverlaps[s.importID] = overlaps
            }
        }
        if !outcome.contextOverlaps.isEmpty { outcome.launches = try? queries.launchSpan() }
        return outcome
    }
}
