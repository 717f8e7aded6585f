import FetchLabCore
import Foundation

/// The one error type of the generator: a one-line message.
public struct SynthError: FetchLabError {
    public enum Code: String, Sendable, Hashable {
        /// A count or level outside what the generator takes (`--users 0`): a usage error.
        case usage
        /// A population configuration (`--config FILE`) that cannot be read.
        case config
        /// The population's files could not be written.
        case io
    }

    public var code: Code
    public var message: String
    public init(_ message: String, code: Code = .io) {
        self.code = code
        self.message = message
    }
    public var description: String { message }
    public var isUsageError: Bool { code == .usage }
}

/// What `fetchlab generate` makes, and how.
public struct GenerateOptions: Sendable {
    public var users: Int
    public var days: Int
    public var seed: UInt64
    /// The first local day, as days since 1970 (`CivilDate.daysSince1970`).
    public var startDay: Int
    public var config = PopulationConfig()
    /// gzip level 1–9.
    public var level: Int32 = 6
    /// Users per gzip member (the unit of parallel work).
    public var usersPerChunk = 64
    /// The command line that made the output, recorded in the truth file.
    public var command: String = ""

    public init(users: Int, days: Int, seed: UInt64, startDay: Int) {
        self.users = users
        self.days = days
        self.seed = seed
        self.startDay = startDay
    }
}

/// One simulated user: the habits the generator drew, and the history they produced (launches,
/// other events and context samples, with the user's UTC offsets; the user's name and apps).
public struct SimulatedUser: Sendable {
    public var truth: UserTruth
    public var history: UserHistory
}

/// A synthetic population, simulated deterministically from a seed: every user's habits and logs,
/// and the content updates of the app catalogue. Pure: writing the files is
/// `FetchLabDatasets.PopulationWriter`'s job. The same options give the same population.
public struct Generator: Sendable {
    public let options: GenerateOptions

    public init(options: GenerateOptions) throws(SynthError) {
        guard options.users >= 1 else { throw SynthError("--users must be at least 1", code: .usage) }
        guard options.days >= 1 else { throw SynthError("--days must be at least 1", code: .usage) }
        guard (1...9).contains(options.level) else { throw SynthError("--level must be 1…9", code: .usage) }
        let problems = options.config.problems()
        guard problems.isEmpty else { throw SynthError("config: " + problems.joined(separator: "; "), code: .config) }
        self.options = options
    }

    /// One user of the population.
    public func simulate(user index: Int) -> SimulatedUser {
        let truth = PersonaFactory(config: options.config, seed: options.seed, days: options.days).user(index)
        return simulate(truth: truth, index: index)
    }

    /// Simulates a given truth (a hand-made persona in tests).
    public func simulate(truth: UserTruth, index: Int = 0) -> SimulatedUser {
        var sim = UserSimulator(
            truth: truth, config: options.config, seed: options.seed, index: index, startDay: options.startDay)
        var events: [SimulatedEvent] = []
        var context: [SimulatedContext] = []
        for d in 0..<options.days { sim.simulateDay(d, events: &events, context: &context) }
        let all = events.map(\.usageEvent)
        var truth = truth
        var apps = truth.apps.map { AppID($0.app) }
        if options.config.hasSignals {
            truth.signals = sim.signalTruth
            apps.append(.device)  // the app of unlocks and screen-on (UserSimulator.deviceApp)
        }
        let history = UserHistory(
            user: UserID(truth.name), apps: apps,
            launches: all.filter { $0.kind == .launch }, events: all.filter { $0.kind != .launch },
            context: context.map(\.contextSample))
        return SimulatedUser(truth: truth, history: history)
    }

    /// Users `range` of the population, simulated on all cores, in order.
    public func simulate(users range: Range<Int>) -> [SimulatedUser] {
        let factory = PersonaFactory(config: options.config, seed: options.seed, days: options.days)
        return ParallelMap.map(Array(range)) { index in simulate(truth: factory.user(index), index: index) }
    }

    /// The apps of the catalogue (content updates index this list).
    public static var catalogue: [AppID] { AppCatalog.apps.map { AppID($0.name) } }

    /// Every content update of the catalogue's apps over the population's days, in time order
    /// (ties by app), each with the offset of its publisher's clock.
    public func contentUpdates() -> [ContentUpdate] {
        var rows: [ContentUpdate] = []
        for (i, app) in AppCatalog.apps.enumerated() {
            for u in ContentSimulator.updates(
                app.content, startDay: options.startDay, days: options.days, seed: options.seed, stream: i)
            {
                rows.append(
                    ContentUpdate(
                        time: Instant(secondsSince1970: Int64(u.utc)), app: Int32(i), utcOffset: Int32(u.offset)))
            }
        }
        rows.sort { $0.time != $1.time ? $0.time < $1.time : $0.app < $1.app }
        return rows
    }

    /// The first day as `YYYY-MM-DD`.
    public var startText: String { CivilDate(daysSince1970: options.startDay).description }

    /// One user's entry of the truth file (sorted keys, one line).
    public static func truthJSON(_ truth: UserTruth) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array((try? encoder.encode(truth)) ?? Data("{}".utf8))
    }

    /// The truth file up to the opening of the users array: generator, config, apps.
    public func truthHeader() throws(SynthError) -> String {
        struct AppEntry: Encodable {
            var name: String
            var content: ContentProcess
            var expectedUpdatesPerDay: Double
        }
        struct Generated: Encodable {
            var command: String
            var users: Int
            var days: Int
            var seed: UInt64
            var start: String
            var note: String
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        func json<T: Encodable>(_ value: T) throws(SynthError) -> String {
            do { return String(decoding: try encoder.encode(value), as: UTF8.self) } catch {
                throw SynthError("cannot encode the truth file: \(error)")
            }
        }
        let generated = Generated(
            command: options.command, users: options.users, days: options.days, seed: options.seed,
            start: startText,
            note: "Minutes are local minutes of the day in the user's zone (a trip's zone on trip days); "
                + "days are counted from start (day 0). A peak's expected minute on day d is "
                + "minute (or weekendMinute) + driftMinutesPerWeek * d / 7.")
        let apps = AppCatalog.apps.map {
            AppEntry(
                name: $0.name, content: $0.content,
                expectedUpdatesPerDay: ($0.content.expectedPerDay * 100).rounded() / 100)
        }
        return "{\n  \"generator\": \(try json(generated)),\n  \"config\": \(try json(options.config)),\n"
            + "  \"apps\": [\n    \(try apps.map { (a) throws(SynthError) in try json(a) }.joined(separator: ",\n    "))\n  ],\n"
            + "  \"users\": [\n"
    }
}
