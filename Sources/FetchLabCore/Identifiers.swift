/// A user (or a device standing for one) as named in the logs.
public struct UserID: Hashable, Comparable, Sendable, Codable, CustomStringConvertible, ExpressibleByStringLiteral {
    public var name: String
    public init(_ name: String) { self.name = name }
    public init(stringLiteral name: String) { self.name = name }
    public var description: String { name }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.name < rhs.name }
}

/// An app as named in the logs (a bundle identifier or Android package).
public struct AppID: Hashable, Comparable, Sendable, Codable, CustomStringConvertible, ExpressibleByStringLiteral {
    public var name: String
    public init(_ name: String) { self.name = name }
    public init(stringLiteral name: String) { self.name = name }
    public var description: String { name }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.name < rhs.name }
}

extension AppID {
    /// The app of a device signal (``UsageEventKind/unlock``, ``UsageEventKind/screenOn``):
    /// `(device)`, never a real package name. It has no launches, so it is never evaluated.
    public static let device = AppID("(device)")
}
