import ArgumentParser
import FetchLabIngest

/// The output rule (``OutputFile``, one implementation for every file FetchLab writes) as the
/// command line's usage errors: refused before any work, exit 64, one line naming the option.
enum OutputGuard {
    typealias Protected = OutputFile.Protected

    /// The database of a command as a protected file.
    static func database(_ path: String) -> Protected { .database(path) }

    /// Throws a one-line ``ValidationError`` (exit 64) when `output` may not be written under the
    /// rule: a protected file or a link to one, a directory, a missing directory, or an existing
    /// regular file without `force`. Nil passes (standard output).
    static func check(
        _ output: String?, option: String = "--output", force: Bool, protecting protected: [Protected] = []
    ) throws {
        guard let output else { return }
        do {
            try OutputFile.check(output, option: option, force: force, protecting: protected)
        } catch {
            throw ValidationError(error.description)
        }
    }

    /// Throws a one-line ``ValidationError`` (exit 64) when `path` is an existing regular file (a
    /// link to one included) and `force` is off: for files a command creates other than through
    /// ``OutputFile`` (demo's database).
    static func refuseExisting(_ path: String?, option: String = "--output", force: Bool) throws {
        guard let path, !force, OutputFile.existing(path) == .regularFile else { return }
        throw ValidationError("\(option) \(path): the file exists; pass --force to replace it (or choose another name)")
    }

    /// `path` made absolute with every link resolved.
    static func resolved(_ path: String) -> String { OutputFile.resolved(path) }
}
