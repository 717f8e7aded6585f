/// An optional statistic that JSON writes as `null` when it cannot be computed (the synthesized
/// encoding would leave the key out), so that scripts reading `fetchlab describe --format json`
/// see the same keys for every database.
@propertyWrapper
public struct NullWhenAbsent<Value: Codable & Sendable & Equatable>: Codable, Sendable, Equatable {
    public var wrappedValue: Value?

    public init(wrappedValue: Value?) { self.wrappedValue = wrappedValue }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        wrappedValue = c.decodeNil() ? nil : try c.decode(Value.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        if let wrappedValue { try c.encode(wrappedValue) } else { try c.encodeNil() }
    }
}

extension NullWhenAbsent: Hashable where Value: Hashable {}
