import Foundation
import Testing

import _FetchLabTestSupport

@testable import FetchLabScale

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The one atomic writer: a file is replaced whole or not at all, and no temporary file outlives a
/// write, whether it succeeds or fails.
@Suite struct AtomicFileTests {
    let dir = TemporaryDirectory()

    /// The directory's entries, hidden temporary files included.
    func entries() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: dir.url.path).sorted() }

    func contents(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

    @Test func writesANewFileInPieces() throws {
        let path = dir.path("out.txt")
        try AtomicFile.write(to: path) { put in
            try put(Array("one ".utf8))
            try put(Array("two".utf8))
        }
        #expect(try contents(path) == "one two")
        #expect(try entries() == ["out.txt"])
    }

    @Test func replacesAnExistingFileKeepingItsPermissions() throws {
        let path = try dir.write("out.txt", "old")
        chmod(path, 0o600)
        try AtomicFile.write("new\n", to: path)
        #expect(try contents(path) == "new\n")
        let mode = try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
        #expect(try entries() == ["out.txt"])
    }

    @Test func followsALinkAndKeepsIt() throws {
        let target = try dir.write("target.txt", "old")
        let link = dir.path("link.txt")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        try AtomicFile.write("new", to: link)
        #expect(try contents(target) == "new")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == target)
        #expect(try entries() == ["link.txt", "target.txt"])
    }

    struct Stop: Error {}

    @Test func aFailingProducerLeavesTheOriginalUntouched() throws {
        let path = try dir.write("out.txt", "old")
        #expect(throws: Stop.self) {
            try AtomicFile.write(to: path) { put in
                try put(Array("half".utf8))
                throw Stop()
            }
        }
        #expect(try contents(path) == "old")
        #expect(try entries() == ["out.txt"])
    }

    @Test func aFailedRenameLeavesTheOriginalAndNoTemporary() throws {
        // A non-empty directory where the file should go: everything is written, the rename fails.
        let path = dir.path("out")
        try FileManager.default.createDirectory(atPath: path + "/inside", withIntermediateDirectories: true)
        let error = try #require(throws: ScaleError.self) { try AtomicFile.write("new", to: path) }
        #expect(error.code == .write)
        #expect(error.description.hasPrefix("\(path): cannot write the output: "))
        #expect(try entries() == ["out"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: path) == ["inside"])
    }

    @Test func aMissingDirectoryIsOneErrorNamingTheFile() throws {
        let path = dir.path("nowhere/out.txt")
        let error = try #require(throws: ScaleError.self) { try AtomicFile.write("x", to: path, what: "the partial") }
        #expect(error.description == "\(path): cannot write the partial: No such file or directory")
        #expect(try entries().isEmpty)
    }

    @Test func aDeviceIsWrittenInPlaceAndItsErrorsReported() throws {
        try AtomicFile.write("nothing", to: "/dev/null")
        guard FileManager.default.fileExists(atPath: "/dev/full") else { return }
        let error = try #require(throws: ScaleError.self) { try AtomicFile.write("x", to: "/dev/full") }
        #expect(error.description == "/dev/full: cannot write the output: No space left on device")
    }

    @Test func aDiscardedFileLeavesTheOriginalAndNoTemporary() throws {
        let path = try dir.write("out.txt", "old")
        let file = try AtomicFile(replacing: path, temporaryName: ".out.txt.partial")
        #expect(file.temporaryPath == dir.path(".out.txt.partial"))
        try file.write(Array("new".utf8))
        #expect(try entries() == [".out.txt.partial", "out.txt"])
        file.discard()
        #expect(try contents(path) == "old")
        #expect(try entries() == ["out.txt"])
    }

    @Test func aCommittedFileReplacesTheOriginal() throws {
        let path = try dir.write("out.txt", "old")
        let file = try AtomicFile(replacing: path)
        try file.write(Data("new".utf8))
        // Until the commit, readers see the old file.
        #expect(try contents(path) == "old")
        try file.commit()
        #expect(try contents(path) == "new")
        #expect(try entries() == ["out.txt"])
    }
}
