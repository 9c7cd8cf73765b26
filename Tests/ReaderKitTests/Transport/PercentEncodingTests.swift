import Foundation
import PropertyBased
import Testing
@testable import ReaderKit

/// The endpoint's percent-encoding is hand-written (a `CharacterSet` built for every request cost
/// more than the rest of making the URL); Foundation's `addingPercentEncoding` with the sets it
/// replaced is the oracle, over any string. PropertyBased prints the seed of a failing run.
@Suite struct PercentEncodingTests {
    /// ASCII letters and digits: Foundation's `alphanumerics` holds far more (any script's).
    static func asciiAlphanumerics(plus extra: String) -> CharacterSet {
        var set = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)..<Unicode.Scalar(128)))
        set.insert(charactersIn: extra)
        return set
    }

    /// Any bytes as text (replacement characters where they are not UTF-8), or text of any script.
    static let anyText = Gen<UInt64>.bitSet.map { (bits: UInt64) -> String in
        switch bits % 3 {
        case 0: String(decoding: withUnsafeBytes(of: bits) { Array($0) }, as: UTF8.self)
        case 1: ["films/1/", "r/swift/hot.json", "a b", "%2F", "é/ü", "日本", "👩‍🚀", "?#[]", "~-._", "x+y&z=1", ""][Int(bits >> 8) % 11]
        default: String((0..<Int(bits >> 60)).map { Character(Unicode.Scalar(UInt8(truncatingIfNeeded: bits >> ($0 * 7)) & 0x7F)) })
        }
    }

    @Test func aPathIsEncodedAsFoundationEncodesIt() async {
        let allowed = Self.asciiAlphanumerics(plus: "-._~/!$&'()*+,;=:@%")
        await propertyCheck(count: 3000, input: Self.anyText) { text in
            #expect(Endpoint<JSONValue>.encodePath(text[...]) == text.addingPercentEncoding(withAllowedCharacters: allowed), "\(text.debugDescription)")
        }
    }

    @Test func aQueryValueIsEncodedAsFoundationEncodesIt() async {
        let allowed = Self.asciiAlphanumerics(plus: "-._~")
        await propertyCheck(count: 3000, input: Self.anyText) { text in
            #expect(Endpoint<JSONValue>.percentEncode(text) == text.addingPercentEncoding(withAllowedCharacters: allowed), "\(text.debugDescription)")
        }
    }

    @Test func examplesWrittenOut() {
        #expect(Endpoint<JSONValue>.encodePath("r/swift hot/é.json") == "r/swift%20hot/%C3%A9.json")
        #expect(Endpoint<JSONValue>.percentEncode("a+b&c=d e~") == "a%2Bb%26c%3Dd%20e~")
    }
}
