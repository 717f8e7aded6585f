import FetchLabCore
import FetchLabIngest
import Foundation

/// The one error type of the generator: a one-line message.
public struct SynthError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// What `fetchlab generate` makes, and how.
public struct GenerateOptions: Sendable {
    public var users: Int
    public var days: Int
    public var seed: UInt64
    /// The first local day, as days since 1970 (see ``CivilTime/parseDate(_:)``).
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

/// Counts and sizes of a generated population.
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
}

/// Writes a synthetic population: `usage.csv.gz`, `context.csv.gz`, `content.csv.gz` (FetchLab's
/// own formats) and `truth.json` (every user's habits). Users are simulated in parallel chunks,
/// each chunk a gzip member, written in order: the same options give the same bytes, and memory
/// holds a few chunks whatever the population's size.
public struct Generator: Sendable {
    public static let files = ["usage.csv.gz", "context.csv.gz", "content.csv.gz", "truth.json"]
    public let options: GenerateOptions

    public init(options: GenerateOptions) throws(SynthError) {
        guard options.users >= 1 else { throw SynthError("--users must be at least 1") }
        guard options.days >= 1 else { throw SynthError("--days must be at least 1") }
        guard (1...9).contains(options.level) else { throw SynthError("--level must be 1…9") }
        let problems = options.config.problems()
        guard problems.isEmpty else { throw SynthError("config: " + problems.joined(separator: "; ")) }
        self.options = options
    }

    /// One user's truth and simulated logs, in memory (for tests and notebooks).
    public func simulate(user index: Int) -> (truth: UserTruth, events: [SimulatedEvent], context: [SimulatedContext]) {
        let truth = PersonaFactory(config: options.config, seed: options.seed, days: options.days).user(index)
        return simulate(truth: truth, index: index)
    }

    /// Simulates a given truth (a hand-made persona in tests).
    public func simulate(truth: UserTruth, index: Int = 0) -> (
        truth: UserTruth, events: [SimulatedEvent], context: [SimulatedContext]
    ) {
        var sim = UserSimulator(
            truth: truth, config: options.config, seed: options.seed, index: index, startDay: options.startDay)
        var events: [SimulatedEvent] = []
        var context: [SimulatedContext] = []
        for d in 0..<options.days { sim.simulateDay(d, events: &events, context: &context) }
        return (truth, events, context)
    }

    private struct Chunk: Sendable {
        var usage: [UInt8] = []
        var context: [UInt8] = []
        var truth: [UInt8] = []
        var events = 0
        var samples = 0
    }

    private func makeChunk(_ chunk: Int) -> Chunk {
        let factory = PersonaFactory(config: options.config, seed: options.seed, days: options.days)
        let first = chunk * options.usersPerChunk
        let last = min(options.users, first + options.usersPerChunk)
        let usage = GzipMemberWriter(level: options.level)
        let context = GzipMemberWriter(level: options.level)
        if chunk == 0 {
            usage.write("timestamp,user,app,event\n")
            context.write("timestamp,user,battery,charging,network,low_power\n")
        }
        var result = Chunk()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var line: [UInt8] = []
        line.reserveCapacity(1 << 20)
        for index in first..<last {
            let truth = factory.user(index)
            var sim = UserSimulator(
                truth: truth, config: options.config, seed: options.seed, index: index, startDay: options.startDay)
            let name = Array(truth.name.utf8)
            let apps = truth.apps.map { Array($0.app.utf8) }
            var events: [SimulatedEvent] = []
            var samples: [SimulatedContext] = []
            for d in 0..<options.days {
                events.removeAll(keepingCapacity: true)
                samples.removeAll(keepingCapacity: true)
                sim.simulateDay(d, events: &events, context: &samples)
                line.removeAll(keepingCapacity: true)
                for e in events {
                    TimestampFormatter.append(utc: e.utc, offset: e.offset, to: &line)
                    line.append(0x2C)
                    line += name
                    line.append(0x2C)
                    line += apps[e.app]
                    line.append(0x2C)
                    line += e.kind.name.utf8
                    line.append(0x0A)
                }
                usage.write(line)
                line.removeAll(keepingCapacity: true)
                for c in samples {
                    TimestampFormatter.append(utc: c.utc, offset: c.offset, to: &line)
                    line.append(0x2C)
                    line += name
                    line.append(0x2C)
                    line += String(c.battery).utf8
                    line += (c.charging ? ",true," : ",false,").utf8
                    line += c.network.name.utf8
                    line += (c.lowPower ? ",true\n" : ",false\n").utf8
                }
                context.write(line)
                result.events += events.count
                result.samples += samples.count
            }
            let json = (try? encoder.encode(truth)) ?? Data("{}".utf8)
            result.truth += Array((index == 0 ? "    " : ",\n    ").utf8) + Array(json)
        }
        result.usage = usage.finish()
        result.context = context.finish()
        return result
    }

