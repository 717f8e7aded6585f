/// A format read line by line with state that spans lines (a reorder window, sessions, a dump's
/// user sections): headerless, recognised from its first line, its lines not split into fields by
/// the reader.
///
/// A conforming type is the whole format, in one file: how its first line is recognised, how a
/// line becomes records, what it still holds at the end of the file, and what the reader must
/// know about it (whether a line is a row, whether its state holds name ids, whether the file
/// names the user). ``LogReader`` holds one value of it, made through `LogFormat.line`, and asks
/// these questions instead of testing which format it reads. The reader calls it once per line,
/// never per field: the line's own loops stay in the concrete type.
///
/// Quoted fields that span lines are the delimited formats' (RFC 4180 records): a line format
/// sees every line, and a line it cannot read is its reject.
protocol LineFormat {
    /// Whether a file whose first non-blank line (byte-order mark removed) is `line` is in this
    /// format, when `--input-format` does not say. Line formats are asked in `LogFormat` order,
    /// before the first line is read as a header.
    static func recognises(firstLine line: [UInt8]) -> Bool

    /// The user of every record when the file stands for one user and `--user` does not name it:
    /// its name from `source` (the file as the user named it; `-` for standard input), or a usage
    /// error when it cannot be known. Nil when the lines name their users.
    static func fileUser(source: String) throws(IngestError) -> String?

    /// The state at the start of `source`.
    init(options: ReadOptions, source: String)

    /// Whether the reader counts every non-blank line in `ReadCounts.rows`; false when the
    /// format counts its rows itself (a dump whose lines are mostly not events).
    var everyLineIsARow: Bool { get }

    /// Reads one non-blank line (`number`, from 1) into `sink`; throws the reason when the line is
    /// rejected. `unterminated`: the line ends the input without a line break (a file cut short).
    mutating func decode(
        _ line: UnsafeRawBufferPointer, line number: Int, unterminated: Bool, into sink: inout RecordSink
    ) throws(RowProblem)

    /// At the end of the input: the records the state still holds.
    mutating func finish(into sink: inout RecordSink)

    /// Whether the name tables may start again now (``RecordBatch/restartsNames``): false while
    /// the state holds user or app ids that later lines or ``finish(into:)`` will write.
    var namesMayRestart: Bool { get }

    /// Set when a line failed the whole file rather than itself: after `decode` throws, the reader
    /// stops with this message (a usage error naming the option to change) instead of a reject.
    var failure: String? { get }
}
