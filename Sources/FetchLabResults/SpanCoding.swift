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

extension KeyedDecodingContainer {
    /// A span written as a number of `unit`s (`.perSecond`, `.perMinute`, `.perHour`, `.perDay`),
    /// read back checked: a number no span holds is a `DecodingError` at `key`, never a trap.
    public func decodeSpan(_ unit: Microseconds, forKey key: Key) throws -> Microseconds {
        try span(try decode(Double.self, forKey: key), unit, key)
    }

    /// As ``decodeSpan(_:forKey:)``, `absent` units when the key is missing (a file written before
    /// the setting existed).
    public func decodeSpan(_ unit: Microseconds, forKey key: Key, absent: Double) throws -> Microseconds {
        try span(try decodeIfPresent(Double.self, forKey: key) ?? absent, unit, key)
    }

    private func span(_ value: Double, _ unit: Microseconds, _ key: Key) throws -> Microseconds {
        guard let span = Microseconds.checked(value, per: unit) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "\(value) is not a span")
        }
        return span
    }
}
