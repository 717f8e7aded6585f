import Foundation
import Testing
import _FetchLabTestSupport

/// Help is read by people: its paragraphs are wrapped by the parser, never broken by the source.
@Suite struct HelpTextTests {
    @Test(arguments: [
        "demo", "import", "inspect", "describe", "generate", "predict", "evaluate-predictors", "compare", "runs",
    ])
    func discussionsAreNotBrokenMidSentence(command: String) throws {
        let help = try run(fetchlabBinary(), [command, "--help"])
        #expect(help.status == 0)
        let lines = help.out.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // Prose lines start at the margin; a short one followed by a sentence that goes on
        // (a lower-case word) is a line break the source put in the middle of a sentence.
        for (a, b) in zip(lines, lines.dropFirst()) where !a.hasPrefix(" ") && !a.isEmpty {
            guard let first = b.first, first.isLowercase, !b.hasPrefix(" ") else { continue }
            let next = b.split(separator: " ").first.map(String.init) ?? ""
            #expect(a.count + 1 + next.count >= 80, "\(command): \"\(a)\" / \"\(b)\"")
        }
    }
}
