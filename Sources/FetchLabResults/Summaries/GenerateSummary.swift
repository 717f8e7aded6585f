/// Counts and sizes of a written population.
public struct GenerateSummary: Codable, Sendable {
    public var users: Int
    public var days: Int
    public var seed: UInt64
    public var start: String
    public var usageEvents = 0
    public var contextSamples = 0
    public var contentUpdates = 0
    /// File name → bytes written.
    public var files: [String: Int] = [:]
    public var seconds = 0.0

    public init(users: Int, days: Int, seed: UInt64, start: String) {
        self.users = users
        self.days = days
        self.seed = seed
        self.start = start
    }
}
