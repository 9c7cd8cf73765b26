import Foundation
import PropertyBased
import Testing
@testable import ReaderKit

/// ReaderKit's XML reader, through ``AtomFeed`` as the app reads feeds and on its own: every
/// well-formedness rule refused with where and why, what is read (entities, character references,
/// CDATA, line ends, attribute values, names), its limits, and any bytes read without a trap.
/// PropertyBased prints the seed of a failing run; `.fixedSeed(…)` replays it.
@Suite struct XMLReaderTests {
    static let atom = #"<feed xmlns="http://www.w3.org/2005/Atom">"#

    func failure(_ bytes: [UInt8]) -> DecodingFailure? {
        do { _ = try AtomFeed(parsing: Data(bytes)); return nil } catch {
            guard case .decoding(let failure) = error else { return nil }
            return failure
        }
    }

    func failure(_ text: String) -> DecodingFailure? { failure(Array(text.utf8)) }

    func feed(_ text: String) throws -> AtomFeed { try AtomFeed(parsing: Data(text.utf8)) }

    /// A document that is not well-formed, what its failure says and where.
    struct Malformed: Sendable, CustomTestStringConvertible {
        var document: [UInt8]
        var problem: String
        var line = 1
        var column: Int
        var testDescription: String { problem }

        init(_ document: String, _ problem: String, line: Int = 1, column: Int) {
            self.init(bytes: Array(document.utf8), problem, line: line, column: column)
        }

        init(bytes: [UInt8], _ problem: String, line: Int = 1, column: Int) {
            self.document = bytes
            self.problem = problem
            self.line = line
            self.column = column
        }
    }

