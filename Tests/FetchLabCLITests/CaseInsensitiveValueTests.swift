import ArgumentParser
import FetchLabIngest
import FetchLabReport
import FetchLabResults
import Foundation
import Testing
import _FetchLabTestSupport

@testable import fetchlab

/// Enumerated option values are read in any case (`--platform iOS`, `--format JSON`; issue 25).
@Suite struct CaseInsensitiveValueTests {
    let dir = TemporaryDirectory()
    var db: String { dir.path("none.sqlite") }

    /// Every enumerated option's type, each of its values read in upper and mixed case.
    static let enumerated: [any CaseInsensitiveArgument.Type] = [
        OutputFormat.self, CompareFormat.self, CompareSort.self, TuneFormat.self, RunsFormat.self,
        SearchMethodArgument.self, SplitArgument.self, OnOff.self, PlatformKind.self, LogFormat.self, EpochUnit.self,
    ]

    func readsInAnyCase<T: CaseInsensitiveArgument>(_ type: T.Type) {
        for value in T.allCases {
            let name = value.rawValue
            let mixed = String(
                name.enumerated().map { $0.offset % 2 == 0 ? Character($0.element.uppercased()) : $0.element })
            for typed in [name, name.uppercased(), mixed] {
                #expect(T(argument: typed)?.rawValue == name, "\(T.self): \(typed)")
            }
        }
        #expect(T(argument: "no-such-value") == nil, "\(T.self)")
    }

    @Test func enumeratedValuesAreReadInAnyCase() {
        for type in Self.enumerated { readsInAnyCase(type) }
    }

    /// No enumerated option is declared the old way (`ExpressibleByArgument` on an enum directly,
    /// read in lowercase only): each conforms to ``CaseInsensitiveArgument`` and is in the list above.
    @Test func everyEnumeratedOptionIsCaseInsensitive() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/fetchlab")
        var declared: [String] = []
        for file in try FileManager.default.contentsOfDirectory(atPath: sources.path) where file.hasSuffix(".swift") {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") {
                let words = line.split(whereSeparator: { " :,{".contains($0) })
                guard words.count >= 2, words[0] == "enum" || words[0] == "extension" else { continue }
                if words.contains("ExpressibleByArgument") && words[0] == "enum" {
                    Issue.record(
                        "\(file): \(line) reads its values in lowercase only; conform to CaseInsensitiveArgument")
                }
                if words.contains("CaseInsensitiveArgument") && words[1] != "CaseInsensitiveArgument" {
                    declared.append(String(words[1]))
                }
            }
        }
        let listed = Set(Self.enumerated.map { "\($0)" })
        #expect(Set(declared) == listed)
    }

    @Test func theCommandLineReadsEnumeratedValuesInAnyCase() throws {
        // The database is missing: past the options, so every value was read.
        for arguments in [
            ["compare", "--platform", "iOS", "--format", "JSON", "--sort", "Fresh", "--launch-refreshes", "OFF"],
            ["tune", "--family", "fixed", "--search", "Grid", "--split", "Users", "--platform", "Android"],
            ["runs", "list", "--format", "JSON"], ["describe", "--format", "Json"],
        ] {
            let r = try dir.fetchlab(arguments + ["--db", db])
            #expect(r.status == 1 && r.err.contains("no such database"), "\(arguments): \(r.err)")
        }
    }
}
