import PropertyBased
import Testing
@testable import ReaderTerminal

/// The key decoder: the sequences terminals send, written out; then any bytes, split anywhere.
/// PropertyBased prints the seed of a failing run; `.fixedSeed(…)` replays it.
@Suite struct KeyDecoderTests {
    private func keys(_ bytes: [UInt8]) -> [Key] {
        var decoder = KeyDecoder()
        return decoder.decode(bytes) + decoder.flush()
    }

    private func keys(_ text: String) -> [Key] { keys(Array(text.utf8)) }

    @Test func printableCharactersAndControlKeys() {
        #expect(keys("jk G") == [.character("j"), .character("k"), .character(" "), .character("G")])
        #expect(keys([0x0D, 0x09, 0x7F, 0x08, 0x03, 0x04, 0x15, 0x0A, 0x00]) ==
                [.enter, .tab, .backspace, .backspace, .control("c"), .control("d"), .control("u"), .control("j"), .control(" ")])
        #expect(keys("é中😀") == [.character("é"), .character("中"), .character("😀")])
    }

    @Test func theSequencesOfArrowsPagesAndFunctionKeys() {
        #expect(keys("\u{1B}[A\u{1B}[B\u{1B}[C\u{1B}[D") == [.up, .down, .right, .left])
        #expect(keys("\u{1B}OA\u{1B}OB\u{1B}OH\u{1B}OF\u{1B}OP") == [.up, .down, .home, .end, .function(1)])
        #expect(keys("\u{1B}[H\u{1B}[F\u{1B}[1~\u{1B}[4~\u{1B}[7~\u{1B}[8~") == [.home, .end, .home, .end, .home, .end])
        #expect(keys("\u{1B}[5~\u{1B}[6~\u{1B}[3~\u{1B}[2~\u{1B}[Z") == [.pageUp, .pageDown, .delete, .insert, .backTab])
        #expect(keys("\u{1B}[15~\u{1B}[17~\u{1B}[24~") == [.function(5), .function(6), .function(12)])
        // With a modifier (Ctrl-Up), the key itself.
        #expect(keys("\u{1B}[1;5A\u{1B}[5;2~") == [.up, .pageUp])
    }

    @Test func aLoneEscapeWaitsForTheTimeout() {
        var decoder = KeyDecoder()
        #expect(decoder.decode([0x1B]) == [])
        #expect(decoder.isWaiting)
        #expect(decoder.flush() == [.escape])
        #expect(!decoder.isWaiting)
        // Esc, then Esc: the first is a key, the second waits.
        #expect(decoder.decode([0x1B, 0x1B]) == [.escape])
        #expect(decoder.flush() == [.escape])
        // Esc with a character in the same moment is Alt with it.
        #expect(decoder.decode(Array("\u{1B}x".utf8)) == [.alt("x")])
    }

    @Test func aSequenceOrCharacterSplitAcrossReadsWaitsForTheRest() {
        var decoder = KeyDecoder()
        #expect(decoder.decode([0x1B]) == [])
        #expect(decoder.decode(Array("[".utf8)) == [])
        #expect(decoder.decode(Array("6".utf8)) == [])
        #expect(decoder.decode(Array("~j".utf8)) == [.pageDown, .character("j")])
        #expect(decoder.decode([0xF0, 0x9F]) == [])
        #expect(decoder.decode([0x98, 0x80]) == [.character("😀")])
    }

    @Test func bytesThatMakeNoKeyAreUnknownAndTheRestStillDecodes() {
        #expect(keys([0xFF, 0x80, 0x6A]) == [.unknown([0xFF]), .unknown([0x80]), .character("j")])
        // A lead byte without its continuation; an overlong slash; a surrogate; a C1 control.
        #expect(keys([0xC3, 0x6A]) == [.unknown([0xC3]), .character("j")])
        #expect(keys([0xC0, 0xAF]) == [.unknown([0xC0]), .unknown([0xAF])])
        #expect(keys([0xED, 0xA0, 0x80]) == [.unknown([0xED, 0xA0, 0x80])])
        #expect(keys([0xC2, 0x9B]) == [.unknown([0xC2, 0x9B])])
        // A private sequence (a terminal's answer) and an unknown final byte.
        #expect(keys("\u{1B}[?1;2cj") == [.unknown(Array("\u{1B}[?1;2c".utf8)), .character("j")])
        #expect(keys("\u{1B}[99~") == [.unknown(Array("\u{1B}[99~".utf8))])
        // A sequence broken off by a control byte: what came before, then the control.
        #expect(keys("\u{1B}[12\r") == [.unknown(Array("\u{1B}[12".utf8)), .enter])
        #expect(keys("\u{1B}[\r") == [.alt("["), .enter])
        #expect(keys("\u{1B}O") == [.alt("O")])
        // An incomplete character at the end of the input.
        #expect(keys([0xE4, 0xB8]) == [.unknown([0xE4, 0xB8])])
    }

    @Test func aSequenceThatNeverEndsIsCutAtItsLongest() {
        let digits = [UInt8](repeating: UInt8(ascii: "1"), count: 40)
        let decoded = keys([0x1B, UInt8(ascii: "[")] + digits + [UInt8(ascii: "A")])
        #expect(decoded.first == .unknown([0x1B, UInt8(ascii: "[")] + digits.prefix(30)))
        #expect(decoded.dropFirst() == ArraySlice(Array(repeating: Key.character("1"), count: 10) + [.character("A")]))
    }

    /// Bytes that make sequences and characters often, with any byte in between.
    static let streamByte = Gen<UInt16>.uint16().map { (value: UInt16) -> UInt8 in
        let interesting: [UInt8] = [0x1B, 0x1B, 0x1B, 0x5B, 0x5B, 0x4F, 0x31, 0x35, 0x3B, 0x7E, 0x41, 0x3F, 0x6A,
                                    0x0D, 0x7F, 0xC3, 0xA9, 0xE4, 0xB8, 0xAD, 0xF0, 0x9F, 0x98, 0x80, 0xFF]
        return value & 1 == 0 ? interesting[Int(value >> 1) % interesting.count] : UInt8(truncatingIfNeeded: value >> 8)
    }

    @Test func anyBytesDecodeWithoutATrapAndNothingIsLeftWaiting() async {
        await propertyCheck(count: 3000, input: Self.streamByte.array(of: 0...200)) { bytes in
            var decoder = KeyDecoder()
            let decoded = decoder.decode(bytes) + decoder.flush()
            #expect(!decoder.isWaiting)
            // Every key comes from at least one byte.
            #expect(decoded.count <= bytes.count)
        }
    }

    @Test func anySplitOfAStreamDecodesAsTheWholeStream() async {
        await propertyCheck(count: 3000, input: Self.streamByte.array(of: 0...120), Gen.int(in: 0...120).array(of: 0...12)) { bytes, cuts in
            var whole = KeyDecoder()
            let expected = whole.decode(bytes) + whole.flush()
            var split = KeyDecoder()
            var decoded: [Key] = []
            var start = 0
            for cut in cuts.map({ min($0, bytes.count) }).sorted() {
                decoded += split.decode(bytes[start..<cut])
                start = cut
            }
            decoded += split.decode(bytes[start...]) + split.flush()
            #expect(decoded == expected, "\(bytes) cut at \(cuts)")
        }
    }
}
