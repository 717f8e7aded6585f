import ArgumentParser
import FetchLabCore

/// A duration option (`--lead 10m`, `--session-gap 5m`, `--horizon 24h`), parsed once.
struct DurationArgument: ExpressibleByArgument, Sendable, CustomStringConvertible {
    var microseconds: Microseconds

    init(_ microseconds: Microseconds) { self.microseconds = microseconds }

    init?(argument: String) {
        guard let us = Quantity.duration(argument) else { return nil }
        microseconds = us
    }

    var minutes: Double { microseconds.inMinutes }
    var description: String { Quantity.format(duration: microseconds) }
    var defaultValueDescription: String { description }
}

/// A byte-size option (`--max-size 50G`), parsed once.
struct ByteSizeArgument: ExpressibleByArgument, Sendable, CustomStringConvertible {
    var bytes: Int64

    init?(argument: String) {
        guard let b = Quantity.bytes(argument) else { return nil }
        bytes = b
    }

    var description: String { "\(bytes)" }
}

extension CivilDate: ExpressibleByArgument {
    public init?(argument: String) { self.init(argument) }
    public var defaultValueDescription: String { description }
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
