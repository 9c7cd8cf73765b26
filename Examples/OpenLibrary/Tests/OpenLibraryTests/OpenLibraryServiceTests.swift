import Foundation
import OpenLibraryKit
import ReaderKit
import Testing

/// The service's rules, one at a time, through ReaderKit's public API: what its error bodies
/// say, how a missing record is worded, how requests are adapted, which ids and searches are
/// accepted, and how its records decode.
@Suite struct OpenLibraryServiceTests {
    let service = try! OpenLibrary(baseURL: URL(string: "http://127.0.0.1:1")!, contact: "books@example.org")

    // MARK: Error bodies

    @Test func notfoundIsReadAsAReasonTheKeyAndA404() {
        let body = OpenLibraryFixtures.data("error_404_notfound_works_OL0W.json")
        #expect(service.errorBody(in: body, status: 404)
                == APIErrorBody(reason: "notfound", message: "/works/OL0W", statusInBody: 404))
        #expect(service.errorBody(in: body, status: 404)?.saysNotFound == true)
    }

    @Test func badDataKeepsItsMessageAndTheStatusInfobaseGivesIt() {
        let body = OpenLibraryFixtures.data("error_400_bad_data.json")
        #expect(service.errorBody(in: body, status: 400)
                == APIErrorBody(reason: "bad_data", message: "expected /type/int, found /type/string", statusInBody: 400))
    }

    @Test(arguments: [
        "<html><title>503</title></html>",             // an error page
        #"{"error": true, "reason": "x"}"#,            // another API's shape
        #"{"error": "Not Found: the page is gone"}"#,  // a sentence, not Infobase's word
        #"{"message": "notfound"}"#,                   // no error word at all
        "",
    ])
    func anythingButInfobasesShapeIsNotItsErrorBody(text: String) {
        #expect(service.errorBody(in: Data(text.utf8), status: 500) == nil)
    }

    @Test func anErrorBodyLargerThanErrorBodiesAreIsNotRead() {
        let padding = String(repeating: " ", count: APIErrorBody.maximumBodySize)
        #expect(service.errorBody(in: Data((#"{"error": "notfound"}"# + padding).utf8), status: 404) == nil)
    }

    // MARK: Explanations

    @Test func aMissingWorkOrAuthorIsSaidInOpenLibrarysWords() {
        let work = StatusFailure(status: 404, url: "http://127.0.0.1:1/works/OL0W.json",
                                 apiError: APIErrorBody(reason: "notfound", message: "/works/OL0W", statusInBody: 404))
        #expect(service.explanation(of: work) == ServiceExplanation(
            reason: "not_found", message: "Open Library has no work OL0W",
            hint: "check the id: a work's id is OL, digits and W, such as OL45804W"))

        // An HTML 404 (no error body) is as missing.
        let author = StatusFailure(status: 404, url: "https://openlibrary.org/authors/OL99A.json")
        #expect(service.explanation(of: author)?.message == "Open Library has no author OL99A")
        #expect(service.explanation(of: author)?.hint == "check the id: an author's id is OL, digits and A, such as OL23919A")
    }

    @Test func otherFailuresKeepTheGenericWording() {
        #expect(service.explanation(of: StatusFailure(status: 404, url: "http://127.0.0.1:1/search.json?q=x")) == nil)
        #expect(service.explanation(of: StatusFailure(status: 500, url: "http://127.0.0.1:1/works/OL45804W.json")) == nil)
        #expect(service.explanation(of: StatusFailure(
            status: 400, url: "http://127.0.0.1:1/works/OL45804W.json",
            apiError: APIErrorBody(reason: "bad_data", message: "expected /type/int", statusInBody: 400))) == nil)
    }

    // MARK: Requests

    @Test func adaptingNamesTheApplicationAndAddsJSONOnce() {
        var request = ServiceRequest(path: "works/OL45804W", query: [],
                                     headers: ["Accept": "application/json", "User-Agent": "reader/0.1.0"])
        service.adapt(&request)
        service.adapt(&request)
        #expect(request.path == "works/OL45804W.json")
        #expect(request.headers == ["Accept": "application/json",
                                    "User-Agent": "openlibrary-example/0.1.0 (ReaderKit; books@example.org)"])
    }

    @Test func theEndpointsNameTheRecordAndTheServiceOnly() throws {
        let work = try OpenLibrary.work("/works/ol45804w")
        #expect(work.service == "openlibrary")
        #expect(work.path == "works/OL45804W")
        #expect(work.query.isEmpty)
        #expect(try OpenLibrary.author("OL23919A").path == "authors/OL23919A")
        let search = try OpenLibrary.search(" fantastic  mr fox ", limit: 5)
        #expect(search.path == "search")
        #expect(search.query == [URLQueryItem(name: "q", value: "fantastic  mr fox"), URLQueryItem(name: "limit", value: "5"),
                                 URLQueryItem(name: "fields", value: "key,title,author_name,author_key,first_publish_year,edition_count")])
    }

    @Test(arguments: ["OL45804W", "ol45804w", "/works/OL45804W", " OL45804W ", "OL0W", "OL1234567890W"])
    func workIDsAreRead(text: String) throws {
        #expect(try OpenLibraryID.parse(text, as: .work).kind == .work)
    }

    @Test(arguments: ["", "OL", "OLW", "45804W", "OL45804", "OL45804M", "OL12345678901W", "OL-1W", "OL４５W", "OL1W\u{1B}[31m",
                      "/authors/OL45804W", "works/OL45804W/extra"])
    func anythingElseIsNotAWorksID(text: String) {
        #expect(throws: ReaderError.self) { try OpenLibraryID.parse(text, as: .work) }
        #expect(OpenLibraryID(text, kind: .work) == nil)
    }

    @Test func anIDIsWrittenInCapitalsWhateverCaseItCameIn() throws {
        let id = try OpenLibraryID.parse("ol23919a", as: .author)
        #expect(id.description == "OL23919A")
        #expect(id.key == "/authors/OL23919A")
    }

    @Test(arguments: [String(repeating: "a", count: 201), "line\nbreak", "bell\u{7}", "\u{202E}reversed"])
    func aSearchForTextATerminalCannotShowIsRefused(text: String) {
        #expect(throws: ReaderError.self) { try OpenLibrary.search(text) }
    }

    @Test(arguments: [0, -1, 101, Int.max])
    func aLimitOutOfRangeIsRefused(limit: Int) {
        let error = #expect(throws: ReaderError.self) { try OpenLibrary.search("dahl", limit: limit) }
        // The parameter is named as a name, so that a command can word it as its flag.
        #expect(error?.wording == "\(name: "limit") must be a whole number from 1 to 100, got \(limit)")
        #expect(error?.message == "limit must be a whole number from 1 to 100, got \(limit)")
    }

    @Test func theEnvironmentPointsTheServiceElsewhere() throws {
        let service = try OpenLibrary.fromEnvironment(["OPENLIBRARY_URL": "http://127.0.0.1:8080/mirror/", "OPENLIBRARY_CONTACT": ""])
        #expect(service.baseURL.absoluteString == "http://127.0.0.1:8080/mirror")
        #expect(service.contact == nil)
        #expect(try OpenLibrary.fromEnvironment([:]).baseURL.absoluteString == "https://openlibrary.org")
    }

    // MARK: Records

    @Test func aWorkDecodesWithItsDescriptionInEitherForm() throws {
        let work = try ReaderJSON.makeDecoder().decode(OpenLibrary.Work.self, from: OpenLibraryFixtures.data("works_OL45804W.json"))
        #expect(work.id.description == "OL45804W")
        #expect(work.title == "Fantastic Mr Fox")
        #expect(work.authorIDs.map(\.description) == ["OL34184A"])
        #expect(work.firstPublishDate == "1970")
        #expect(work.subjects.count == 10)
        #expect(work.description?.hasPrefix("Three farmers, Boggis, Bunce and Bean") == true)

        let plain = #"{"key": "/works/OL1W", "title": "T", "description": "plain", "authors": [{"type": {"key": "/type/author_role"}}]}"#
        let decoded = try JSONDecoder().decode(OpenLibrary.Work.self, from: Data(plain.utf8))
        #expect(decoded.description == "plain")
        // A role that names no author is left out, not an error.
        #expect(decoded.authorIDs.isEmpty)
    }

    @Test func authorsDecodeWithABioInEitherForm() throws {
        let dahl = try JSONDecoder().decode(OpenLibrary.Author.self, from: OpenLibraryFixtures.data("authors_OL34184A.json"))
        #expect(dahl.name == "Roald Dahl")
        #expect(dahl.birthDate == "13 September 1916" && dahl.deathDate == "23 November 1990")
        #expect(dahl.bio == "British novelist, short story writer and screenwriter, who wrote for children and adults.")
        let rowling = try JSONDecoder().decode(OpenLibrary.Author.self, from: OpenLibraryFixtures.data("authors_OL23919A.json"))
        #expect(rowling.id.description == "OL23919A")
        #expect(rowling.deathDate == nil)
        #expect(rowling.bio?.hasPrefix("Joanne Rowling, who writes as J. K. Rowling") == true)
    }

    @Test func aSearchPageDecodes() throws {
        let page = try JSONDecoder().decode(OpenLibrary.SearchPage.self, from: OpenLibraryFixtures.data("search_lord_of_the_rings.json"))
        #expect(page.numberFound == 629)
        #expect(page.results.map(\.id.description) == ["OL27448W", "OL14933414W", "OL5720023W"])
        #expect(page.results.first == OpenLibrary.SearchResult(
            id: try OpenLibraryID.parse("OL27448W", as: .work), title: "The Lord of the Rings",
            authorNames: ["J.R.R. Tolkien"], firstPublishYear: 1954, editionCount: 230))
    }

    @Test func numbersNoRecordCanMeanAreReadAsUnknown() throws {
        let text = #"""
            {"numFound": 1e300, "start": -4, "docs": [
              {"key": "/works/OL1W", "title": "A", "first_publish_year": 123456, "edition_count": 2.5},
              {"key": "/works/OL2W", "title": "B", "first_publish_year": -9223372036854775808, "edition_count": 1e400}]}
            """#
        let page = try JSONDecoder().decode(OpenLibrary.SearchPage.self, from: Data(text.utf8))
        #expect(page.numberFound == 2)
        #expect(page.start == 0)
        #expect(page.results.map(\.firstPublishYear) == [nil, nil])
        #expect(page.results.map(\.editionCount) == [nil, nil])
    }

    @Test func aRecordWhoseKeyIsNotItsKindsDoesNotDecode() {
        let text = #"{"key": "/authors/OL1A", "title": "not a work"}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(OpenLibrary.Work.self, from: Data(text.utf8)) }
    }
}
