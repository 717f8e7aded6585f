import Foundation
import Testing

/// The `fetchlab` command line, as the CLI tests run it.
extension TemporaryDirectory {
    /// Runs the built `fetchlab` binary (``fetchlabBinary()``) with `arguments` in this directory, or
    /// in `cwd` when given; `input` is its standard input (none when nil), and `environment` is
    /// added to the test's own.
    public func fetchlab(
        _ arguments: [String], input: Data? = nil, cwd: String? = nil, environment: [String: String] = [:]
    ) throws -> ProcessResult {
        try run(fetchlabBinary(), arguments, input: input, cwd: cwd ?? url.path, environment: environment)
    }
}

/// Runs the built `fetchlab` binary as nobody (user and group 65534) through `setpriv`: root
/// ignores file modes, so a test that needs a file it may not write runs the binary so when the
/// tests run as root.
public func fetchlabAsNobody(_ arguments: [String], cwd: String? = nil) throws -> ProcessResult {
    try run(
        "/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", fetchlabBinary()] + arguments, cwd: cwd
    )
}

extension TemporaryDirectory {
    /// Writes `csv` (a usage log; by default ``syntheticLaunchesCSV(users:days:seed:)``'s) to
    /// `usage.csv` here and imports it into `db`, expecting the import to succeed.
    public func importUsage(
        _ csv: String = syntheticLaunchesCSV(), into db: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let result = try fetchlab(["import", "--db", db, try write("usage.csv", csv)])
        #expect(result.status == 0, "\(result.err)", sourceLocation: sourceLocation)
    }
}

extension TemporaryDirectory {
    /// Generates a population here (`fetchlab generate`, starting 2024-09-02, `--signals` when
    /// asked) and imports its `logs` (of usage, context, content) into `db`, expecting both to
    /// succeed.
    public func importGenerated(
        users: Int, days: Int, seed: Int, signals: Bool = false, logs: [String] = ["usage"], into db: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let out = path("generated")
        let generated = try fetchlab(
            ["generate", "--users", "\(users)", "--days", "\(days)", "--seed", "\(seed)"]
                + (signals ? ["--signals"] : []) + ["--start", "2024-09-02", "--output", out])
        #expect(generated.status == 0, "\(generated.err)", sourceLocation: sourceLocation)
        let imported = try fetchlab(["import", "--db", db] + logs.map { "\(out)/\($0).csv.gz" })
        #expect(imported.status == 0, "\(imported.err)", sourceLocation: sourceLocation)
    }
}

extension TemporaryDirectory {
    /// Runs `fetchlab arguments` here, expecting a usage error: exit 64, one line on stderr that
    /// starts with `fetchlab: error: ` and holds each of `words`, nothing on stdout.
    @discardableResult
    public func expectUsageError(
        _ arguments: [String], _ words: [String], sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> ProcessResult {
        let r = try fetchlab(arguments)
        expectOneLineError(
            r, status: 64, prefix: "fetchlab: error: ", words, context: "\(arguments)", sourceLocation: sourceLocation)
        #expect(r.out.isEmpty, "\(arguments): \(r.out)", sourceLocation: sourceLocation)
        return r
    }
}

extension ProcessResult {
    /// Standard output read as a JSON object; the test fails here (and this throws) when it is not one.
    public func json(sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: stdout) as? [String: Any], sourceLocation: sourceLocation)
    }
}

/// Expects `result` to be an error in one line: exit `status`, and standard error one line that
/// starts with `prefix` (when given) and holds each of `words`. `context` (the command, say) leads
/// every message.
public func expectOneLineError(
    _ result: ProcessResult, status: Int32 = 1, prefix: String? = nil, _ words: [String], context: String? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let about = context.map { "\($0): " } ?? ""
    #expect(result.status == status, "\(about)\(result.status) \(result.err)", sourceLocation: sourceLocation)
    #expect(result.err.split(separator: "\n").count == 1, "\(about)\(result.err)", sourceLocation: sourceLocation)
    if let prefix {
        #expect(result.err.hasPrefix(prefix), "\(about)\(result.err)", sourceLocation: sourceLocation)
    }
    for word in words {
        #expect(result.err.contains(word), "\(about)\(word): \(result.err)", sourceLocation: sourceLocation)
    }
}