    static let malformed: [Malformed] = [
        // Tags and names.
        Malformed("<feed><title>a</titel></feed>", "the end tag </titel> where </title> was expected", column: 15),
        Malformed("<feed><title>a</feed>", "the end tag </feed> where </title> was expected", column: 15),
        Malformed("<feed></ feed>", "a name that starts with a character no name starts with", column: 9),
        Malformed("<feed><1st/></feed>", "a name that starts with a character no name starts with", column: 8),
        Malformed("<feed><a-b.c:d/><-a/></feed>", "a name that starts with a character no name starts with", column: 18),
        Malformed("</feed>", "an end tag outside the root element", column: 1),
        Malformed("<feed/ >", "\"/\" not followed by \">\" in a tag", column: 6),
        Malformed("<feed></feed", "an end tag without its \">\"", column: 13),
        // Attributes.
        Malformed("<feed a=1/>", "an attribute value without quotes", column: 9),
        Malformed("<feed a/>", "an attribute without \"=\"", column: 8),
        Malformed(#"<feed a="1"b="2"/>"#, "a character in a tag where white space, \">\" or \"/>\" was expected", column: 12),
        Malformed(#"<feed a="1" b="2" a='3'/>"#, "the attribute a twice in one tag", column: 19),
        Malformed(#"<feed><link href="a<b"/></feed>"#, "\"<\" in an attribute value", column: 20),
        Malformed(#"<feed><link href="a/>"#, "an attribute value that never ends", column: 18),
        Malformed(#"<feed><link href="&bogus;"/></feed>"#, "the undefined entity &bogus;", column: 19),
        // References.
        Malformed("<feed><title>&nbsp;</title></feed>", "the undefined entity &nbsp;", column: 14),
        Malformed("<feed><title>&amp</title></feed>", "an entity reference without its \";\"", column: 14),
        Malformed("<feed><title>a & b</title></feed>", "a name that starts with a character no name starts with", column: 17),
        Malformed("<feed><title>&#0;</title></feed>", "a reference to U+0, which is not an XML character", column: 14),
        Malformed("<feed><title>&#x1F;</title></feed>", "a reference to U+1F, which is not an XML character", column: 14),
        Malformed("<feed><title>&#xD800;</title></feed>", "a reference to U+D800, which is not an XML character", column: 14),
        Malformed("<feed><title>&#xFFFE;</title></feed>", "a reference to U+FFFE, which is not an XML character", column: 14),
        Malformed("<feed><title>&#x110000;</title></feed>", "a character reference past U+10FFFF", column: 14),
        Malformed("<feed><title>&#99999999999999999999999999999;</title></feed>", "a character reference past U+10FFFF", column: 14),
        Malformed("<feed><title>&#xFFFFFFFFFFFFFFFFFFFFFFFF;</title></feed>", "a character reference past U+10FFFF", column: 14),
        Malformed("<feed><title>&#;</title></feed>", "a character reference without digits", column: 14),
        Malformed("<feed><title>&#X41;</title></feed>", "a character reference with a character that is not a digit", column: 16),
        Malformed("<feed><title>&#12a;</title></feed>", "a character reference with a character that is not a digit", column: 18),
        Malformed("<feed><title>&#65", "a character reference without its \";\"", column: 14),
        // Text, comments, CDATA, processing instructions.
        Malformed("<feed><title>a]]>b</title></feed>", "\"]]>\" in text", column: 15),
        Malformed("<feed><!-- a -- b --></feed>", "\"--\" inside a comment", column: 14),
        Malformed("<feed><!-- a ---></feed>", "\"--\" inside a comment", column: 14),
        Malformed("<feed><!-- a </feed>", "a comment that never ends", column: 7),
        Malformed("<feed><title><![CDATA[a</title></feed>", "a CDATA section that never ends", column: 14),
        Malformed("<feed><?pi a </feed>", "a processing instruction that never ends", column: 7),
        Malformed("<feed><?xml version=\"1.0\"?></feed>", "an XML declaration elsewhere than at the start", column: 7),
        Malformed("<feed><?XmL a?></feed>", "an XML declaration elsewhere than at the start", column: 7),
        Malformed("<feed><title", "a start tag that never ends", column: 7),
        Malformed("<feed><title>a", "the document ends inside <title>", column: 15),
        // The prolog and what follows the root.
        Malformed(" <?xml version=\"1.0\"?><feed/>", "an XML declaration elsewhere than at the start", column: 2),
        Malformed("<?xml version=\"2.0\"?><feed/>", "an XML version other than 1.x", column: 16),
        Malformed("<?xml version=\"1.0\" standalone=\"maybe\"?><feed/>", "standalone other than \"yes\" or \"no\"", column: 33),
        Malformed("<?xml version=\"1.0\" standalone=\"yes\" encoding=\"UTF-8\"?><feed/>", "\"encoding\" where the XML declaration does not have it", column: 38),
        Malformed("<?xml encoding=\"UTF-8\"?><feed/>", "\"encoding\" where the XML declaration does not have it", column: 7),
        Malformed("<?xml version=\"1.0\"encoding=\"UTF-8\"?><feed/>", "no white space between the XML declaration's parts", column: 20),
        Malformed("<?xml version=\"1.0\"?>x<feed/>", "text before the root element", column: 22),
        Malformed("<![CDATA[x]]><feed/>", "a CDATA section outside the root element", column: 1),
        Malformed("<!-- only a comment -->", "a document without a root element", column: 24),
        Malformed("<feed/><feed/>", "content after the root element's end", column: 8),
        Malformed("<feed></feed>junk", "content after the root element's end", column: 14),
        Malformed("<feed></feed>\n<!-- fine --> <", "content after the root element's end", line: 2, column: 15),
        // Characters: UTF-8 only, XML's characters only.
        Malformed(bytes: Array("<feed><title>".utf8) + [0xFF] + Array("</title></feed>".utf8), "bytes that are not UTF-8", column: 14),
        Malformed(bytes: Array("<feed><title>".utf8) + [0xC0, 0xAF] + Array("</title></feed>".utf8), "bytes that are not UTF-8", column: 14),
        Malformed(bytes: Array("<feed><title>".utf8) + [0xED, 0xA0, 0x80] + Array("</title></feed>".utf8), "bytes that are not UTF-8", column: 14),
        Malformed(bytes: Array("<feed><title>".utf8) + [0xF4, 0x90, 0x80, 0x80] + Array("</title></feed>".utf8), "bytes that are not UTF-8", column: 14),
        Malformed(bytes: Array("<feed><title>ab".utf8) + [0xE2, 0x82], "bytes that are not UTF-8", column: 16),
        Malformed(bytes: Array("<feed><title>".utf8) + [0x80] + Array("</title></feed>".utf8), "bytes that are not UTF-8", column: 14),
        Malformed(bytes: Array("<feed a=\"".utf8) + [0xFE] + Array("\"/>".utf8), "bytes that are not UTF-8", column: 10),
        Malformed(bytes: Array("<feed><t".utf8) + [0xC3] + Array("/></feed>".utf8), "bytes that are not UTF-8", column: 9),
        Malformed("<feed><title>\u{FFFE}</title></feed>", "U+FFFE, which is not an XML character", column: 14),
        Malformed("<feed><title>a\u{1}</title></feed>", "the control character U+0001, which is not an XML character", column: 15),
        Malformed("<feed><title>\u{B}</title></feed>", "the control character U+000B, which is not an XML character", column: 14),
        Malformed("<feed><title>\u{C}</title></feed>", "the control character U+000C, which is not an XML character", column: 14),
        Malformed("<feed><title>\u{1F}</title></feed>", "the control character U+001F, which is not an XML character", column: 14),
        Malformed("<feed a=\"\u{8}\"/>", "the control character U+0008, which is not an XML character", column: 10),
        Malformed("<feed><!-- \u{2} --></feed>", "the control character U+0002, which is not an XML character", column: 12),
        Malformed("<feed><title><![CDATA[\u{E}]]></title></feed>", "the control character U+000E, which is not an XML character", column: 23),
        // Lines and columns: a line ends at \n, \r\n or \r; a column counts characters, not bytes.
        Malformed("<feed>\r\n<title>é😀</titel></feed>", "the end tag </titel> where </title> was expected", line: 2, column: 10),
        Malformed("<feed>\r<title>\n\nab</titel></feed>", "the end tag </titel> where </title> was expected", line: 4, column: 3),
    ]

    @Test(arguments: malformed)
    func whatIsNotWellFormedIsRefusedWithWhereAndWhy(_ malformed: Malformed) {
        let refused = failure(malformed.document)
        #expect(refused?.reason == .corrupt)
        #expect(refused?.detail == "not well-formed XML at line \(malformed.line), column \(malformed.column) (\(malformed.problem))")
        #expect(refused?.format == AtomFeed.format)
    }

    @Test func aRefusalSaysWhereInTheFeedItCame() {
        let refused = failure(Self.atom + "<entry><id>a</id></entry><entry><title>&bogus;</title></entry></feed>")
        #expect(refused?.codingPath == "feed.entry[1].title")
    }

    @Test func whatMayComeAroundTheRootIsRead() throws {
        let document = "\u{FEFF}<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\" ?>\r\n<!-- a comment -->\n"
            // A processing instruction without data made FoundationXML's XMLParser crash (a null pointer).
            + "<?xml-stylesheet href=\"a.css\"?><?empty?>\t\n" + Self.atom + "<title>t</title></feed>\n<!-- after --><?pi x?> \r\n"
        #expect(try feed(document).title == "t")
        #expect(try feed("<?xml version='1.1'?><feed/>").entries.isEmpty)
    }

    @Test func thePredefinedEntitiesAndCharacterReferencesAreRead() throws {
        let read = try feed(Self.atom + "<title>&amp;&lt;&gt;&quot;&apos; &#233;&#xE9;&#x000E9; &#x1F600;&#128512;</title></feed>")
        #expect(read.title == "&<>\"' ééé 😀😀")
        // A character beyond the BMP is its four UTF-8 bytes.
        #expect(Array(read.title.utf8.suffix(8)) == [0xF0, 0x9F, 0x98, 0x80, 0xF0, 0x9F, 0x98, 0x80])
        #expect(try feed(Self.atom + "<title>&#x10FFFF;&#9;&#10;&#13;</title></feed>").title == "\u{10FFFF}\t\n\r")
    }

    @Test func cdataIsKeptAsItIsAndJoinsTheTextAroundIt() throws {
        let read = try feed(Self.atom + "<title>a <![CDATA[&amp; <b>]] ]> &#65;]]> b<!-- no --><?pi no?> c</title></feed>")
        #expect(read.title == "a &amp; <b>]] ]> &#65; b c")
    }

    @Test func lineEndsAreReadAsLineFeeds() throws {
        let read = try feed(Self.atom + "<title>a\r\nb\rc\nd\r\r\n<![CDATA[e\r\nf\rg]]>&#13;</title></feed>")
        #expect(read.title == "a\nb\nc\nd\n\ne\nf\ng\r")
    }

    @Test func attributeValuesAreNormalisedAndTheirReferencesRead() throws {
        let entry = "<entry><id>t3_a</id><link rel='alternate' href=\"a\tb\r\nc\rd\ne&amp;f&#9;g&#10;h&#13;i>j\"/>"
            + "<category term=\"&quot;x&quot; 'y'\"/><content type='html'>c</content></entry>"
        let read = try feed(Self.atom + entry + "</feed>").entries[0]
        #expect(read.link == "a b c d e&f\tg\nh\ri>j")
        #expect(read.categories == ["\"x\" 'y'"])
        #expect(read.contentType == "html")
    }

    @Test func namesKeepTheirPrefixAndOnlyAtomsOwnPrefixStandsForAtom() throws {
        let read = try feed(#"<atom:feed xmlns:atom="http://www.w3.org/2005/Atom"><atom:title>t</atom:title>"#
            + "<atom:entry><atom:id>x</atom:id><media:thumbnail url=\"u\"/><título>é</título></atom:entry></atom:feed>")
        #expect(read.title == "t" && read.entries.map(\.id) == ["x"])
        #expect(failure("<a:rss/>")?.detail == "XML whose root is <a:rss>, not an Atom <feed>")
        // An end tag matches its start tag's whole name, prefix and all.
        #expect(failure("<feed><title>t</b:title></feed>")?.detail.contains("the end tag </b:title> where </title> was expected") == true)
        #expect(failure("<a:feed><title>t</title></a:feed>")?.detail == "XML whose root is <a:feed>, not an Atom <feed>")
    }

    @Test func aMarkupDeclarationIsRefusedWhereverItIs() {
        for document in ["<!DOCTYPE feed><feed/>", "<feed><!DOCTYPE x></feed>", "<feed><!ELEMENT x ANY></feed>", "<feed><!x></feed>"] {
            #expect(failure(document)?.detail == "a document type or markup declaration (\"<!\"), which is never read", "\(document)")
        }
        #expect(failure("<feed><!ENTITY x 'y'></feed>")?.detail == "an entity declaration, which is never read")
        #expect(failure("<!DOCTYPE feed>")?.codingPath == "")
    }

    /// The first limit reached stops the read: what follows it, even if not well-formed, is never read.
    @Test func theReadStopsAtTheFirstLimit() {
        let deep = "<feed>" + String(repeating: "<a>", count: 40) + "</b>"
        #expect(failure(deep)?.reason == .invalidValue)
        let attributes = "<feed>" + "<x " + (0..<40).map { "a\($0)=\"v\"" }.joined(separator: " ") + " a0=\"dup\"/></feed>"
        #expect(failure(attributes)?.detail == "a tag with more than 32 attributes, more than any feed's")
        // Up to the most, a tag is read.
        #expect(failure("<feed><x " + (0..<32).map { "a\($0)=\"v\"" }.joined(separator: " ") + "/></feed>") == nil)
    }

    /// An element's text is cut at the most bytes, at a character's start; the rest is dropped.
    @Test func anElementsTextIsCutAtTheMostBytesAtACharactersStart() throws {
        let title = String(repeating: "a", count: AtomFeed.maximumTextLength - 1) + "é&#x1F600;b"
        let read = try feed(Self.atom + "<title>" + title + "</title></feed>")
        #expect(read.title == String(repeating: "a", count: AtomFeed.maximumTextLength - 1))
        func text(_ document: String, most: Int) throws -> String {
            try Array(document.utf8).withUnsafeBufferPointer { bytes throws(XMLReader.Failure) -> String in
                var reader = XMLReader(bytes, maximumTextLength: most, maximumAttributes: 4)
                var text = ""
                while let event = try reader.next() { if event == .end { text = reader.text } }
                return text
            }
        }
        #expect(try text("<a>abcé</a>", most: 4) == "abc")
        #expect(try text("<a>abcé</a>", most: 5) == "abcé")
        #expect(try text("<a>ab&#233;&#x1F600;</a>", most: 5) == "abé")
        #expect(try text("<a>ab<![CDATA[cdef]]></a>", most: 5) == "abcde")
    }

    @Test func theReaderYieldsStartsAndEndsWithNamesAttributesAndText() throws {
        let document = Array(#"<r a="1" b='x &amp; y'><e/>t<f>u</f></r>"#.utf8)
        let events = try document.withUnsafeBufferPointer { bytes throws(XMLReader.Failure) -> [String] in
            var reader = XMLReader(bytes, maximumTextLength: 100, maximumAttributes: 4)
            var events: [String] = []
            while let event = try reader.next() {
                switch event {
                case .start: events.append("<\(reader.name) a=\(reader.attribute("a") ?? "-") b=\(reader.attribute("b") ?? "-")>")
                case .end: events.append("</\(reader.name)>\(reader.text)")
                }
            }
            return events
        }
        #expect(events == ["<r a=1 b=x & y>", "<e a=- b=->", "</e>", "<f a=- b=->", "</f>u", "</r>"])
    }

    // MARK: - Any input

    /// Pieces of XML, right and wrong, and any byte between them.
    static let piece = Gen<UInt16>.uint16().map { (value: UInt16) -> [UInt8] in
        let pieces = ["<", ">", "/>", "</", "<feed>", "</feed>", "<entry>", "</entry>", "<title>", "</title>", "<id>", "</id>", "<a:b c='d'>",
                      "&", ";", "&amp;", "&lt;", "&#", "&#x", "&#0;", "&#x1F600;", "&#xD800;", "&#99999999999999999999;", "&x;",
                      "<![CDATA[", "]]>", "]]", "<!--", "-->", "--", "<?", "?>", "<?xml version=\"1.0\"?>", "<!DOCTYPE", "<!ENTITY",
                      "=", "\"", "'", " ", "\r", "\n", "\r\n", "\t", "a", "é", "😀", "\u{FFFE}", "\u{FEFF}", "\u{1}", "\u{0}"]
        return value & 1 == 0 ? Array(pieces[Int(value >> 1) % pieces.count].utf8) : [UInt8(truncatingIfNeeded: value >> 8)]
    }

    @Test func anyBytesAreReadAsAFeedOrRefusedWithADecodingFailureNeverATrap() async {
        await propertyCheck(count: 4000, input: Self.piece.array(of: 0...80)) { pieces in
            let document = Array(Self.atom.utf8) + pieces.joined() + Array("</feed>".utf8)
            do throws(ReaderError) {
                _ = try AtomFeed(parsing: Data(document))
            } catch {
                guard case .decoding(let failure) = error else { Issue.record("\(error)"); return }
                #expect(!failure.detail.isEmpty)
            }
            // And without the feed around them.
            do throws(ReaderError) { _ = try AtomFeed(parsing: Data(pieces.joined())) } catch {
                guard case .decoding = error else { Issue.record("\(error)"); return }
            }
        }
    }

    /// Characters XML can hold (no `\r`: a line end is read as `\n`), some beyond the BMP.
    static let character = Gen<UInt32>.uint32().map { (value: UInt32) -> Unicode.Scalar in
        let choices: [UInt32] = [0x9, 0xA, 0x20, 0x26, 0x3C, 0x3E, 0x5D, 0x22, 0x27, 0x61, 0xE9, 0x85, 0xFFFD, 0x1F600, 0x10FFFF]
        let candidate = value & 1 == 0 ? choices[Int(value >> 1) % choices.count] : 0x20 + (value >> 1) % 0x10FFDF
        return XMLReader.isCharacter(candidate) && candidate != 0xD ? Unicode.Scalar(candidate) ?? "?" : "?"
    }

    /// Any text, escaped as a feed writer escapes it (each character sometimes as a reference),
    /// reads back as it was.
    @Test func anyTextEscapedReadsBackAsItWas() async {
        await propertyCheck(count: 2000, input: Self.character.array(of: 0...60), Gen<UInt64>.uint64()) { scalars, choices in
            var escaped = ""
            for (index, scalar) in scalars.enumerated() {
                switch (choices >> (UInt64(index) % 64)) & 3 {
                case 0: escaped += "&#\(scalar.value);"
                case 1: escaped += "&#x\(String(scalar.value, radix: 16));"
                default:
                    switch scalar {
                    case "&": escaped += "&amp;"
                    case "<": escaped += "&lt;"
                    case ">": escaped += "&gt;"
                    default: escaped.unicodeScalars.append(scalar)
                    }
                }
            }
            var text = ""
            text.unicodeScalars.append(contentsOf: scalars)
            do {
                let read = try AtomFeed(parsing: Data((Self.atom + "<title>" + escaped + "</title></feed>").utf8))
                #expect(read.title == text, "\(escaped.debugDescription)")
            } catch {
                Issue.record("\(escaped.debugDescription): \(error)")
            }
        }
    }
}
