import FetchLabCore
import FetchLabResults
import Foundation

/// Learns a file's format from its first line, and binds a header's columns to fields.
enum FormatDetection {
    struct Detected {
        var format: LogFormat
        var syntax: RowSyntax?
        /// The header as read, or the column names a headerless format stands for.
        var header: [String]
        /// The first line is a record, not a header.
        var firstLineIsData: Bool
    }

    /// The format of a file whose first non-blank line is `line`.
    static func detect(_ line: [UInt8], options: ReadOptions, source: String) throws(IngestError) -> Detected {
        let forced = options.format
        // Line formats first, in `LogFormat` order: their first line is data, not a header.
        for format in LogFormat.allCases {
            guard let lineFormat = format.lineFormat else { continue }
            if forced == format || (forced == nil && lineFormat.recognises(firstLine: line)) {
                return Detected(format: format, syntax: nil, header: [], firstLineIsData: true)
            }
        }
        let text = String(decoding: line, as: UTF8.self)
        if text.drop(while: { $0 == " " || $0 == "\t" }).hasPrefix("{") {
            var parser = JSONLineParser()
            if let problem = line.withUnsafeBytes({ parser.parse($0) }) {
                throw IngestError(.format, source: source, line: 1, message: "JSON Lines: \(problem)")
            }
            let keys = parser.keys.map { String(decoding: $0, as: UTF8.self) }
            let format = try classify(keys, options: options, source: source)
            return Detected(format: format, syntax: .jsonLines, header: keys, firstLineIsData: true)
        }
        let tab = text.contains("\t")
        let header = text.split(separator: tab ? "\t" : ",", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: CharacterSet(charactersIn: " \"'"))
        }
        // LSApp files may come without a header: five tab-separated fields ending in an event.
        if tab, header.count == LSAppFormat.header.count, LSAppFormat.events.contains(header[4].lowercased()),
            forced == nil || forced == .lsapp
        {
            return Detected(format: .lsapp, syntax: .tsv, header: LSAppFormat.header, firstLineIsData: true)
        }
        try checkMappedColumns(header, options: options, source: source)
        let format = try classify(header, options: options, source: source)
        return Detected(format: format, syntax: tab ? .tsv : .csv, header: header, firstLineIsData: false)
    }

    /// Every column `--map` names is in the header: a misspelt column would otherwise be ignored
    /// and the file read as some other format.
    static func checkMappedColumns(_ header: [String], options: ReadOptions, source: String) throws(IngestError) {
        let names = Set(header)
        for (column, field) in options.columnMap.sorted(by: { $0.key < $1.key }) where !names.contains(column) {
            throw IngestError(
                .usage, source: source, line: 1,
                message: "--map \(column)=\(field): the header \(HeaderNames(header, map: [:]).quoted) has no column "
                    + "\"\(column)\" (column names are case-sensitive)")
        }
    }

    /// A header with separate date and time-of-day columns (`Date,Time,…`) would read the date
    /// alone as the timestamp: the one-line hint naming the option that joins them.
    static func splitTimestampHint(_ header: [String]) -> String? {
        let dateNames: Set<String> = ["date", "day"]
        let timeNames: Set<String> = ["time", "time of day", "clock", "hour"]
        guard let date = header.first(where: { dateNames.contains($0.lowercased()) }),
            let time = header.first(where: { timeNames.contains($0.lowercased()) })
        else { return nil }
        func arg(_ s: String) -> String { s.contains(" ") ? "\"\(s)\"" : s }
        return "header \(HeaderNames(header, map: [:]).quoted) has the date and the time of day in separate columns: "
            + "read them as one timestamp with --map \(arg(date))=date --map \(arg(time))=time"
    }

    /// The format a header stands for: the stated one (`--input-format`), else the one format whose
    /// signature it has, else the one FetchLab format it fits. A header that fits two formats, or
    /// none, is an error saying what to state.
    static func classify(_ names: [String], options: ReadOptions, source: String) throws(IngestError) -> LogFormat {
        if let forced = options.format { return forced }
        let header = HeaderNames(names, map: options.columnMap)
        let statedUser = options.user != nil
        var signatures: [LogFormat] = []
        var fits: [LogFormat] = []
        for format in LogFormat.allCases {
            guard let decoder = format.delimited else { continue }
            switch decoder.recognise(header, statedUser: statedUser) {
            case .signature: signatures.append(format)
            case .fits: fits.append(format)
            case .no: break
            }
        }
        let candidates = signatures.isEmpty ? fits : signatures
        if candidates.count == 1 { return candidates[0] }
        if candidates.count > 1 {
            let names = candidates.map(\.rawValue)
            throw IngestError(
                .format, source: source, line: 1,
                message: "header \(header.quoted) could be \(names.dropLast().joined(separator: ", ")) "
                    + "or \(names[names.count - 1]) data; say which with --input-format \(names.joined(separator: "|"))"
            )
        }
        throw IngestError(.format, source: source, line: 1, message: unrecognised(header, statedUser: statedUser))
    }

    /// Why a header matches no format, and what to do.
    private static func unrecognised(_ header: HeaderNames, statedUser: Bool) -> String {
        let f = header.fields
        guard f.contains(.timestamp) else {
            return "header \(header.quoted) has no timestamp column; expected a FetchLab header "
                + "(timestamp,user,app[,event]; timestamp,user,battery,…; timestamp,app), an Android battery-sampler "
                + "or LSApp header, or a foreground log line (rename columns with --map COLUMN=FIELD, "
                + "or state the format with --input-format)"
        }
        if f.contains(.app) && f.contains(.event) && !f.contains(.user) && !statedUser {
            return "header \(header.quoted) has app and event columns but no user: for usage events name the user "
                + "with --user NAME (or map a column to user with --map COLUMN=user); "
                + "for content updates use --input-format content"
        }
        if !f.isDisjoint(with: Field.context) && !f.contains(.user) && !statedUser {
            return "header \(header.quoted) has device-context columns but no user: name the user with --user NAME "
                + "or map a column to user with --map COLUMN=user"
        }
        return "header \(header.quoted) names neither an app nor device-context columns "
            + "(rename columns with --map COLUMN=FIELD, or state the format with --input-format)"
    }

    /// The column of each field (indexed by ``Field/ordinal``; -1 when the header has none).
    ///
    /// A column `--map` names is read as the field it is mapped to, whatever the names of the other
    /// columns: an explicit mapping wins over a built-in alias (`--map Time=timestamp` beside a
    /// `Date` column). Of several columns standing for one field, the first is read.
    static func bindColumns(
        _ header: [String], format: LogFormat, options: ReadOptions, source: String
    ) throws(IngestError) -> [Int] {
        var columns = [Int](repeating: -1, count: Field.allCases.count)
        guard let decoder = format.delimited else { return columns }
        for explicit in [true, false] {
            for (index, name) in header.enumerated() {
                let mapped = options.columnMap[name]
                guard (mapped != nil) == explicit,
                    let field = mapped.flatMap(Field.mapTarget) ?? decoder.field(named: (mapped ?? name).lowercased()),
                    columns[field.ordinal] < 0
                else { continue }
                columns[field.ordinal] = index
            }
        }
        if columns[Field.clock.ordinal] >= 0 && columns[Field.date.ordinal] < 0 {
            throw IngestError(
                .usage, source: source, line: 1,
                message: "--map …=time names the time-of-day column of a split timestamp: name its date column "
                    + "with --map COLUMN=date too")
        }
        if columns[Field.duration.ordinal] >= 0 && format != .usage {
            throw IngestError(
                .usage, source: source, line: 1,
                message: "--map …=duration closes each use that much later: it applies to usage logs, "
                    + "not to a \(format.rawValue) file")
        }
        if columns[Field.timestamp.ordinal] >= 0 && columns[Field.date.ordinal] >= 0 {
            throw IngestError(
                .usage, source: source, line: 1,
                message: "the header has a timestamp column and --map …=date names a date column: "
                    + "read one or the other (map the timestamp column to another name)")
        }
        if columns[Field.date.ordinal] < 0, options.columnMap.isEmpty, let hint = splitTimestampHint(header) {
            throw IngestError(.format, source: source, line: 1, message: hint)
        }
        let statedUser = options.user != nil
        let missing = decoder.required(statedUser: statedUser).filter {
            columns[$0.ordinal] < 0 && !($0 == .timestamp && columns[Field.date.ordinal] >= 0)
        }
        if !missing.isEmpty {
            let names = missing.map { decoder.columnName($0) }.joined(separator: ", ")
            let userHint = missing.contains(.user) ? " or name the user with --user NAME" : ""
            throw IngestError(
                .format, source: source, line: 1,
                message: "\(format.rawValue) header \(HeaderNames(header, map: [:]).quoted) lacks \(names); "
                    + "read a column as a field with --map COLUMN=FIELD\(userHint)")
        }
        return columns
    }
}

/// The fields `--map COLUMN=FIELD` can name, for the command line's check and its messages.
public enum MappableField {
    /// FetchLab's field names, in the order the help lists them.
    public static let names: [String] =
        Field.allCases.filter { $0 != .cellular && !Field.mapOnly.contains($0) }.map(\.rawValue)
        + ["date", "time", "duration"]

    /// Whether `name` is a field a column can be read as: a FetchLab field, one of its aliases
    /// (`time`, `package`, …) or a column name of a dataset format (LSApp's, the battery sampler's).
    public static func isKnown(_ name: String) -> Bool {
        let lower = name.lowercased()
        if Field.canonical(lower) != nil || Field.mapTarget(lower) != nil { return true }
        return LogFormat.allCases.contains { $0.delimited?.field(named: lower) != nil }
    }
}
