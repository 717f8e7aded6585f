import ArgumentParser
import FetchLabCore
import FetchLabIngest
import FetchLabPredict
import FetchLabStore
import FetchLabSynth
import FetchLabWorkflows
import Foundation

/// A command's failure at run time, with the one line the user sees.
struct CommandFailure: FetchLabError {
    enum Code: String, Sendable, Hashable {
        case failed
    }

    var code: Code { .failed }
    var message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}

/// Exit codes, the same in every command: 0 success, 1 a run-time failure (bad input, a database
/// that cannot be opened or written, nothing to do with what was asked), 64 a usage error
/// (ArgumentParser's `ValidationError`, printed with the usage line).
enum Exit {
    static let failure: Int32 = 1

    /// ArgumentParser's message for a usage error as one line: the error itself, then what the
    /// option expects (its help line), without the usage text.
    static func oneLine(_ message: String, arguments: [String] = CommandLine.arguments) -> String {
        var error = ""
        var help = ""
        var choices: [String] = []
        for raw in message.split(separator: "\n") {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if error.hasSuffix("one of the following:") && line.hasPrefix("- ") {
                // An option with many values lists them one per line.
                choices.append("'\(line.dropFirst(2))'")
            } else if line.hasPrefix("Error: ") {
                error = String(line.dropFirst("Error: ".count))
            } else if line.hasPrefix("Help: ") {
                help = String(line.dropFirst("Help: ".count)).split(separator: " ", omittingEmptySubsequences: true)
                    .joined(separator: " ")
            } else if error.isEmpty && !line.hasPrefix("Usage:") && !line.hasPrefix("See '") {
                error = line
            }
        }
        if !choices.isEmpty {
            error = error.replacingOccurrences(
                of: "one of the following:", with: "one of \(choices.joined(separator: ", "))")
        }
        // "Missing value for '--budget <list>'" when the value given starts with '-' (a negative
        // number): ArgumentParser read it as an option.
        if error.hasPrefix("Missing value for '--"),
            let name = error.dropFirst("Missing value for '".count).split(separator: " ").first,
            let at = arguments.firstIndex(of: String(name)), at + 1 < arguments.count, arguments[at + 1].hasPrefix("-"),
            arguments[at + 1].count > 1
        {
            error +=
                " (\(arguments[at + 1]) was read as an option; to give it as the value, write \(name)=\(arguments[at + 1]))"
        }
        // "The value 'jsn' is invalid for '--format <format>'. Please provide one of 'table', …":
        // the values are listed already, so the option's help (which lists them again) is left out,
        // and the closest value is suggested.
        if let value = quoted(after: "The value '", in: error), error.contains("Please provide one of ") {
            let listed = error.components(separatedBy: "Please provide one of ").last ?? ""
            // 'table', 'markdown', … : the quoted words are every other piece between quotes.
            let values = listed.components(separatedBy: "'").enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
            var line = error
            while line.hasSuffix(".") { line.removeLast() }
            let likely = NameSuggestions.likely(value, among: values).prefix(1)  // the closest
            return likely.isEmpty
                ? line : "\(line); did you mean \(likely.map { "'\($0)'" }.joined(separator: " or "))?"
        }
        if help.isEmpty { return error }
        // "Help: --start <start> First day (local date, YYYY-MM-DD)." → what the option expects.
        var words = help.split(separator: " ")
        while let first = words.first, first.hasPrefix("-") || first.hasPrefix("<") { words.removeFirst() }
        return words.isEmpty ? error : "\(error); expected: \(words.joined(separator: " "))"
    }

    /// The text between `prefix` and the next `'` in `text` (nil when `text` does not start so).
    static func quoted(after prefix: String, in text: String) -> String? {
        guard text.hasPrefix(prefix) else { return nil }
        return text.dropFirst(prefix.count).split(separator: "'", maxSplits: 1, omittingEmptySubsequences: false).first
            .map(String.init)
    }

    /// A usage error's line when the word where a command goes names none (`fetchlab comapre`):
    /// ArgumentParser's "Unexpected argument 'comapre'" with the commands it is likely a typo of
    /// (`; did you mean 'compare'?`). At the top, where no command takes a positional argument,
    /// the word is the mistake whatever ArgumentParser met first (`fetchlab comapre --db x` says
    /// "Unknown option '--db'"); under a command (`runs shwo`), only its "Unexpected argument" is
    /// extended. `message` unchanged when no command is close.
    static func suggestingCommand(
        _ message: String, arguments: [String] = CommandLine.arguments,
        root: any ParsableCommand.Type = FetchLabCommand.self
    ) -> String {
        var command = root
        for word in arguments.dropFirst() {
            // An option before the command word (`--help`, `--version`): ArgumentParser's answer stands.
            if word.hasPrefix("-") { return message }
            let subcommands = command.configuration.subcommands
            if subcommands.isEmpty { return message }
            if let next = subcommands.first(where: {
                $0._commandName == word || $0.configuration.aliases.contains(word)
            }) {
                command = next
                continue
            }
            let top = ObjectIdentifier(command) == ObjectIdentifier(root)
            if top && word == "help" { return message }
            let names = subcommands.map { $0._commandName } + (top ? ["help"] : [])
            let likely = NameSuggestions.likely(word, among: names)
            guard !likely.isEmpty else { return message }
            let unexpected = "Unexpected argument '\(word)'"
            guard top || message.hasPrefix(unexpected) else { return message }
            return "\(unexpected); did you mean \(likely.map { "'\($0)'" }.joined(separator: " or "))?"
        }
        return message
    }

    /// Runs a check of `validate()` (which ArgumentParser runs before `Exit.reporting`): a
    /// module's usage mistake becomes the usage error it is (exit 64).
    static func validating<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as any FetchLabError where error.isUsageError {
            throw ValidationError(error.description)
        }
    }

    /// Runs a command body, turning every known failure into one line on stderr (`report`; a
    /// test collects it instead) and exit 1.
    static func reporting<T>(report: (String) -> Void = { Terminal.error($0) }, _ body: () throws -> T) throws -> T {
        do {
            // Every module's error, in one place: a mistake in how the command was given is
            // ArgumentParser's usage error (exit 64, as in `validate()`); anything else is one
            // line and exit 1.
            return try validating(body)
        } catch let error as any FetchLabError {
            report(Terminal.oneLine(error.description))
        } catch let error as ExitCode {
            throw error
        } catch let error as ValidationError {
            throw error
        } catch let error as CleanExit {
            throw error
        } catch {
            // ArgumentParser's own (help asked for by `fetchlab help X`, a usage error) go back to it.
            let code = FetchLabCommand.exitCode(for: error)
            if code == .success || code == .validationFailure { throw error }
            report(Terminal.oneLine("\(error)"))
        }
        throw ExitCode(failure)
    }
}
