import ArgumentParser
import FetchLabCore
import FetchLabIngest
import FetchLabPredict
import FetchLabStore
import FetchLabSynth
import FetchLabTerminal
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

    /// A usage error of ArgumentParser's as one line, made from its parts instead of the text it
    /// prints: the error's message (`message(for:)`: no usage text, no help line; its first line),
    /// and the option at fault as the command declares it (`_dumpHelp()`, ArgumentParser's
    /// description of the commands as data): the values it takes, or what it expects (its help).
    static func oneLine(
        for error: any Error, arguments: [String] = CommandLine.arguments,
        root: any ParsableCommand.Type = FetchLabCommand.self
    ) -> String {
        let message = root.message(for: error)
        var line = String(message.split(separator: "\n", omittingEmptySubsequences: true).first ?? "")
        let option = OptionAtFault(message, arguments: arguments, root: root)
        let values = option?.argument.allValues ?? []
        // More than five values: ArgumentParser lists them one per line; here they are quoted in line.
        if !values.isEmpty, line.hasSuffix("one of the following:") {
            line =
                line.dropLast().replacingOccurrences(of: "one of the following", with: "one of ")
                + values.map { "'\($0)'" }.joined(separator: ", ")
        }
        // "Missing value for '--budget <list>'" when the value given starts with '-' (a negative
        // number): ArgumentParser read it as an option.
        if line.hasPrefix("Missing value for '--"),
            let name = line.dropFirst("Missing value for '".count).split(separator: " ").first,
            let at = arguments.firstIndex(of: String(name)), at + 1 < arguments.count, arguments[at + 1].hasPrefix("-"),
            arguments[at + 1].count > 1
        {
            line +=
                " (\(arguments[at + 1]) was read as an option; to give it as the value, write \(name)=\(arguments[at + 1]))"
        }
        // "The value 'jsn' is invalid for '--format <format>'. Please provide one of 'table', …":
        // the values are listed already, so the option's help (which lists them again) is left out,
        // and the closest value is suggested.
        if let value = quoted(after: "The value '", in: line), line.contains("Please provide one of ") {
            while line.hasSuffix(".") { line.removeLast() }
            let likely = NameSuggestions.likely(value, among: values).prefix(1)  // the closest
            return likely.isEmpty
                ? line : "\(line); did you mean \(likely.map { "'\($0)'" }.joined(separator: " or "))?"
        }
        // What the option expects: its help, for the errors ArgumentParser shows it with.
        guard let option, option.showsHelp else { return line }
        let abstract = (option.argument.abstract ?? "").split(separator: "\n").first ?? ""
        let help = abstract.split(separator: " ").joined(separator: " ")
        return help.isEmpty ? line : "\(line); expected: \(help)"
    }

    /// The argument a usage error names (`'--start <start>'`, `'<files> ...'`), found among the
    /// arguments of the command the words on the command line name.
    struct OptionAtFault {
        var argument: ToolInfo.Argument
        /// Whether ArgumentParser gives the option's help with this error (a value it could not
        /// read, a missing value, a missing argument).
        var showsHelp: Bool

        init?(_ message: String, arguments: [String], root: any ParsableCommand.Type) {
            guard let data = root._dumpHelp().data(using: .utf8),
                var command = (try? JSONDecoder().decode(ToolInfo.self, from: data))?.command
            else { return nil }
            for word in arguments.dropFirst() {
                guard let next = command.subcommands?.first(where: { $0.commandName == word }) else { break }
                command = next
            }
            // A command run by default (`runs` is `runs list`) declares its own arguments.
            var candidates = [command]
            if let name = command.defaultSubcommand,
                let sub = command.subcommands?.first(where: { $0.commandName == name })
            {
                candidates.append(sub)
            }
            let named = candidates.flatMap { $0.arguments ?? [] }.first { argument in
                guard let valueName = argument.valueName else { return false }
                let names = argument.names ?? []
                let synopses =
                    names.isEmpty
                    ? ["<\(valueName)>"] : names.map { "\($0.kind == "long" ? "--" : "-")\($0.name) <\(valueName)>" }
                // Quoted whole, or as a repeating argument's (`'<files> ...'`).
                return synopses.contains { message.contains("'\($0)'") || message.contains("'\($0) ...'") }
            }
            guard let named else { return nil }
            argument = named
            showsHelp = ["The value '", "Missing value for '", "Missing expected argument '"].contains {
                message.hasPrefix($0)
            }
        }
    }

    /// The parts of ArgumentParser's tool description (`_dumpHelp()`, the `ToolInfoV0` format of
    /// its `ArgumentParserToolInfo`, which the package does not export) that a usage error's line uses.
    struct ToolInfo: Decodable {
        struct Command: Decodable {
            var commandName: String
            var defaultSubcommand: String?
            var subcommands: [Command]?
            var arguments: [Argument]?
        }
        struct Argument: Decodable {
            struct Name: Decodable {
                var kind: String
                var name: String
            }
            var names: [Name]?
            var valueName: String?
            var allValues: [String]?
            var abstract: String?
        }
        var command: Command
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
