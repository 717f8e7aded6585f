import Foundation
import Testing

/// `Docs/architecture.md`'s table of module dependencies is the one `Package.swift` declares: each
/// target of the package (not the tests) with the targets of this package it depends on.
@Suite struct ArchitectureMapTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test func theDocsDependencyTableIsPackageSwifts() throws {
        let package = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let doc = try String(contentsOf: Self.root.appendingPathComponent("Docs/architecture.md"), encoding: .utf8)
        let declared = Self.dependencies(ofPackage: package)
        let documented = try Self.dependencies(ofDoc: doc)
        #expect(declared.count >= 10, "Package.swift's targets were not found: \(declared)")
        #expect(
            documented == declared,
            "Docs/architecture.md's dependency table differs from Package.swift: documented \(documented), declared \(declared)"
        )
    }

    /// The parser reads what a test target, a product or a comment says as no dependency.
    @Test func thePackageParserReadsTargetsAndTheirLocalDependencies() {
        let package = """
            targets: [
                .systemLibrary(name: "CZlib", pkgConfig: "zlib"),
                .target(name: "A", swiftSettings: x),
                .target(
                    name: "B",
                    dependencies: [
                        // "C" is not a dependency
                        "A", "CZlib",
                        .product(name: "GRDB", package: "GRDB.swift"),
                    ]),
                .executableTarget(name: "b", dependencies: ["B"]),
                .testTarget(name: "BTests", dependencies: ["B"]),
            ]
            """
        #expect(Self.dependencies(ofPackage: package) == ["CZlib": [], "A": [], "B": ["A", "CZlib"], "b": ["B"]])
    }

    /// Each `.target`, `.executableTarget` and `.systemLibrary` of `Package.swift`, with the
    /// targets it names in `dependencies` (products of other packages left out).
    static func dependencies(ofPackage text: String) -> [String: Set<String>] {
        let code = text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { line in line.range(of: "//").map { String(line[..<$0.lowerBound]) } ?? String(line) }
            .joined(separator: "\n")
        var result: [String: Set<String>] = [:]
        let starts = [".target(", ".executableTarget(", ".systemLibrary("]
        var rest = Substring(code)
        while let start = starts.compactMap({ rest.range(of: $0) }).min(by: { $0.lowerBound < $1.lowerBound }) {
            // The declaration: to the parenthesis that closes the one that opens it.
            var depth = 0
            var end = start.upperBound
            var i = rest.index(before: start.upperBound)
            while i < rest.endIndex {
                if rest[i] == "(" { depth += 1 }
                if rest[i] == ")" {
                    depth -= 1
                    if depth == 0 {
                        end = rest.index(after: i)
                        break
                    }
                }
                i = rest.index(after: i)
            }
            let declaration = rest[start.lowerBound..<end]
            rest = rest[end...]
            guard let name = quoted(after: "name:", in: declaration) else { continue }
            var dependencies: Set<String> = []
            if let list = declaration.range(of: "dependencies:") {
                var inner = declaration[list.upperBound...]
                if let open = inner.firstIndex(of: "[") { inner = inner[inner.index(after: open)...] }
                // Drop the products (`.product(name: "X", package: "Y")`): only bare strings are targets.
                var bracket = 0
                var paren = 0
                var literal: String? = nil
                for c in inner {
                    if let l = literal {
                        if c == "\"" {
                            if paren == 0 { dependencies.insert(l) }
                            literal = nil
                        } else {
                            literal = l + String(c)
                        }
                        continue
                    }
                    if c == "\"" { literal = "" }
                    if c == "(" { paren += 1 }
                    if c == ")" { paren -= 1 }
                    if c == "[" { bracket += 1 }
                    if c == "]" {
                        if bracket == 0 { break }
                        bracket -= 1
                    }
                }
            }
            result[name] = dependencies
        }
        return result
    }

    /// The first string literal after `label` in `text`.
    static func quoted(after label: String, in text: Substring) -> String? {
        guard let at = text.range(of: label), let open = text[at.upperBound...].firstIndex(of: "\"") else { return nil }
        let start = text.index(after: open)
        guard let close = text[start...].firstIndex(of: "\"") else { return nil }
        return String(text[start..<close])
    }

    /// The table between `<!-- dependencies -->` and `<!-- /dependencies -->`: `| module | uses |`,
    /// the uses in code voice separated by commas, `—` for none.
    static func dependencies(ofDoc text: String) throws -> [String: Set<String>] {
        let begin = try #require(text.range(of: "<!-- dependencies -->"), "no <!-- dependencies --> marker")
        let end = try #require(text.range(of: "<!-- /dependencies -->"), "no <!-- /dependencies --> marker")
        var result: [String: Set<String>] = [:]
        for line in text[begin.upperBound..<end.lowerBound].split(separator: "\n") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard cells.count >= 4, cells[1].hasPrefix("`") else { continue }
            let name = cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            let uses = cells[2].split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            }.filter { !$0.isEmpty && $0 != "—" }
            result[name] = Set(uses)
        }
        return result
    }
}
