import Foundation

/// A partial on disk is JSON lines, read and written a line at a time.
extension ComparisonPartial {
    /// One app's sums, per policy: a line of a partial's file.
    struct AppLine: Codable {
        var app: String
        var sums: [MetricSums]
    }

    /// The partial as JSON lines (sorted keys, so the same run gives the same bytes): a header
    /// (the settings and the sums over all apps, and how many lines of each kind follow), one line
    /// per app (its sums, apps by name), then one line per user, in the partial's order. A reader
    /// holds one line's JSON at a time (``init(headerLine:)``, ``read(line:)``), not the whole
    /// partial's: decoded JSON takes many times its text.
    public func jsonLines(_ body: (Data) throws -> Void) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var header = self
        header.users = []
        header.perApp = [:]
        header.appLines = perApp.count
        header.userLines = users.count
        try body(encoder.encode(header))
        for app in perApp.keys.sorted() { try body(encoder.encode(AppLine(app: app, sums: perApp[app]!))) }
        for u in users { try body(encoder.encode(u)) }
    }

    /// A partial from its header line (``jsonLines(_:)``): ``linesToRead`` lines follow, each given
    /// to ``read(line:)``.
    public init(headerLine: Data) throws {
        self = try JSONDecoder().decode(Self.self, from: headerLine)
    }

    /// How many lines the header says are still to read (nil: the header does not say, a partial
    /// not read from lines).
    public var linesToRead: Int? {
        guard let appLines, let userLines, (0...Int(Int32.max)).contains(appLines),
            (0...Int(Int32.max)).contains(userLines)
        else { return nil }
        return appLines - perApp.count + userLines - users.count
    }

    /// How many lines follow the header, as it gives them (0: not read from lines).
    public var linesGiven: Int { (appLines ?? 0) + (userLines ?? 0) }

    /// What was read of the lines the header gives, for a file cut short.
    public var readSoFar: String {
        let (apps, users) = (appLines ?? 0, userLines ?? 0)
        return perApp.count < apps
            ? "\(perApp.count) of the \(apps) apps' sums its header gives"
            : "\(self.users.count) of the \(users) users its header gives"
    }

    /// Adds the app or user on `line` (the next of the lines after the header); a user that cannot
    /// be is refused (``PartialProblem``, naming its field).
    public mutating func read(line: Data) throws {
        // The header holds no app's sums: those read so far are the app lines read.
        if perApp.count < appLines ?? 0 {
            let a = try JSONDecoder().decode(AppLine.self, from: line)
            guard perApp.updateValue(a.sums, forKey: a.app) == nil else {
                throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "app \(a.app) twice"))
            }
        } else {
            let user = try JSONDecoder().decode(User.self, from: line)
            try user.check(
                policies: configuration.policies.count, maxFetchBytes: configuration.settings.cost.maxFetchBytes)
            users.append(user)
        }
    }
}
