import Foundation

/// Test helpers shared by the test targets (not public API: hence the underscore).

/// A fresh temporary directory, removed when the value is released.
public final class TemporaryDirectory: @unchecked Sendable {
    public let url: URL

    public init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("fetchlab-test-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Writes `text` to `name` and returns the path.
    @discardableResult
    public func write(_ name: String, _ text: String) throws -> String {
        try write(name, Data(text.utf8))
    }

    @discardableResult
    public func write(_ name: String, _ data: Data) throws -> String {
        let p = path(name)
        try data.write(to: URL(fileURLWithPath: p))
        return p
    }

    /// Writes `text` gzip'd by the system's gzip and returns the path.
    @discardableResult
    public func writeGzip(_ name: String, _ text: String) throws -> String {
        try write(name, try gzip(Data(text.utf8)))
    }
}

/// Compresses with the real `gzip` binary.
public func gzip(_ data: Data, arguments: [String] = ["-c", "-n"]) throws -> Data {
    try run("/usr/bin/env", ["gzip"] + arguments, input: data).stdout
}

/// Result of running a process.
public struct ProcessResult: Sendable {
    public var status: Int32
    public var stdout: Data
    public var stderr: Data
    public var out: String { String(decoding: stdout, as: UTF8.self) }
    public var err: String { String(decoding: stderr, as: UTF8.self) }
}

/// Runs a program with optional standard input and collects its output.
public func run(
    _ executable: String, _ arguments: [String], input: Data? = nil, cwd: String? = nil,
    environment: [String: String] = [:]
) throws -> ProcessResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if !environment.isEmpty {
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    }
    if let cwd { process.currentDirectoryURL = URL(fileURLWithPath: cwd) }
    let outPipe = Pipe()
    let errPipe = Pipe()
    let inPipe = Pipe()
    process.standardOutput = outPipe
    process.standardError = errPipe
    process.standardInput = input == nil ? FileHandle.nullDevice : inPipe
    try process.run()
    let group = DispatchGroup()
    nonisolated(unsafe) var out = Data()
    nonisolated(unsafe) var err = Data()
    group.enter()
    DispatchQueue.global().async {
        out = outPipe.fileHandleForReading.readDataToEndOfFile()
        group.leave()
    }
    group.enter()
    DispatchQueue.global().async {
        err = errPipe.fileHandleForReading.readDataToEndOfFile()
        group.leave()
    }
    if let input {
        inPipe.fileHandleForWriting.write(input)
        try? inPipe.fileHandleForWriting.close()
    }
    process.waitUntilExit()
    group.wait()
    return ProcessResult(status: process.terminationStatus, stdout: out, stderr: err)
}

/// The built `fetchlab` binary, next to the test bundle (or `$FETCHLAB_BIN`).
public func fetchlabBinary() -> String {
    if let path = ProcessInfo.processInfo.environment["FETCHLAB_BIN"] { return path }
    var dir = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
    for _ in 0..<4 {
        let candidate = dir.appendingPathComponent("fetchlab").path
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        dir = dir.deletingLastPathComponent()
    }
    return ".build/debug/fetchlab"
}

/// `../shared/datasets/dev` relative to the package, when it is there.
public func sharedDatasets() -> URL? {
    var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    for _ in 0..<6 {
        let candidate = dir.appendingPathComponent("shared/datasets/dev")
        if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
        dir = dir.deletingLastPathComponent()
    }
    return nil
}

/// The package's top directory (where Package.swift is).
public func packageRoot() -> URL {
    var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    for _ in 0..<6 {
        if FileManager.default.fileExists(atPath: dir.appendingPathComponent("Package.swift").path) { return dir }
        dir = dir.deletingLastPathComponent()
    }
    return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
}

/// A usage log (`timestamp,user,app,event` CSV): `users` users over `days` days from 2024-03-01,
/// three apps launched at seeded gaps of 10 to 90 minutes from 8:00 to 22:00 UTC.
public func syntheticLaunchesCSV(users: Int = 2, days: Int = 12, seed: UInt64 = 11) -> String {
    var text = "timestamp,user,app,event\n"
    var draws = SeededDraws(seed: seed)
    for user in 0..<users {
        for day in 0..<days {
            var t = 1_709_280_000 + day * 86_400 + 8 * 3_600
            while t < 1_709_280_000 + day * 86_400 + 22 * 3_600 {
                let x = draws.next()
                text += "\(t),u\(user),com.app\(Int(x >> 40) % 3),launch\n"
                t += 600 + Int(x >> 33) % 4_800
            }
        }
    }
    return text
}

/// The bytes of the file at `path`.
public func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

/// How many times `needle` stands in `text` (without overlapping).
public func occurrences(of needle: String, in text: some StringProtocol) -> Int {
    text.components(separatedBy: needle).count - 1
}
