import Foundation

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
