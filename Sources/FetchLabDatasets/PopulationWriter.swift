import FetchLabCore
import FetchLabIngest
import FetchLabResults
import FetchLabScale
import FetchLabSynth
import Foundation

/// Writes a generated population as FetchLab's own log formats: `usage.csv.gz`,
/// `context.csv.gz`, `content.csv.gz` and `truth.json` (every user's habits). Users are simulated
/// in parallel chunks, each chunk a gzip member, written in order: the same options give the same
/// bytes, and memory holds a few chunks whatever the population's size.
public struct PopulationWriter: Sendable {
    public static let files = ["usage.csv.gz", "context.csv.gz", "content.csv.gz", "truth.json"]
    public let generator: Generator
    /// Where the temporary files are registered (removed on an error or a signal).
    public let partialFiles: PartialFiles

    public init(generator: Generator, partialFiles: PartialFiles = .shared) {
        self.generator = generator
        self.partialFiles = partialFiles
    }

    private var options: GenerateOptions { generator.options }

    private struct Chunk: Sendable {
        var usage: [UInt8] = []
        var context: [UInt8] = []
        var truth: [UInt8] = []
        var events = 0
        var samples = 0
    }

    /// A usage line: `timestamp,user,app,event`.
    static func appendUsage(_ e: UsageEvent, user: [UInt8], apps: [[UInt8]], to line: inout [UInt8]) {
        ISOTimestamp.append(e.time, offset: e.utcOffset, to: &line)
        line.append(0x2C)
        line += user
        line.append(0x2C)
        line += apps[Int(e.app)]
        line.append(0x2C)
        line += e.kind.name.utf8
        line.append(0x0A)
    }

    /// A context line: `timestamp,user,battery,charging,network,low_power`.
    static func appendContext(_ c: ContextSample, user: [UInt8], to line: inout [UInt8]) {
        ISOTimestamp.append(c.time, offset: c.utcOffset, to: &line)
        line.append(0x2C)
        line += user
        line.append(0x2C)
        line += (c.battery.map { String(Int($0)) } ?? "").utf8
        line += (c.charging == true ? ",true," : ",false,").utf8
        line += (c.network ?? NetworkType.none).name.utf8
        line += (c.lowPower == true ? ",true\n" : ",false\n").utf8
    }

    private func makeChunk(_ chunk: Int) -> Chunk {
        let first = chunk * options.usersPerChunk
        let last = min(options.users, first + options.usersPerChunk)
        let usage = GzipMemberWriter(level: options.level)
        let context = GzipMemberWriter(level: options.level)
        if chunk == 0 {
            usage.write("timestamp,user,app,event\n")
            context.write("timestamp,user,battery,charging,network,low_power\n")
        }
        var result = Chunk()
        var line: [UInt8] = []
        line.reserveCapacity(1 << 20)
        for index in first..<last {
            let user = generator.simulate(user: index)
            let h = user.history
            let name = Array(h.user.name.utf8)
            let apps = h.apps.map { Array($0.name.utf8) }
            line.removeAll(keepingCapacity: true)
            for event in h.allEvents {
                Self.appendUsage(event, user: name, apps: apps, to: &line)
                if line.count > 1 << 20 {
                    usage.write(line)
                    line.removeAll(keepingCapacity: true)
                }
            }
            usage.write(line)
            line.removeAll(keepingCapacity: true)
            for c in h.context {
                Self.appendContext(c, user: name, to: &line)
                if line.count > 1 << 20 {
                    context.write(line)
                    line.removeAll(keepingCapacity: true)
                }
            }
            context.write(line)
            result.events += h.launches.count + h.events.count
            result.samples += h.context.count
            result.truth += Array((index == 0 ? "    " : ",\n    ").utf8) + Generator.truthJSON(user.truth)
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
            users: options.users, days: options.days, seed: options.seed, start: generator.startText)
        // Each file is written under a temporary name and renamed at the end: no half-written output.
        let temporaryNames = Self.files.map { ".\($0).partial" }
        let targets = Self.files.map { dir.appendingPathComponent($0).path }
        guard let handles = partialFiles.create(Array(zip(targets, temporaryNames))) else {
            if partialFiles.isStopping { throw SynthError("\(directory): interrupted") }
            throw SynthError("\(directory): cannot write \(temporaryNames[0])")
        }
        do {
            // Content updates (global, small).
            let content = GzipMemberWriter(level: options.level)
            content.write("timestamp,app\n")
            let updates = generator.contentUpdates()
            let names = Generator.catalogue.map { Array($0.name.utf8) }
            var line: [UInt8] = []
            for u in updates {
                ISOTimestamp.append(u.time, offset: u.utcOffset, to: &line)
                line.append(0x2C)
                line += names[Int(u.app)]
                line.append(0x0A)
            }
            content.write(line)
            summary.contentUpdates = updates.count
            try handles[2].write(content.finish())

            try handles[3].write(Array(try generator.truthHeader().utf8))
            let chunks = (options.users + options.usersPerChunk - 1) / options.usersPerChunk
            let wave = max(2, ProcessInfo.processInfo.activeProcessorCount * 2)
            var next = 0
            while next < chunks {
                let count = min(wave, chunks - next)
                let results = ParallelMap.map(Array(next..<(next + count))) { makeChunk($0) }
                for c in results {
                    try handles[0].write(c.usage)
                    try handles[1].write(c.context)
                    try handles[3].write(c.truth)
                    summary.usageEvents += c.events
                    summary.contextSamples += c.samples
                }
                next += count
                progress?(min(options.users, next * options.usersPerChunk))
            }
            try handles[3].write(Array("\n  ]\n}\n".utf8))
        } catch let error as SynthError {
            partialFiles.discard(handles)
            throw error
        } catch let error as ScaleError {
            partialFiles.discard(handles)
            throw SynthError("\(directory): write failed: \(error.message)")
        } catch {
            partialFiles.discard(handles)
            throw SynthError("\(directory): write failed: \(error.localizedDescription)")
        }
        guard partialFiles.commit(handles) else {
            throw SynthError(
                "\(directory): cannot put the finished files in place (is one of \(Self.files.joined(separator: ", ")) "
                    + "a directory, or was the run interrupted?); nothing was written")
        }
        for (name, final) in zip(Self.files, targets) {
            summary.files[name] = ((try? FileManager.default.attributesOfItem(atPath: final))?[.size] as? Int) ?? 0
        }
        summary.seconds = (clock.now - started).seconds
        return summary
    }
}

extension Duration {
    /// This duration in seconds.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