    /// Writes the four files into `directory` (created if needed). `progress` gets users done.
    public func write(to directory: String, progress: (@Sendable (Int) -> Void)? = nil) throws(SynthError)
        -> GenerateSummary
    {
        let clock = ContinuousClock()
        let started = clock.now
        let dir = URL(fileURLWithPath: directory)
        do {
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        } catch {
            throw SynthError("\(directory): cannot create the directory: \(error.localizedDescription)")
        }
        var summary = GenerateSummary(
            users: options.users, days: options.days, seed: options.seed, start: Self.dateText(options.startDay))
        // Each file is written under a temporary name and renamed at the end: no half-written output.
        var handles: [FileHandle] = []
        let temporary = Self.files.map { dir.appendingPathComponent(".\($0).partial") }
        for url in temporary {
            guard FileManager.default.createFile(atPath: url.path, contents: nil),
                let handle = try? FileHandle(forWritingTo: url)
            else {
                for h in handles { try? h.close() }
                for u in temporary { try? FileManager.default.removeItem(at: u) }
                throw SynthError("\(url.deletingLastPathComponent().path): cannot write \(url.lastPathComponent)")
            }
            handles.append(handle)
        }
        do {
            defer { for h in handles { try? h.close() } }
            // Content updates (global, small).
            let content = GzipMemberWriter(level: options.level)
            content.write("timestamp,app\n")
            var rows: [(utc: Int, offset: Int, app: Int)] = []
            for (i, app) in AppCatalog.apps.enumerated() {
                for u in ContentSimulator.updates(
                    app.content, startDay: options.startDay, days: options.days, seed: options.seed, stream: i)
                {
                    rows.append((u.utc, u.offset, i))
                }
            }
            rows.sort { $0.utc != $1.utc ? $0.utc < $1.utc : $0.app < $1.app }
            var line: [UInt8] = []
            for r in rows {
                TimestampFormatter.append(utc: r.utc, offset: r.offset, to: &line)
                line.append(0x2C)
                line += AppCatalog.apps[r.app].name.utf8
                line.append(0x0A)
            }
            content.write(line)
            summary.contentUpdates = rows.count
            try handles[2].write(contentsOf: content.finish())

            try handles[3].write(contentsOf: Data(try truthHeader().utf8))
            let chunks = (options.users + options.usersPerChunk - 1) / options.usersPerChunk
            let wave = max(2, ProcessInfo.processInfo.activeProcessorCount * 2)
            var next = 0
            while next < chunks {
                let count = min(wave, chunks - next)
                let results = ParallelMap.map(Array(next..<(next + count))) { makeChunk($0) }
                for c in results {
                    try handles[0].write(contentsOf: c.usage)
                    try handles[1].write(contentsOf: c.context)
                    try handles[3].write(contentsOf: c.truth)
                    summary.usageEvents += c.events
                    summary.contextSamples += c.samples
                }
                next += count
                progress?(min(options.users, next * options.usersPerChunk))
            }
            try handles[3].write(contentsOf: Data("\n  ]\n}\n".utf8))
        } catch let error as SynthError {
            for u in temporary { try? FileManager.default.removeItem(at: u) }
            throw error
        } catch {
            for u in temporary { try? FileManager.default.removeItem(at: u) }
            throw SynthError("\(directory): write failed: \(error.localizedDescription)")
        }
        for (name, url) in zip(Self.files, temporary) {
            let final = dir.appendingPathComponent(name)
            _ = rename(url.path, final.path)
            summary.files[name] = ((try? FileManager.default.attributesOfItem(atPath: final.path))?[.size] as? Int) ?? 0
        }
        let d = clock.now - started
        summary.seconds = Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
        return summary
    }

    static func dateText(_ day: Int) -> String {
        let (y, m, d) = CivilTime.date(days: day)
        return String(format: "%04d-%02d-%02d", y, m, d)
    }

    /// The truth file up to the opening of the users array: generator, config, apps.
    private func truthHeader() throws(SynthError) -> String {
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
            start: Self.dateText(options.startDay),
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
