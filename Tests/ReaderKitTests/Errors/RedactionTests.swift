import Foundation
import PropertyBased
import Testing
@testable import ReaderKit

/// A secret a server echoes back is never shown, however it is padded: with characters the
/// terminal does not draw (zero-width, soft hyphen, bidi overrides, tags) or escape sequences
/// between its characters. The text is looked at as the terminal shows it.
/// PropertyBased prints the seed of a failing run; `.fixedSeed(…)` replays it.
@Suite struct RedactionTests {
    static let token = "SEKRETTOKEN123abc"

    /// What a server may put between a secret's characters, each invisible once cleaned.
    static let paddings = ["\u{200B}", "\u{00AD}", "\u{202E}", "\u{1B}[0m", "\u{2060}", "\u{FEFF}", "\u{200D}",
                           "\u{E0041}", "\u{1B}]0;title\u{07}", "\u{9B}1m", "\u{0007}", "\u{061C}",
                           // Drawn on the character before, not on their own: selectors, marks, modifiers.
                           "\u{FE0F}", "\u{FE00}", "\u{034F}", "\u{0301}", "\u{20E3}", "\u{1F3FB}", "\u{E0100}", "\u{FF9E}", "\u{180D}"]

    @Test(arguments: paddings)
    func aTokenPaddedBetweenEveryCharacterIsRedacted(_ padding: String) {
        let padded = Self.token.map { String($0) }.joined(separator: padding)
        let text = "bad header bearer \(padded) here"
        let redacted = TerminalText.redacting([Self.token], in: text)
        #expect(redacted == "bad header bearer [redacted] here", "\(padding.unicodeScalars.map { $0.value })")
    }

    @Test func textWithoutTheSecretIsKeptAsItIs() {
        let text = "bad\u{200B} header \u{1B}[31mred\u{1B}[0m\nnext line"
        #expect(TerminalText.redacting([Self.token], in: text) == text)
    }

    @Test func caseAndRepeatsAreFoundAndTheLongestSecretFirst() {
        let text = "a sekret\u{200B}token123ABC b SEKRETTOKEN123abc c"
        #expect(TerminalText.redacting([Self.token], in: text) == "a [redacted] b [redacted] c")
        // The shorter secret inside the longer one does not leave the rest of the longer shown.
        #expect(TerminalText.redacting(["SEKRET", Self.token], in: "x \(Self.token) y") == "x [redacted] y")
    }

    @Test func aMarkOrSelectorAfterTheLastCharacterDoesNotHideTheSecret() {
        for mark in ["\u{FE0F}", "\u{034F}", "\u{0301}", "\u{20D0}", "\u{1F3FB}", "\u{E0100}"] {
            #expect(TerminalText.redacting([Self.token], in: "says \(Self.token)\(mark)!") == "says [redacted]!",
                    "\(mark.unicodeScalars.map { String($0.value, radix: 16) })")
        }
    }

    @Test func compatibilityFormsOfTheSecretAreRedacted() {
        // Full-width and mathematical bold letters look like the secret's own.
        #expect(TerminalText.redacting(["SEKRET42"], in: "a ＳＥＫＲＥＴ４２ b") == "a [redacted] b")
        #expect(TerminalText.redacting(["SEKRET42"], in: "a 𝐒𝐄𝐊𝐑𝐄𝐓𝟒𝟐 b") == "a [redacted] b")
        #expect(TerminalText.redacting(["SEKRET42"], in: "a SEKRÉT42 b") == "a SEKRÉT42 b", "another letter is another text")
    }

    @Test func everyTextAnErrorCarriesIsRedactedAsShown() {
        let padded = Self.token.map { String($0) }.joined(separator: "\u{00AD}")
        var status = StatusFailure(status: 400, url: "http://127.0.0.1/r/python")
        status.apiError = APIErrorBody(message: "bad header bearer \(padded)")
        let error = ReaderError.status(status).redacting([Self.token])
        #expect(error.message.contains("[redacted]") && !error.message.contains("EKRETTOKEN"), "\(error.message)")
        let transport = ReaderError.transport(TransportFailure(.unknown, host: "127.0.0.1", detail: "sent \u{1B}[0m\(padded)"))
            .redacting([Self.token])
        #expect(transport.technicalDetail.contains("[redacted]") && !transport.technicalDetail.contains("EKRETTOKEN"),
                "\(transport.technicalDetail)")
    }

    /// Any secret of token characters, any padding from the classes above at any places, in any
    /// case, within any text: once cleaned, no output holds the secret.
    @Test func noPaddingEverShowsTheSecret() async {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~+/=:")
        await propertyCheck(count: 3000, input: Gen<UInt64>.bitSet.array(of: 6...64)) { numbers in
            let length = 4 + Int(numbers[0] % 37)
            let secret = String((0..<length).map { alphabet[Int((numbers[0] >> 8 &+ UInt64($0) &* 0x9E37_79B9) % UInt64(alphabet.count))] })
            var padded = ""
            for (offset, character) in secret.enumerated() {
                let bits = numbers[(offset + 1) % numbers.count] >> UInt64(offset % 16)
                padded.append(bits & 1 == 0 ? character : Character(String(character).uppercased()))
                if bits & 2 == 0 { padded += Self.paddings[Int(bits >> 2) % Self.paddings.count] }
            }
            let around = numbers.dropFirst().map { Self.paddings[Int($0 % UInt64(Self.paddings.count))] + "x" }
            let text = around.prefix(3).joined() + " \(padded) " + around.dropFirst(3).joined()
            let shown = TerminalText.sanitise(TerminalText.redacting([secret], in: text), maxLength: .max)
            #expect(shown.range(of: secret, options: .caseInsensitive) == nil, "\(secret) in \(text.debugDescription) → \(shown)")
            #expect(shown.contains("[redacted]"))
        }
    }
}
