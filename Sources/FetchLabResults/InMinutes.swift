import FetchLabCore

/// A span that a report holds as a span and writes in minutes (`tau_minutes`, JSON and the
/// store): a model's τ is never a bare Double of minutes. Read back checked, so minutes no span
/// holds (`1e300`) are a decoding error at their key, never a trap.
@propertyWrapper
public struct InMinutes: Sendable, Hashable, Codable {
    public var wrappedValue: Microseconds

    public init(wrappedValue: Microseconds) { self.wrappedValue = wrappedValue }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        let minutes = try c.decode(Double.self)
        guard let span = Microseconds.minutes(checked: minutes) else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "\(minutes) minutes is not a span")
        }
        wrappedValue = span
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(wrappedValue.inMinutes)
    }
}
