import Foundation
import Testing
@testable import ReaderKit
import TestSupport

/// `JSONValue(parsing:)` accepts what JSONDecoder accepts, so that `--json` never loses a body
/// the models read; `serialized()` writes it back as reader's JSONEncoder would, numbers as sent.
@Suite struct JSONValueAsJSONDecoderReadsTests {
    private var films: [UInt8] { Fixtures.bytes("swapi/films.json") }

    /// `films.json` with `members` added to the first film, before its title.
    private func filmsWithFirstFilm(adding members: String) -> [UInt8] {
        let text = String(decoding: films, as: UTF8.self)
        return Array(text.replacingOccurrences(of: #"{"title":"A New Hope""#, with: #"{"# + members + #","title":"A New Hope""#).utf8)
    }

    private func utf16(_ bytes: [UInt8], bigEndian: Bool) -> [UInt8] {
        String(decoding: bytes, as: UTF8.self).utf16.flatMap { unit in
            bigEndian ? [UInt8(unit >> 8), UInt8(unit & 0xFF)] : [UInt8(unit & 0xFF), UInt8(unit >> 8)]
        }
    }

    private func utf32(_ bytes: [UInt8], bigEndian: Bool) -> [UInt8] {
        String(decoding: bytes, as: UTF8.self).unicodeScalars.flatMap { scalar in
            let little = (0..<4).map { UInt8((scalar.value >> (8 * $0)) & 0xFF) }
            return bigEndian ? Array(little.reversed()) : little
        }
    }

    /// Bodies the models read: each must give the six films to `--json` too.
    private var bodiesTheModelsRead: [(name: String, bytes: [UInt8])] {
        [
            ("a UTF-8 byte order mark", [0xEF, 0xBB, 0xBF] + films),
            ("UTF-16 LE with a mark", [0xFF, 0xFE] + utf16(films, bigEndian: false)),
            ("UTF-16 BE with a mark", [0xFE, 0xFF] + utf16(films, bigEndian: true)),
            ("UTF-16 LE without", utf16(films, bigEndian: false)),
            ("UTF-16 BE without", utf16(films, bigEndian: true)),
            ("UTF-32 LE without", utf32(films, bigEndian: false)),
            ("UTF-32 BE without", utf32(films, bigEndian: true)),
            ("numbers beyond Double", filmsWithFirstFilm(adding: #""a":1e999,"b":-1e-400,"c":123456789012345678901234567890"#)),
            ("trailing commas", filmsWithFirstFilm(adding: #""a":[1,2,],"b":{"c":1,}"#)),
            ("a control character in a string", filmsWithFirstFilm(adding: "\"a\":\"x\u{01}y\"")),
            ("a lone surrogate", filmsWithFirstFilm(adding: #""a":"\ud800""#)),
            ("a name given twice", filmsWithFirstFilm(adding: #""title":"Twice""#)),
        ]
    }

    @Test(.replaysRecordings) func everyBodyTheModelsReadParsesWithEveryItem() throws {
        for (name, bytes) in bodiesTheModelsRead {
            let page = try ReaderJSON.makeDecoder().decode(SWAPIPage<Film>.self, from: Data(bytes))
            #expect(page.results.count == 6, "\(name)")
            let value = try JSONValue(parsing: bytes)
            #expect(value["results"]?.arrayValue.count == 6, "\(name)")
            #expect(value["results"]?[5]?["title"] == .string("Revenge of the Sith"), "\(name)")
        }
    }

    @Test(.replaysRecordings) func invalidUTF8InASkippedStringIsReplaced() throws {
        var bytes = Array(#"{"count":1,"next":null,"previous":null,"results":[{"odd":"x"#.utf8) + [0xFF]
        bytes += Array(#"y","title":"T","episode_id":1,"opening_crawl":"","director":"","producer":"","release_date":"1977-05-25","characters":[],"planets":[],"starships":[],"vehicles":[],"species":[],"created":"2014-12-10T14:23:31.880000Z","edited":"2014-12-20T19:49:45.256000Z","url":"https://swapi.dev/api/films/1/"}]}"#.utf8)
        #expect(try ReaderJSON.makeDecoder().decode(SWAPIPage<Film>.self, from: Data(bytes)).results.count == 1)
        #expect(try JSONValue(parsing: bytes)["results"]?[0]?["odd"] == .string("x\u{FFFD}y"))
    }

    @Test(.replaysRecordings) func aNameGivenTwiceKeepsTheFirstValueAsJSONDecoderDoes() throws {
        let bytes = filmsWithFirstFilm(adding: #""title":"First""#)
        let page = try ReaderJSON.makeDecoder().decode(SWAPIPage<Film>.self, from: Data(bytes))
        #expect(page.results[0].title == "First")
        #expect(try JSONValue(parsing: bytes)["results"]?[0]?["title"] == .string("First"))
        #expect(try JSONValue(parsing: Array(#"{"a":1,"a":2}"#.utf8)) == .object(["a": .integer(1)]))
    }

    @Test(arguments: [("1e999", "1e999"), ("-1E+400", "-1E+400"), ("1e-999", "1e-999"), ("-0.0000e-999", nil),
                      ("18446744073709551616", "18446744073709551616"), ("-9223372036854775809", "-9223372036854775809")])
    func numbersBeyondInt64AndDoubleAreKeptAsSent(text: String, kept: String?) throws {
        let value = try JSONValue(parsing: Array(text.utf8))
        if let kept {
            #expect(value == .numberText(kept))
            #expect(String(decoding: JSONValue.array([value]).serialized(), as: UTF8.self) == "[\(kept)]")
        } else {
            #expect(value == .integer(0), "zero written with digits that are all zero is zero")
        }
    }

    @Test(.replaysRecordings) func malformedTokensJSONDecoderSkipsUnreadAreRefused() throws {
        // JSONDecoder lets these pass in a field no model reads; there is no value to write back.
        for token in ["01", "1.", "-", "1e5e5", #""\x""#] {
            let bytes = filmsWithFirstFilm(adding: #""odd":"# + token)
            #expect(throws: Never.self, "\(token)") { try ReaderJSON.makeDecoder().decode(SWAPIPage<Film>.self, from: Data(bytes)) }
            #expect(throws: JSONParseError.self, "\(token)") { try JSONValue(parsing: bytes) }
        }
    }

    @Test func encodingANumberKeptAsTextWithJSONEncoderKeepsItOrRefuses() throws {
        let encoder = ReaderJSON.makeEncoder()
        #expect(String(decoding: try encoder.encode([JSONValue.numberText("18446744073709551616")]), as: UTF8.self) == "[18446744073709551616]")
        #expect(throws: EncodingError.self) { try encoder.encode([JSONValue.numberText("1e999")]) }
    }

    // MARK: serialized()

    @Test(.replaysRecordings) func everyFixtureIsSerializedByteForByteAsReadersEncoderWritesIt() throws {
        let files = Fixtures.names(in: "swapi", withExtension: "json") + Fixtures.names(in: "reddit", withExtension: "json")
        #expect(files.count > 15)
        for file in files {
            let value = try JSONValue(parsing: Fixtures.bytes(file))
            #expect(value.serialized() == Self.escapedForTerminals(try ReaderJSON.makeEncoder().encode(value)), "\(file)")
        }
    }

    /// JSONEncoder's output with the documented extra escapes: DEL, C1, U+061C, U+200B, U+200E/F,
    /// U+2028/9, U+202A–E, U+2060, U+2066–9 and U+FEFF as `\u` with four lowercase hex digits.
    static func escapedForTerminals(_ data: Data) -> [UInt8] {
        let escaped: Set<UInt32> = Set(Array(0x7F...0x9F) + [0x061C, 0x200B, 0x200E, 0x200F, 0x2028, 0x2029, 0x2060, 0xFEFF]
                                       + Array(0x202A...0x202E) + Array(0x2066...0x2069))
        var text = ""
        for scalar in String(decoding: data, as: UTF8.self).unicodeScalars {
            if escaped.contains(scalar.value) {
                let hex = String(scalar.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            } else {
                text.unicodeScalars.append(scalar)
            }
        }
        return Array(text.utf8)
    }

    @Test func scalarsThatActOnATerminalAreEscaped() throws {
        let value = JSONValue.string("a\u{9B}31m\u{202E}b\u{7F}\u{2028}c\u{200D}d")
        #expect(String(decoding: value.serialized(), as: UTF8.self) == #""a\u009b31m\u202eb\u007f\u2028c\#u{200D}d""#)
        #expect(try JSONValue(parsing: value.serialized()) == value)
    }

    @Test func keysAreInUTF8OrderAsJSONEncoderPutsThem() throws {
        // Neither numeric ("a9" before "a10") nor `String <` (which reads "e\u{301}x" as "éx", after "ä").
        let value = JSONValue.object(["a9": .integer(4), "ä": .integer(6), "B": .integer(1), "e\u{301}x": .integer(5),
                                      "_": .integer(2), "a10": .integer(3)])
        let expected = "{\"B\":1,\"_\":2,\"a10\":3,\"a9\":4,\"e\u{301}x\":5,\"ä\":6}"
        #expect(String(decoding: value.serialized(), as: UTF8.self) == expected)
        #expect(String(decoding: try ReaderJSON.makeEncoder().encode(value), as: UTF8.self) == expected)
    }

    @Test func randomValuesAreSerializedAsReadersEncoderWritesThemAndReadBack() throws {
        let seed = UInt64.random(in: 1...UInt64.max)
        var generator = SplitMix64(seed: seed)
        for round in 0..<1_000 {
            let value = Self.randomValue(depth: 0, using: &generator)
            let bytes = value.serialized()
            #expect(bytes == Self.escapedForTerminals(try ReaderJSON.makeEncoder().encode(value)), "seed \(seed), round \(round)")
            #expect(try JSONValue(parsing: bytes) == value, "seed \(seed), round \(round)")
        }
    }

    @Test func nestingJSONEncoderRefusesIsSerialized() throws {
        let deepest = String(repeating: "[", count: JSONValue.maximumDepth) + String(repeating: "]", count: JSONValue.maximumDepth)
        let value = JSONValue.object(["items": .array([try JSONValue(parsing: Array(deepest.utf8))])])
        #expect(throws: EncodingError.self) { try ReaderJSON.makeEncoder().encode(value) }
        #expect(value.serialized() == Array(#"{"items":["#.utf8) + Array(deepest.utf8) + Array("]}".utf8))
    }

    /// A value with every kind, keys that sort differently by bytes and by `<` (`a10`, `a9`, `é`,
    /// `e\u{301}` before `ä`), strings with every control character, and doubles across their range.
    private static func randomValue(depth: Int, using generator: inout SplitMix64) -> JSONValue {
        let kind = Int.random(in: depth > 4 ? 0..<5 : 0..<7, using: &generator)
        switch kind {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &generator))
        case 2: return .integer(Int64.random(in: .min ... .max, using: &generator) >> Int64.random(in: 0...63, using: &generator))
        case 3:
            let double = Double(sign: Bool.random(using: &generator) ? .minus : .plus,
                                exponent: Int.random(in: -1074...1023, using: &generator),
                                significand: Double.random(in: 1..<2, using: &generator))
            // As the parser reads it back: an integral double within Int64 is an integer.
            return Int64(exactly: double).map(JSONValue.integer) ?? .number(double)
        case 4: return .string(randomString(using: &generator))
        case 5: return .array((0..<Int.random(in: 0...4, using: &generator)).map { _ in randomValue(depth: depth + 1, using: &generator) })
        default:
            var members: [String: JSONValue] = [:]
            for _ in 0..<Int.random(in: 0...5, using: &generator) {
                members[randomString(using: &generator)] = randomValue(depth: depth + 1, using: &generator)
            }
            return .object(members)
        }
    }

    private static func randomString(using generator: inout SplitMix64) -> String {
        let pieces = ["a", "a10", "a9", "B", "_", "é", "ä", "e\u{301}", "\u{7F}", "\u{2028}", "😀", "/", "\\", "\"", " ", "\u{FEFF}", "\u{FFFD}"]
            + (0..<0x20).map { String(Unicode.Scalar(UInt8($0))) }
        return (0..<Int.random(in: 0...6, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
    }
}

