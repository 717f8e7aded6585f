import FetchLabCore

/// One format whose rows are delimited records (CSV, TSV or JSON Lines) under a header: how its
/// header is recognised and bound to fields, and how one row becomes records or a reject reason.
///
/// Conforming types are stateless; ``LogReader`` calls them statically through a switch over
/// `LogFormat` (`LogFormat.decode(_:into:)`), so a row costs no existential dispatch.
protocol DelimitedFormat {
    /// How strongly a header looks like this format.
    static func recognise(_ header: HeaderNames, statedUser: Bool) -> Recognition
    /// The field a header column stands for (`name` is lowercased, after `--map`), nil to ignore it.
    static func field(named name: String) -> Field?
    /// Fields the header must have; `statedUser` when `--user` names the user of every row.
    static func required(statedUser: Bool) -> [Field]
    /// The column name a user would write for `field`, for messages.
    static func columnName(_ field: Field) -> String
    /// Reads one row into `sink`; throws the reason when the row is rejected.
    static func decode(_ row: Row, into sink: inout RecordSink) throws(RowProblem)
}

extension DelimitedFormat {
    static func columnName(_ field: Field) -> String { field.rawValue }
}

/// A dataset's own format (a column layout FetchLab did not choose): its header is recognised by the
/// dataset's column names, and only those are read.
protocol DatasetFormat: DelimitedFormat {
    /// The dataset's columns as it writes them, with the field each is read as.
    static var columns: KeyValuePairs<String, Field> { get }
    /// Lowercased column names that only this dataset's header has together.
    static var signature: Set<String> { get }
}

extension DatasetFormat {
    static func recognise(_ header: HeaderNames, statedUser: Bool) -> Recognition {
        header.lowercased.isSuperset(of: signature) ? .signature : .no
    }

    static func field(named name: String) -> Field? {
        columns.first { $0.key.lowercased() == name }?.value
    }

    static func columnName(_ field: Field) -> String {
        columns.first { $0.value == field }?.key ?? field.rawValue
    }
}

/// How a header matches a format.
enum Recognition {
    /// Not this format.
    case no
    /// A generic FetchLab header that fits this format (a second fit makes the header ambiguous).
    case fits
    /// A header only this format has (a dataset's own column names): it wins over generic fits.
    case signature
}

/// A header's column names as detection sees them: `--map` applied.
struct HeaderNames {
    /// The names as written (for messages).
    let names: [String]
    /// Lowercased names after `--map`.
    let lowercased: Set<String>
    /// The FetchLab fields the names (or their aliases) stand for.
    let fields: Set<Field>

    init(_ names: [String], map: [String: String]) {
        self.names = names
        let mapped = names.map { map[$0] ?? $0 }
        lowercased = Set(mapped.map { $0.lowercased() })
        fields = Set(mapped.compactMap(Field.canonical))
    }

    /// The header for messages, cut to 120 characters.
    var quoted: String { "\"\(names.joined(separator: ",").prefix(120))\"" }
}

/// Why a row is rejected: one line, without the file and line (the reader adds them).
struct RowProblem: Error {
    let reason: String
    init(_ reason: String) { self.reason = reason }

    /// A quoted field is not closed on this line: the record may go on on the next one.
    static let unclosedQuote = RowProblem("unclosed quote")
    var isUnclosedQuote: Bool { reason == Self.unclosedQuote.reason }
}

/// One record of a delimited file, split into fields, as a format's decoder sees it. The fields
/// point into the line (or a scratch buffer) and are valid only while the row is decoded.
struct Row {
    /// The fields in header order.
    let fields: [UnsafeRawBufferPointer]
    /// The column of each ``Field`` (indexed by ``Field/ordinal``), -1 when the header has none.
    let columns: [Int]
    /// The record as read.
    let raw: UnsafeRawBufferPointer
    /// The number of the record's first line.
    let line: Int

    /// The field's text without surrounding blanks; nil when the header has no such column.
    @inline(__always)
    subscript(_ field: Field) -> UnsafeRawBufferPointer? {
        let index = columns[field.ordinal]
        guard index >= 0, index < fields.count else { return nil }
        return Self.trim(fields[index])
    }

    /// The field's text when it is there and not empty.
    @inline(__always)
    func value(_ field: Field) -> UnsafeRawBufferPointer? {
        guard let bytes = self[field], bytes.count > 0 else { return nil }
        return bytes
    }

    @inline(__always)
    static func trim(_ b: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        var start = 0
        var end = b.count
        while start < end, b[start] == 0x20 || b[start] == 0x09 { start += 1 }
        while end > start, b[end - 1] == 0x20 || b[end - 1] == 0x09 { end -= 1 }
        if start == 0 && end == b.count { return b }
        return UnsafeRawBufferPointer(rebasing: b[start..<end])
    }
}

/// Reading field values shared by the formats.
enum FieldText {
    /// The text of a field for a message, cut to 40 bytes.
    static func quoted(_ b: UnsafeRawBufferPointer) -> String {
        "\"\(String(decoding: b.prefix(40), as: UTF8.self))\""
    }

    /// `true`/`false` and their common spellings (`1`/`0`, `yes`/`no`, `on`/`off`, …).
    static func bool(_ b: UnsafeRawBufferPointer) -> Bool? {
        switch String(decoding: b, as: UTF8.self).lowercased() {
        case "true", "1", "yes", "y", "t", "on": true
        case "false", "0", "no", "n", "f", "off": false
        default: nil
        }
    }

    /// A boolean field, or a reject naming the column.
    static func bool(_ b: UnsafeRawBufferPointer, column: String) throws(RowProblem) -> Bool {
        guard let value = bool(b) else { throw RowProblem("\(column) \(quoted(b)) is not true/false") }
        return value
    }

    /// A battery level in percent, 0–100.
    static func percentage(_ b: UnsafeRawBufferPointer, column: String) throws(RowProblem) -> Double {
        guard let value = Double(String(decoding: b, as: UTF8.self)), value >= 0, value <= 100 else {
            throw RowProblem("\(column) \(quoted(b)) is not a percentage 0–100")
        }
        return value
    }
}
