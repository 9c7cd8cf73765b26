import Foundation
import Testing
@testable import ReaderKit
import TestSupport

/// `JSONValue(parsing:)`: the same tree JSONDecoder builds, in linear time, at any depth JSON allows.
@Suite struct JSONParserTests {
    @Test func everyFixtureParsesToWhatJSONDecoderBuilds() throws {
        let files = Fixtures.names(in: "swapi", withExtension: "json") + Fixtures.names(in: "reddit", withExtension: "json")
        #expect(files.count > 15)
        for file in files {
            let bytes = Fixtures.bytes(file)
            let decoded = try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
            #expect(try JSONValue(parsing: bytes) == decoded, "\(file)")
        }
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

    @Test(arguments: ["12", "12.0", "1.5e2", "-0", "1.5", "-2.25E-3", "9223372036854775807", "1e300"])
    func numbersReadAsJSONDecoderReadsThem(text: String) throws {
        #expect(try JSONValue(parsing: Array(text.utf8)) == JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)))
    }

    @Test(arguments: ["", " ", "{", "{\"a\" 1}", "01", "1.", "-", "1e", "tru", "nul", "\"abc", "\"\\x\"",
                      "[1] 2", "\"\\u12\"", "{1:2}", "[,]", "[1,,2]", "{,}"])
    func invalidJSONIsRejectedWithAnOffset(text: String) {
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: Array(text.utf8)) }
    }

    @Test func nestingIsAcceptedToJSONDecodersDepthAndNoFurther() throws {
        let deepest = String(repeating: "[", count: JSONValue.maximumDepth) + String(repeating: "]", count: JSONValue.maximumDepth)
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
        #expect(cut >= 12 && cut <= 17, "cut at \(cut)")
    }
}
