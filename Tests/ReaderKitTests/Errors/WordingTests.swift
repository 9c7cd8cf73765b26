import Foundation
import ReaderKit
import Testing

/// A sentence that names parameters keeps them apart from its text, so that each front end names
/// them its own way; ReaderKit's own wording keeps the API's names.
@Suite struct WordingTests {
    @Test func aLiteralWithNamesKeepsThemApartFromItsText() {
        let page = 0
        let wording: Wording = "\(name: "page") must be a whole number from 1, got \(page); see \(name: "limit")"
        #expect(wording.parts == [.name("page"), .text(" must be a whole number from 1, got 0; see "), .name("limit")])
        #expect(wording.names == ["page", "limit"])
        #expect(wording.description == "page must be a whole number from 1, got 0; see limit")
        #expect(wording.worded { "--" + $0 } == "--page must be a whole number from 1, got 0; see --limit")
    }

    @Test func plainTextNamesNothing() {
        let plain = Wording("cannot connect to 127.0.0.1:9")
        #expect(plain.parts == [.text("cannot connect to 127.0.0.1:9")] && plain.names.isEmpty)
        #expect(Wording("").parts.isEmpty)
        #expect(Wording(parts: [.text("a"), .text(""), .text("b"), .name("x")]).parts == [.text("ab"), .name("x")])
    }

    @Test func redactionTouchesTheTextNeverTheNames() {
        let wording: Wording = "\(name: "after") takes a fullname, got \("s3cret")"
        let redacted = wording.mappingText { $0.replacingOccurrences(of: "s3cret", with: "[redacted]") }
        #expect(redacted.worded { "--" + $0 } == "--after takes a fullname, got [redacted]")
        let error = ReaderError.invalidArgument(wording).redacting(["s3cret"])
        #expect(error.message == "after takes a fullname, got [redacted]")
    }

    @Test func anArgumentErrorAndAStaleCopyNameTheSettingsTheyAreAbout() throws {
        #expect(throws: ReaderError.self) { try SWAPI.list(Film.self, search: " ") }
        do {
            _ = try SWAPI.list(Film.self, search: " ")
        } catch {
            #expect(error.wording.names == ["search"] && error.message == "search needs some text")
        }
        let tooOld = ReaderError.cache(CacheFailure(.tooOld, path: "p", detail: ""))
        #expect(tooOld.wording.names == ["FreshnessPolicy.maximumStale"])
        #expect(tooOld.message == "the only cached copy is older than FreshnessPolicy.maximumStale allows")
    }
}
