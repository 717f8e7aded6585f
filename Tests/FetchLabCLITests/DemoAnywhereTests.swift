import Foundation
import Testing
import _FetchLabTestSupport

/// `fetchlab demo` from any directory, a copied or installed binary, commands as the user ran it,
/// and no file of an earlier demo replaced silently.
@Suite(.serialized) struct DemoAnywhereTests {
    let dir = TemporaryDirectory()

    @Test func runsFromAnyDirectoryAndSuggestsSwiftRunUnderTheBuild() throws {
        let cwd = dir.path("elsewhere")
        try FileManager.default.createDirectory(atPath: cwd, withIntermediateDirectories: true)
        let db = dir.path("demo.sqlite")
        let r = try dir.fetchlab(["demo", "--db", db], cwd: cwd)
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.hasPrefix("imported 174,828 rows of "))
        #expect(r.out.contains("`swift run fetchlab inspect --db \(db)`"), "\(r.out.suffix(400))")
        // The same --db again: refused, nothing replaced; with --force, a fresh demo database.
        let again = try dir.fetchlab(["demo", "--db", db], cwd: cwd)
        expectOneLineError(again, status: 64, [db, "--force"])
        let forced = try dir.fetchlab(["demo", "--db", db, "--force", "--format", "json"], cwd: cwd)
        #expect(forced.status == 0, "\(forced.err)")
        #expect(forced.err == "run 1 stored in \(db)\n")
    }

    /// A copy of the binary with the sample installed beside it (`make install`'s layout) finds the
    /// sample there and prints plain `fetchlab` commands.
    @Test func anInstalledCopyFindsTheSampleAndSaysFetchlab() throws {
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
        #expect(r.out.hasPrefix("imported 174,828 rows of \(share)/sample into \(db)"), "\(r.out.prefix(200))")
        #expect(r.out.contains("`fetchlab inspect --db \(db)`"))
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
