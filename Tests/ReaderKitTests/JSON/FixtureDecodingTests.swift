import Foundation
import Testing
@testable import ReaderKit
import TestSupport

/// Every recorded response in ../shared/fixtures decodes, or is recognised as the error it is.
@Suite struct FixtureDecodingTests {
    let decoder = ReaderJSON.makeDecoder()

    func decode<T: Decodable>(_ type: T.Type, _ name: String) throws -> T {
        try decoder.decode(type, from: Data(Fixtures.bytes(name)))
    }

    @Test(.replaysRecordings) func swapiListsDecode() throws {
        let films = try decode(SWAPIPage<Film>.self, "swapi/films.json")
        #expect(films.count == 6 && films.results.count == 6 && films.next == nil)
        #expect(films.results[0].releaseDate == CalendarDay(year: 1977, month: 5, day: 25))
        #expect(try decode(SWAPIPage<Person>.self, "swapi/people_page1.json").results.count == 10)
        #expect(try decode(SWAPIPage<Person>.self, "swapi/people_page9.json").next == nil)
        #expect(try decode(SWAPIPage<Person>.self, "swapi/people_search_empty.json").results.isEmpty)
        #expect(try decode(SWAPIPage<Planet>.self, "swapi/planets_page1.json").results[0].populationCount == 200_000)
        #expect(try decode(SWAPIPage<Planet>.self, "swapi/planets_search_tat.json").count == 1)
        #expect(try decode(SWAPIPage<Species>.self, "swapi/species_page1.json").results.count == 10)
        #expect(try decode(SWAPIPage<Starship>.self, "swapi/starships_page1.json").results[0].megalights == "60")
        #expect(try decode(SWAPIPage<Vehicle>.self, "swapi/vehicles_page1.json").results[0].id == 4)
    }

    @Test(.replaysRecordings) func swapiResourcesDecodeWithTheirDates() throws {
        let luke = try decode(Person.self, "swapi/people_1.json")
        #expect(luke.name == "Luke Skywalker" && luke.id == 1 && luke.heightCentimetres == 172)
        let created = try #require(ReaderJSON.parseTimestamp("2014-12-09T13:50:51.644Z"))
        #expect(abs(luke.created.timeIntervalSince(created)) < 0.001)
        let film = try decode(Film.self, "swapi/films_1.json")
        #expect(film.episodeID == 4 && film.releaseDate.description == "1977-05-25")
    }

    @Test func swapiNumbersStayFaithful() {
        #expect(SWAPINumber.parse("1,358") == 1358)
        #expect(SWAPINumber.parse("36.8 ") == 36.8)
        #expect(SWAPINumber.parse("unknown") == nil)
        #expect(SWAPINumber.parse("n/a") == nil)
        #expect(SWAPINumber.parse("30-165") == nil)
    }

    @Test(.replaysRecordings, arguments: ["reddit/listing_frontpage_limit5.json", "reddit/listing_r_python_hot.json",
                      "reddit/listing_r_popular_hot_2026.json", "reddit/listing_edge_newline_domain_python.org_top_all.json"])
    func redditListingsDecode(name: String) throws {
        let listing = try decode(RedditListing.self, name)
        #expect(!listing.posts.isEmpty)
        #expect(listing.posts.count == listing.children.count)
        #expect(listing.posts[0].createdUTC > Date(timeIntervalSince1970: 1_400_000_000))
    }

    @Test(.replaysRecordings) func theCommentPageDecodesWithItsTree() throws {
        let page = try decode(RedditCommentPage.self, "reddit/comments_r_python_2xmo63.json")
        #expect(page.post.id == "2xmo63")
        #expect(!page.comments.comments.isEmpty)
    }

    @Test(.replaysRecordings) func everyJSONFixtureDecodesOrIsARecognisedError() throws {
        let all = Fixtures.names(in: "swapi", withExtension: "json") + Fixtures.names(in: "reddit", withExtension: "json")
        #expect(all.count >= 17)
        for name in all where !name.hasSuffix("responses.json") {
            let data = Data(Fixtures.bytes(name))
            let decodes = (try? decoder.decode(RedditListing.self, from: data)) != nil
                || (try? decoder.decode(RedditCommentPage.self, from: data)) != nil
                || (try? decoder.decode(SWAPIPage<Person>.self, from: data)) != nil
                || (try? decoder.decode(SWAPIPage<Film>.self, from: data)) != nil
                || (try? decoder.decode(SWAPIPage<Planet>.self, from: data)) != nil
                || (try? decoder.decode(SWAPIPage<Species>.self, from: data)) != nil
                || (try? decoder.decode(SWAPIPage<Starship>.self, from: data)) != nil
                || (try? decoder.decode(SWAPIPage<Vehicle>.self, from: data)) != nil
                || (try? decoder.decode(Person.self, from: data)) != nil
                || (try? decoder.decode(Film.self, from: data)) != nil
                || (try? decoder.decode([String: String].self, from: data))?["films"] != nil  // the API root
            #expect(decodes || APIErrorBody.recognise(data) != nil, "\(name) neither decodes nor is a known error body")
        }
    }

    @Test(.replaysRecordings) func errorBodiesAreRecognisedWithTheServersReason() throws {
        // Reddit reads its own `quarantine_message` as well as the common shapes.
        let quarantined = try #require(RedditService().errorBody(in: Data(Fixtures.bytes("reddit/error_403_quarantined_reason.json")), status: 403))
        #expect(quarantined.reason == "quarantined" && quarantined.statusInBody == 403)
        #expect(quarantined.summary.contains("misinformation"))
        #expect(try #require(APIErrorBody.recognise(Fixtures.bytes("reddit/error_404_not_found_r_a_plus_b.json"))).saysNotFound)
        #expect(try #require(APIErrorBody.recognise(Fixtures.bytes("reddit/error_401_invalid_token.json"))).statusInBody == 401)
        #expect(try #require(APIErrorBody.recognise(Fixtures.bytes("reddit/error_500_internal_server_error.json"))).message == "Internal Server Error")
        #expect(try #require(APIErrorBody.recognise(Fixtures.bytes("swapi/people_9999_not_found.json"))).saysNotFound)
        let common = try #require(APIErrorBody.recognise(Array(#"{"error": true, "reason": "bad page"}"#.utf8)))
        #expect(common.reason == "bad page")
        #expect(APIErrorBody.recognise(Fixtures.bytes("swapi/films_1.json")) == nil)
        #expect(APIErrorBody.recognise(Fixtures.bytes("reddit/error_429_too_many_requests.html")) == nil)
    }

    @Test(.replaysRecordings) func decodingFailuresKeepTheCodingPath() throws {
        let broken = Data(#"{"count": 1, "next": null, "previous": null, "results": [{"title": "x"}]}"#.utf8)
        var failure: DecodingFailure?
        do { _ = try decoder.decode(SWAPIPage<Film>.self, from: broken) } catch { failure = DecodingFailure(error, url: "u") }
        let classified = try #require(failure)
        #expect(classified.reason == .keyMissing)
        #expect(classified.codingPath.hasPrefix("results[0]."))
        do { _ = try decoder.decode(SWAPIPage<Film>.self, from: Data("{not json".utf8)) } catch { failure = DecodingFailure(error, url: "u") }
        #expect(failure?.reason == .corrupt)
    }
}
