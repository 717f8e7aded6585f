/// A JSON key made at run time (`fetchAt`, `fetchAt_us`).
public struct JSONKey: CodingKey, Sendable {
    public var stringValue: String
    public var intValue: Int? { nil }
    public init(_ s: String) { stringValue = s }
    public init?(stringValue: String) { self.stringValue = stringValue }
    public init?(intValue: Int) { nil }
}

/// How every command's JSON gives a time: ISO-8601 on the user's clock with its offset
/// (`"fetchAt": "2024-03-20T07:50:00+02:00"`) and UTC microseconds next to it
/// (`"fetchAt_us": 1710913800000000`).
extension KeyedEncodingContainer where K == JSONKey {
    /// `key`: the ISO-8601 text of `t` at `offset` seconds east of UTC; `key_us`: `t`. Both null
    /// when `t` is nil.
    public mutating func encodeTime(_ t: Instant?, offset: Int, forKey key: String) throws {
        guard let t else {
            try encodeNil(forKey: JSONKey(key))
            try encodeNil(forKey: JSONKey(key + "_us"))
            return
        }
        try encode(ISO8601.local(t, offset: offset), forKey: JSONKey(key))
        try encode(t.sinceEpoch, forKey: JSONKey(key + "_us"))
    }
}

extension KeyedDecodingContainer where K == JSONKey {
    /// The time written by ``KeyedEncodingContainer/encodeTime(_:offset:forKey:)``, read from
    /// `key_us`; a document written before times had their ISO-8601 text holds the microseconds
    /// under `key` itself, and reads the same.
    public func decodeTime(forKey key: String) throws -> Instant {
        if let t = try decodeIfPresent(Microseconds.self, forKey: JSONKey(key + "_us")) {
            return Instant(sinceEpoch: t)
        }
        return Instant(sinceEpoch: try decode(Microseconds.self, forKey: JSONKey(key)))
    }
}
