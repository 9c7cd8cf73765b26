import Foundation
import Testing
@testable import ReaderKit
import TestSupport

/// The helper that opens the cache file and the config file: what it says a file is, who may read
/// it, and that it reads no more than it is allowed. Real files in a temporary folder.
@Suite struct UntrustedFileTests {
    /// Removed with this test's instance of the suite.
    let scratch = TemporaryFolder("reader-untrusted")

    func file(_ name: String, holding text: String, mode: mode_t = 0o600) throws -> String {
        let path = scratch.url.appendingPathComponent(name).path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        #expect(chmod(path, mode) == 0)
        return path
    }

    @Test func aPrivateFileIsReadWholeUpToItsCap() throws {
        let path = try file("private", holding: "twelve bytes")
        let opened = try UntrustedFile.open(path)
        #expect(opened.status.kind == .regularFile)
        #expect(opened.status.size == 12)
        #expect(opened.status.permissions == 0o600)
        #expect(opened.status.isOwnedByThisUser && opened.status.isPrivate)
        #expect(try opened.readAll(atMost: 12) == Array("twelve bytes".utf8))
        #expect(opened.read(count: 5, at: 7) == Array("bytes".utf8))
        #expect(opened.read(count: 6, at: 7) == nil, "past the end: short")
    }

    @Test func aFileLargerThanTheCapIsNotRead() throws {
        let path = try file("large", holding: String(repeating: "x", count: 40_000))
        let opened = try UntrustedFile.open(path)
        #expect(try opened.readAll(atMost: 39_999) == nil)
        #expect(try UntrustedFile.open(path).readAll(atMost: 40_000)?.count == 40_000)
    }

    @Test(arguments: [(mode_t(0o644), false), (0o640, false), (0o604, false), (0o400, true), (0o600, true), (0o700, true)])
    func aFileOthersMayReadIsNotPrivate(_ mode: mode_t, _ isPrivate: Bool) throws {
        let path = try file("mode-\(String(mode, radix: 8))", holding: "secret", mode: mode)
        #expect(try UntrustedFile.open(path).status.isPrivate == isPrivate, "\(String(mode, radix: 8))")
        #expect(try UntrustedFile.status(of: path).isPrivate == isPrivate)
    }

    @Test func nothingAtThePathIsMissing() throws {
        let regular = try file("regular", holding: "x")
        for path in [scratch.url.appendingPathComponent("none").path, regular + "/under-a-file"] {
            #expect(throws: UntrustedFile.SystemError.self) { _ = try UntrustedFile.open(path) }
            do {
                _ = try UntrustedFile.open(path)
            } catch {
                #expect(error.isMissing, "\(path): \(error)")
            }
        }
    }

    @Test func aFIFOIsOpenedWithoutWaitingAndSaysWhatItIs() throws {
        let path = scratch.url.appendingPathComponent("fifo").path
        #expect(mkfifo(path, 0o600) == 0)
        // Nothing writes to it: a blocking open would never return.
        let opened = try UntrustedFile.open(path)
        #expect(opened.status.kind == .fifo)
        #expect(opened.status.kind.description == "a FIFO (named pipe)")
    }

    @Test func aFolderSaysWhatItIs() throws {
        #expect(try UntrustedFile.status(of: scratch.url.path).kind == .folder)
        #expect(try UntrustedFile.open(scratch.url.path).status.kind == .folder)
        #expect(try UntrustedFile.status(of: "/dev/null").kind == .characterDevice)
    }

    @Test func aSymbolicLinkIsFollowedUnlessAskedNotTo() throws {
        let target = try file("target", holding: "through the link", mode: 0o644)
        let link = scratch.url.appendingPathComponent("link").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let opened = try UntrustedFile.open(link)
        #expect(opened.status.kind == .regularFile && !opened.status.isPrivate, "the target is what is checked")
        #expect(try opened.readAll(atMost: 100) == Array("through the link".utf8))
        #expect(try UntrustedFile.status(of: link, followingLinks: false).kind == .symbolicLink)
    }
}
