import Foundation
import Testing
@testable import ReaderKit
import TestSupport

/// `JSONValue(parsing:)`: the same tree JSONDecoder builds, in linear time, at any depth JSON allows.
@Suite struct JSONParserTests {
    @Test(.replaysRecordings) func everyFixtureParsesToWhatJSONDecoderBuilds() throws {
        let files = Fixtures.names(in: "swapi", withExtension: "json") + Fixtures.names(in: "reddit", withExtension: "json")
        #expect(files.count > 15)
        for file in files {
            let bytes = Fixtures.bytes(file)
            let decoded = try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
            #expect(try JSONValue(parsing: bytes) == decoded, "\(file)")
        }
    }

    /// The check above compares two ReaderKit readers with each other; these values are read off
    /// the files by eye, so a mistake both share still fails here.
    @Test(.replaysRecordings) func fixturesHoldWhatTheFilesSay() throws {
        let films = try JSONValue(parsing: SWAPIResources.page("films"))
        #expect(films["count"] == .integer(6) && films["next"] == .null)
        #expect(films["results"]?[0]?["title"] == .string("A New Hope"))
        #expect(films["results"]?[0]?["episode_id"] == .integer(4))
        #expect(films["results"]?.arrayValue.count == 6)
        let popular = try JSONValue(parsing: Fixtures.bytes("reddit/listing_r_popular_hot_2026.json"))
        let first = popular["data"]?["children"]?[0]?["data"]
        #expect(popular["data"]?["children"]?.arrayValue.count == 100)
        #expect(first?["title"] == .string("Blursed_Self defence"))
        #expect(first?["score"] == .integer(1913))
        #expect(first?["upvote_ratio"] == .number(0.85))
        #expect(first?["over_18"] == .bool(false) && first?["approved_at_utc"] == .null)
        #expect(first?["created_utc"] == .integer(1_776_083_057), "a whole number written 1776083057.0")
    }

    @Test func scalarsEscapesAndNumbers() throws {
        let value = try JSONValue(parsing: Array(#" {"s": "a\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00", "i": -12, "big": 18446744073709551616, "d": 1.5e2, "z": -0, "t": true, "f": false, "n": null, "a": [], "o": {}} "#.utf8))
        #expect(value["s"] == .string("a\"\\/\u{08}\u{0C}\n\r\té😀"))
        #expect(value["i"] == .integer(-12))
        #expect(value["big"] == .numberText("18446744073709551616"), "beyond Int64: its digits, as sent")
        #expect(value["d"] == .integer(150))
        #expect(value["z"] == .integer(0))
        #expect(value["t"] == .bool(true) && value["f"] == .bool(false) && value["n"] == .null)
        #expect(value["a"] == .array([]) && value["o"] == .object([:]))
        #expect(try JSONValue(parsing: Array(#""\ud800x""#.utf8)) == .string("\u{FFFD}x"), "a lone surrogate")
    }

    @Test(arguments: [("12", JSONValue.integer(12)), ("12.0", .integer(12)), ("1.5e2", .integer(150)), ("-0", .integer(0)),
                      ("1.5", .number(1.5)), ("-2.25E-3", .number(-0.00225)),
                      ("9223372036854775807", .integer(Int64.max)), ("9223372036854775808", .numberText("9223372036854775808")),
                      ("1e300", .number(1e300))])
    func numbersReadAsJSONDecoderReadsThem(text: String, expected: JSONValue) throws {
        #expect(try JSONValue(parsing: Array(text.utf8)) == expected)
    }

    @Test(arguments: ["", " ", "{", "{\"a\" 1}", "01", "1.", "-", "1e", "tru", "nul", "\"abc", "\"\\x\"",
                      "[1] 2", "\"\\u12\"", "{1:2}", "[,]", "[1,,2]", "{,}"])
    func invalidJSONIsRejectedWithAnOffset(text: String) {
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: Array(text.utf8)) }
    }

    @Test func nestingIsAcceptedToJSONDecodersDepthAndNoFurther() throws {
        // 512 levels, as JSONDecoder allows (the documented JSONValue.maximumDepth).
        let deepest = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        #expect(throws: Never.self) { try JSONValue(parsing: Array(deepest.utf8)) }
        let tooDeep = "[" + deepest + "]"
        let error = #expect(throws: JSONParseError.self) { try JSONValue(parsing: Array(tooDeep.utf8)) }
        #expect(error?.reason.contains("nested deeper") == true)
        // Decoding through JSONDecoder stops much earlier, where each level still costs little.
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(JSONValue.self, from: Data(deepest.utf8)) }
    }

    @Test func aCommentTreeIsCutBelowSixteenLevelsOfReplies() throws {
        func thread(depth: Int) -> String {
            let comment = #"{"kind":"t1","data":{"id":"c","author":"a","body":"b","score":1,"created_utc":1,"replies":"#
            return #"{"kind":"Listing","data":{"children":["# + String(repeating: comment + #"{"kind":"Listing","data":{"children":["#, count: depth - 1)
                + comment + #""""# + String(repeating: "}}]}}", count: depth - 1) + "}}]}}"
        }
        func levels(_ listing: RedditListing?) -> Int {
            guard let comment = listing?.comments.first else { return 0 }
            return 1 + levels(comment.replies)
        }
        let decoder = ReaderJSON.makeDecoder()
        #expect(levels(try decoder.decode(RedditListing.self, from: Data(thread(depth: 12).utf8))) == 12, "what Reddit sends is kept whole")
        let cut = levels(try decoder.decode(RedditListing.self, from: Data(thread(depth: 90).utf8)))
        // The top-level comment and sixteen levels of replies below it, as RedditComment documents.
        #expect(cut == 17, "cut at \(cut)")
    }
}
