import Foundation
import Testing
import _FetchLabTestSupport

/// Values that were accepted and then quietly did the wrong thing are one-line errors now.
@Suite struct EmptyValueTests {
    let dir = TemporaryDirectory()
    var db: String { dir.path("e.sqlite") }

    func expectUsageError(
        _ arguments: [String], saying words: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        expectOneLineError(
            try dir.fetchlab(arguments), status: 64, [words], context: "\(arguments)", sourceLocation: sourceLocation)
    }

    @Test func emptyNamesAndUnknownAppsAndKeysAreRefused() throws {
        let file = try dir.write("u.csv", syntheticLaunchesCSV())
        // An empty user would be stored where no command can address it.
        try expectUsageError(["import", "--db", db, "--user", "", file], saying: "--user '': a user needs a name")
        try expectUsageError(["import", "--db", db, "--user", "  ", file], saying: "a user needs a name")
        #expect(!FileManager.default.fileExists(atPath: db))
        #expect(try dir.fetchlab(["import", "--db", db, file]).status == 0)
        // generate -o '' wrote into the current directory, over its files.
        try dir.write("usage.csv.gz", "mine")
        try expectUsageError(["generate", "--users", "1", "--days", "2", "-o", ""], saying: "give a directory")
        #expect(try String(contentsOfFile: dir.path("usage.csv.gz"), encoding: .utf8) == "mine")
        try expectUsageError(
            ["compare", "--db", db, "--default-network", "", "--no-store"], saying: "--default-network '' is not")
        // An --app-cost for an app the database does not know (a typo) was ignored.
        try expectUsageError(
            ["compare", "--db", db, "--app-cost", "com.nosuch=20s/5MB", "--policies", "never", "--no-store"],
            saying: "--app-cost com.nosuch: \(db) has no app of that name")
        let known = try dir.fetchlab(
            ["compare", "--db", db, "--app-cost", "com.app0=20s/5MB", "--policies", "never", "--no-store"])
        #expect(known.status == 0, "\(known.err)")
        // An unknown key in a generate config (a typo) was ignored.
        let config = try dir.write("c.json", #"{"routineShare": 0.5, "routinShare": 0.2}"#)
        let r = try dir.fetchlab(["generate", "--config", config, "--users", "1", "--days", "2", "-o", dir.path("g")])
        #expect(r.status == 1, "\(r.err)")
        #expect(r.err.split(separator: "\n").count == 1, "\(r.err)")
        #expect(r.err.contains("routinShare: unknown key"), "\(r.err)")
        let good = try dir.write("good.json", #"{"routineShare": 0.5}"#)
        #expect(
            try dir.fetchlab(["generate", "--config", good, "--users", "1", "--days", "2", "-o", dir.path("g")]).status
                == 0
        )
    }
}
