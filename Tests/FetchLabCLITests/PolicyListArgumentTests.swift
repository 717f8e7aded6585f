import ArgumentParser
import FetchLabSimulation
import Testing

@testable import fetchlab

/// `--policies` is read once, into policy values, as ArgumentParser reads the option; a list that
/// cannot be read keeps the registry's reason for the command's one-line error.
@Suite struct PolicyListArgumentTests {
    @Test func theListIsReadOnceIntoValues() throws {
        let command = try CompareCommand.parse(["--db", "x.sqlite", "--policies", "never, fixed(15m,1h), oracle"])
        let policies = try #require(try command.policies?.parsed.get())
        #expect(policies.map(\.name) == ["never", "fixed(15m)", "fixed(1h)", "oracle"])
        #expect(policies.map(\.role) == [.floor, .baseline, .baseline, .bound])
        #expect(try CompareCommand.parse(["--db", "x.sqlite"]).policies == nil)
    }

    @Test func aListThatCannotBeReadKeepsItsReasonForTheOneLineError() throws {
        let value = PolicyListArgument(argument: "fixd(1h)")
        guard case .failure(let error) = value.parsed else {
            Issue.record("fixd(1h) was read")
            return
        }
        #expect(error.message.hasPrefix("unknown policy 'fixd(1h)'; did you mean fixed(T)"))
        // The command refuses it in validate(), naming the option.
        #expect(throws: (any Error).self) {
            try CompareCommand.parseAsRoot(["--db", "x.sqlite", "--policies", "fixd(1h)"])
        }
        let line = Exit.oneLine(
            for: CompareCommand.parseAsRootError(["--db", "x.sqlite", "--policies", "fixd(1h)"]),
            arguments: ["fetchlab", "compare", "--policies", "fixd(1h)"])
        #expect(line.hasPrefix("--policies: unknown policy 'fixd(1h)'"), "\(line)")
    }
}

extension ParsableCommand {
    /// The error parsing `arguments` as the root command throws (a test helper).
    static func parseAsRootError(_ arguments: [String]) -> any Error {
        do {
            _ = try parseAsRoot(arguments)
        } catch {
            return error
        }
        return CancellationError()
    }
}
