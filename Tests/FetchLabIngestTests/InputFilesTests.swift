import FetchLabIngest
import Foundation
import Testing
import _FetchLabTestSupport

@Suite struct InputFilesTests {
    @Test func directoriesContributeTheirLogFilesSorted() throws {
        let dir = TemporaryDirectory()
        for name in ["b.csv.gz", "a.tsv", "c.jsonl.zz", "habits.json", "README.md", ".hidden.csv", "x.log"] {
            try dir.write(name, "x")
        }
        try FileManager.default.createDirectory(atPath: dir.path("sub.csv"), withIntermediateDirectories: true)
        let files = try InputFiles.expand([dir.url.path])
        #expect(files.map { ($0 as NSString).lastPathComponent } == ["a.tsv", "b.csv.gz", "c.jsonl.zz", "x.log"])
    }

    @Test func globsAndStandardInputPassThroughUnknownNamesAreProblems() throws {
        let dir = TemporaryDirectory()
        try dir.write("u1.csv", "x")
        try dir.write("u2.csv", "x")
        let files = try InputFiles.expand([dir.path("u*.csv"), "-"])
        #expect(files == [dir.path("u1.csv"), dir.path("u2.csv"), "-"])
        // A name that does not exist is found before anything is opened, as an empty directory is.
        let expansion = InputFiles.expandReporting([dir.path("u*.csv"), dir.path("missing.csv"), "-"])
        #expect(expansion.paths == [dir.path("u1.csv"), dir.path("u2.csv"), "-"])
        #expect(expansion.problems == ["\(dir.path("missing.csv")): No such file or directory"])
        let missing = #expect(throws: IngestError.self) { try InputFiles.expand([dir.path("missing.csv")]) }
        #expect(missing?.code == .io)
    }

    @Test func emptyDirectoriesAndUnmatchedGlobsAreErrorsNamingTheArgument() throws {
        let dir = TemporaryDirectory()
        try dir.write("notes.txt.bak", "x")
        let empty = #expect(throws: IngestError.self) { try InputFiles.expand([dir.url.path]) }
        #expect(empty?.description.hasPrefix("\(dir.url.path): directory has no log files") == true)
        let glob = #expect(throws: IngestError.self) { try InputFiles.expand([dir.path("*.csv")]) }
        #expect(glob?.description == "\(dir.path("*.csv")): no file matches")
    }

    @Test(arguments: [
        ("usage.csv.gz", true), ("x.TSV", true), ("a.ndjson", true), ("b.txt.zlib", true), ("habits.json", false),
        ("README.md", false), ("noext", false), ("data.gz", false),
    ])
    func logNames(name: String, isLog: Bool) {
        #expect(InputFiles.looksLikeLog(name) == isLog)
    }
}
