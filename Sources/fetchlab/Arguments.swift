import ArgumentParser
import FetchLabCore
import FetchLabSimulation

/// A duration option (`--lead 10m`, `--session-gap 5m`, `--horizon 24h`), parsed once.
struct DurationArgument: ExpressibleByArgument, Sendable, CustomStringConvertible {
    var microseconds: Microseconds
    /// The value as typed when it is a bare number other than 0 (`--tau 15`): read (as seconds)
    /// but refused by the option's check (``Bounds/check(_:_:_:note:)-(_,DurationArgument,_,_)``),
    /// which names the option: "--tau 15: 15 what? give a unit, e.g. 15m".
    var unitless: String?

    init(_ microseconds: Microseconds) { self.microseconds = microseconds }

    /// A leading `-` is read too (`--horizon -5h`), so that the command's range check names the
    /// option and its range instead of ArgumentParser's "Missing value".
    init?(argument: String) {
        if Quantity.isUnitless(argument) { unitless = argument.trimmingCharacters(in: .whitespaces) }
        if argument.hasPrefix("-") {
            guard let us = Quantity.duration(String(argument.dropFirst())), us > 0 else { return nil }
            microseconds = -us
            return
        }
        guard let us = Quantity.duration(argument) else { return nil }
        microseconds = us
    }

    var description: String { Quantity.format(duration: microseconds) }
    var defaultValueDescription: String { description }
}

/// A byte-size option (`--max-size 50G`), parsed once.
struct ByteSizeArgument: ExpressibleByArgument, Sendable, CustomStringConvertible {
    var bytes: Int64
    /// As written (help shows a default as given, `1GB`, not in bytes).
    var text: String

    init?(argument: String) {
        guard let b = Quantity.bytes(argument) else { return nil }
        bytes = b
        text = argument
    }

    /// A default from a model's bytes, written in kB or MB when whole (`150kB`).
    init(bytes: Int64) {
        self.bytes = bytes
        text =
            bytes % 1_000_000 == 0 && bytes > 0
            ? "\(bytes / 1_000_000)MB" : bytes % 1_000 == 0 && bytes > 0 ? "\(bytes / 1_000)kB" : "\(bytes)"
    }

    var defaultValueDescription: String { text }

    var description: String { "\(bytes)" }
}

/// An option whose values are an enum's names (`--platform ios`, `--format json`): read in any
/// case (`--platform iOS`, `--format JSON`), listed in help as the names are written. Every
/// enumerated option conforms to this instead of `ExpressibleByArgument` directly.
protocol CaseInsensitiveArgument: ExpressibleByArgument, CaseIterable, RawRepresentable where RawValue == String {}

extension CaseInsensitiveArgument {
    // Public: the public types of other modules (PlatformKind, LogFormat) take it as their witness.
    public init?(argument: String) {
        let wanted = argument.lowercased()
        guard let match = Self.allCases.first(where: { $0.rawValue.lowercased() == wanted }) else { return nil }
        self = match
    }
}

extension CivilDate: ExpressibleByArgument {
    public init?(argument: String) { self.init(argument) }
    public var defaultValueDescription: String { description }
}

/// Range checks of numeric options, run by the commands' `validate()`: at parse time, before
/// anything is opened or written, one line naming the option, the value and its range (exit 64).
/// Numeric options parse with `parsing: .unconditional`, so `--users -1` is read as a value and
/// refused here instead of ArgumentParser's "Missing value".
enum Bounds {
    static func check<T: Comparable>(
        _ option: String, _ value: T, _ range: ClosedRange<T>, _ text: (T) -> String = { "\($0)" }, note: String = ""
    ) throws {
        guard range.contains(value) else {
            throw ValidationError(
                "\(option) \(text(value)) is out of range: expected \(text(range.lowerBound)) to "
                    + "\(text(range.upperBound))\(note)")
        }
    }

    /// A duration option: first that it has a unit (a bare number other than 0 is refused: "--tau
    /// 15: 15 what? give a unit, e.g. 15m"), then its range.
    static func check(
        _ option: String, _ value: DurationArgument, _ range: ClosedRange<Microseconds>, note: String = ""
    )
        throws
    {
        if let bare = value.unitless { throw ValidationError("\(option) \(bare): \(Quantity.unitQuestion(bare))") }
        try check(option, value.microseconds, range, { Quantity.format(duration: $0) }, note: note)
    }

    static func check(_ option: String, _ value: Double, _ range: ClosedRange<Double>, note: String = "") throws {
        try check(option, value, range, { Format.decimal($0) }, note: note)
    }
}

/// A number of seconds within bounds (`--busy-timeout 600`): a finite number from 0 to a day.
struct BoundedSeconds: ExpressibleByArgument, Sendable, CustomStringConvertible {
    var seconds: Double

    static let range = 0...Double(Seconds.perDay)

    init(_ seconds: Double) { self.seconds = seconds }

    init?(argument: String) {
        guard let s = Double(argument), s.isFinite, Self.range.contains(s)
        else { return nil }
        seconds = s
    }

    var description: String { seconds == seconds.rounded() ? "\(Int(seconds))" : "\(seconds)" }
    var defaultValueDescription: String { description }
}

/// `tune --search`.
enum SearchMethodArgument: String, CaseInsensitiveArgument {
    case grid, random, coordinate, halving
    var method: SearchMethod { SearchMethod(rawValue: rawValue)! }
}

/// `tune --split`.
enum SplitArgument: String, CaseInsensitiveArgument {
    case time, users
}

/// `--policies`: the list parsed once, as it is read, into policy values. A name that cannot be
/// read is kept as its error, for the command's `validate()` to report with the option's name
/// (ArgumentParser's own message for a value it refuses would drop the registry's reason).
struct PolicyListArgument: ExpressibleByArgument, Sendable {
    var parsed: Result<[any FetchPolicy], PolicyRegistry.ParseError>

    init(argument: String) {
        parsed = Result { () throws(PolicyRegistry.ParseError) in try PolicyRegistry.parseList(argument) }
    }
}

extension UserShard {
    /// `--shard I/N` of `compare` and `tune`, or the one usage error both give for it.
    static func option(_ text: String) throws -> UserShard {
        guard let shard = UserShard(text) else {
            throw ValidationError("--shard \(text): give I/N with 1 ≤ I ≤ N ≤ 1,000,000 (e.g. 2/8)")
        }
        return shard
    }
}
