import Foundation
import Testing
import _FetchLabTestSupport

/// `fetchlab demo` from any directory, a copied or installed binary, commands as the user ran it,
/// and no file of an earlier demo replaced silently.
@Suite(.serialized) struct DemoAnywhereTests {
    let dir = TemporaryDirectory()

    /// Outside the package the suggested commands name the binary as it was run (`swift run` would
    /// fail there); the import line comes before the run's `run 1 stored` (stdout and stderr in one
    /// stream, as on a terminal); every line keeps to 120 columns.
    @Test func runsFromAnyDirectoryAndSuggestsTheBinaryThatRan() throws {
        let cwd = dir.path("elsewhere")
        try FileManager.default.createDirectory(atPath: cwd, withIntermediateDirectories: true)
        let db = dir.path("demo.sqlite")
        let binary = fetchlabBinary()
        let r = try run("/bin/sh", ["-c", "exec \"$0\" demo --db \"$1\" 2>&1", binary, db], cwd: cwd)
        #expect(r.status == 0, "\(r.out)")
        #expect(r.out.hasPrefix("imported 174,828 rows of "), "\(r.out.prefix(400))")
        let stored = try #require(r.out.range(of: "run 1 stored in \(db)\n"))
        #expect(r.out.range(of: "imported 174,828 rows")!.lowerBound < stored.lowerBound)
        #expect(r.out.contains("`\(binary) inspect --db \(db)`"), "\(r.out.suffix(400))")
        #expect(!r.out.contains("swift run"), "\(r.out.suffix(400))")
        // (the commands to try stay whole, to be copied, however long the paths)
        let widest = r.out.split(separator: "\n").filter { !$0.hasPrefix("  `") }.max { $0.count < $1.count } ?? ""
        #expect(widest.count <= 120, "\(widest)")
        #expect(r.out.contains("\nbound: the clairvoyant bound"))
        // The same --db again: refused, nothing replaced; with --force, a fresh demo database.
        let again = try dir.fetchlab(["demo", "--db", db], cwd: cwd)
        expectOneLineError(again, status: 64, [db, "--force"])
        let forced = try dir.fetchlab(["demo", "--db", db, "--force", "--format", "json"], cwd: cwd)
        #expect(forced.status == 0, "\(forced.err)")
        #expect(forced.err == "run 1 stored in \(db)\n")
    }

    /// A copy of the binary with the sample installed beside it (`make install`'s layout) finds the
    /// sample there and prints commands that run it as it was run (by its path here).
    @Test func anInstalledCopyFindsTheSampleAndSaysItsPath() throws {
        let bin = dir.path("prefix/bin")
        let share = dir.path("prefix/share/fetchlab")
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: share, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: fetchlabBinary(), toPath: bin + "/fetchlab")
        try FileManager.default.copyItem(
            atPath: packageRoot().appendingPathComponent("Datasets/sample").path, toPath: share + "/sample")
        let db = dir.path("installed.sqlite")
        let r = try run(bin + "/fetchlab", ["demo", "--db", db], cwd: dir.url.path)
        #expect(r.status == 0, "\(r.err)")
        // (the line wrapped at 120 columns when the paths are long: read joined)
        #expect(
            r.out.replacingOccurrences(of: "\n +", with: " ", options: .regularExpression).hasPrefix(
                "imported 174,828 rows of \(share)/sample into \(db)"), "\(r.out.prefix(200))")
        #expect(r.out.contains("`\(bin)/fetchlab inspect --db \(db)`"), "\(r.out.suffix(400))")
        #expect(!r.out.contains("swift run"))
    }

    /// A copy on its own finds the sample in the repository it was built from.
    @Test func aCopiedBinaryStillFindsTheSample() throws {
        let copy = dir.path("fetchlab-copy")
        try FileManager.default.copyItem(atPath: fetchlabBinary(), toPath: copy)
        let r = try run(copy, ["demo", "--db", dir.path("copy.sqlite"), "--format", "json"], cwd: dir.url.path)
        #expect(r.status == 0, "\(r.err)")
        #expect(r.err == "run 1 stored in \(dir.path("copy.sqlite"))\n")
    }

    @Test func aMissingDataDirectoryIsOneLine() throws {
        let r = try dir.fetchlab(["demo", "--db", dir.path("x.sqlite"), "--data", "no-such-dir"])
        expectOneLineError(r, status: 1, ["no-such-dir", "--data"])
    }
}

/// The install path and shell completions the documentation gives.
@Suite struct InstallTests {
    @Test func completionScriptsAreGenerated() throws {
        let dir = TemporaryDirectory()
        for shell in ["bash", "zsh", "fish"] {
            let r = try dir.fetchlab(["--generate-completion-script", shell])
            #expect(r.status == 0, "\(shell): \(r.err)")
            #expect(r.out.contains("fetchlab") && r.out.contains("demo"), "\(shell)")
        }
    }

    /// `make install` builds release, then copies the binary and the sample (the build step: dry
    /// run; the copy: for real, of the binary under test, into a temporary prefix, then removed).
    @Test func makeInstallCopiesTheBinaryAndTheSampleAndUninstallRemovesThem() throws {
        let dir = TemporaryDirectory()
        let prefix = dir.path("p")
        let make = { (args: [String]) in
            try run("/usr/bin/make", ["-s", "-C", packageRoot().path] + args + ["PREFIX=\(prefix)"], cwd: dir.url.path)
        }
        let dry = try make(["-n", "install"])
        #expect(dry.status == 0, "\(dry.err)")
        #expect(dry.out.contains("swift build -c release"))
        let installed = try make(["install-built", "BINARY=\(fetchlabBinary())"])
        #expect(installed.status == 0, "\(installed.err)")
        let bin = prefix + "/bin/fetchlab"
        #expect(FileManager.default.isExecutableFile(atPath: bin))
        let sample = packageRoot().appendingPathComponent("Datasets/sample").path
        for name in try FileManager.default.contentsOfDirectory(atPath: sample) {
            #expect(
                FileManager.default.contentsEqual(
                    atPath: "\(sample)/\(name)", andPath: "\(prefix)/share/fetchlab/sample/\(name)"), "\(name)")
        }
        let version = try run(bin, ["--version"], cwd: dir.url.path)
        #expect(version.status == 0 && !version.out.isEmpty, "\(version.err)")
        let removed = try make(["uninstall"])
        #expect(removed.status == 0, "\(removed.err)")
        #expect(!FileManager.default.fileExists(atPath: bin))
        #expect(!FileManager.default.fileExists(atPath: prefix + "/share/fetchlab"))
        // The documentation names both.
        let docs = try String(
            contentsOf: packageRoot().appendingPathComponent("Docs/install.md"), encoding: .utf8)
        #expect(docs.contains("make install") && docs.contains("--generate-completion-script bash"))
    }
}
