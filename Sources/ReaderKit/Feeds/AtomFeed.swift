import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// An Atom feed (RFC 4287) as read from untrusted bytes: the feed's title and its entries, each
/// with what a reader shows. Nothing else of the document is kept.
///
/// The bytes are read by the toolchain's own XML parser (libxml2 underneath), with every limit
/// set where the bytes enter:
/// - a document type declaration is refused before the parser sees the bytes: no entity is ever
///   declared, so none is expanded (beyond the five XML predefines and character references) and
///   no external entity is ever resolved, from a file or the network;
/// - elements nest at most ``maximumDepth`` deep, a feed holds at most ``maximumEntries``
///   entries, and one element's text at most ``maximumTextLength`` bytes;
/// - anything that is not well-formed XML, or is XML but not an Atom feed, is a
///   ``DecodingFailure`` (the server's fault), never a trap.
public struct AtomFeed: Sendable, Hashable {
    /// One `<entry>`.
    public struct Entry: Sendable, Hashable {
        /// Its `<id>`: for Reddit, a fullname such as `t3_1vccs2e`.
        public var id: String
        public var title: String
        /// The `<author><name>`, when there is one (a deleted account's entry has none).
        public var author: String?
        /// The `term` of each `<category>`, in order.
        public var categories: [String]
        /// The `<content>`'s text, unescaped once (HTML, when ``contentType`` says `html`).
        public var content: String
        /// The `type` of `<content>`: `text` (the default), `html` or `xhtml`.
        public var contentType: String
        /// The `href` of the first `<link>` that is `alternate` (or has no `rel`).
        public var link: String?
        /// `<updated>`, when it reads as an RFC 3339 date.
        public var updated: Date?
        /// `<published>`, when present and readable (Reddit's feeds before 2021 have none).
        public var published: Date?

        public init(id: String, title: String, author: String? = nil, categories: [String] = [], content: String = "",
                    contentType: String = "text", link: String? = nil, updated: Date? = nil, published: Date? = nil) {
            self.id = id
            self.title = title
            self.author = author
            self.categories = categories
            self.content = content
            self.contentType = contentType
            self.link = link
            self.updated = updated
            self.published = published
        }
    }

    /// The feed's `<title>`.
    public var title: String
    /// The feed's `<id>`.
    public var id: String
    /// Its entries, in the feed's order.
    public var entries: [Entry]

    /// The deepest nesting read: an Atom feed needs four levels (feed, entry, author, name).
    public static let maximumDepth = 32
    /// The most entries read: Reddit sends at most 100 posts, or a post and its comments.
    public static let maximumEntries = 2_000
    /// The most bytes of text one element keeps; what follows is cut off.
    public static let maximumTextLength = 1 << 20

    public init(title: String, id: String = "", entries: [Entry]) {
        self.title = title
        self.id = id
        self.entries = entries
    }

    /// Reads `data` as an Atom feed.
    /// - Parameters:
    ///   - data: the bytes, as they came.
    ///   - url: the URL it came from, named in a failure.
    /// - Throws: ``ReaderError/decoding(_:)``, whose ``DecodingFailure`` is `corrupt` for what is
    ///   not well-formed XML (or declares a document type), `typeMismatch` for XML that is not an
    ///   Atom feed, `invalidValue` for a feed past a limit.
    public init(parsing data: Data, url: String = "") throws(ReaderError) {
        if let encoding = Self.otherEncoding(of: data) {
            throw .decoding(DecodingFailure(.corrupt, codingPath: "", detail: "a feed in \(encoding), not UTF-8", url: url, format: AtomFeed.format))
        }
        if let problem = Self.structuralProblem(in: data) {
            throw .decoding(DecodingFailure(.corrupt, codingPath: "", detail: problem, url: url, format: AtomFeed.format))
        }
        let reader = AtomReader()
        let parser = XMLParser(data: data)
        parser.shouldResolveExternalEntities = false
        parser.shouldProcessNamespaces = false
        parser.shouldReportNamespacePrefixes = false
        parser.delegate = reader
        let parsed = parser.parse()
        if let limit = reader.limitPassed {
            throw .decoding(DecodingFailure(.invalidValue, codingPath: reader.path, detail: limit, url: url, format: AtomFeed.format))
        }
        if let problem = reader.notAtom {
            throw .decoding(DecodingFailure(.typeMismatch, codingPath: "", detail: problem, url: url, format: AtomFeed.format))
        }
        guard parsed, reader.finished else {
            let error = parser.parserError.map { " (\(TerminalText.sanitise(String(describing: $0), maxLength: 120)))" } ?? ""
            throw .decoding(DecodingFailure(.corrupt, codingPath: reader.path, detail:
                "not well-formed XML at line \(parser.lineNumber), column \(parser.columnNumber)\(error)", url: url, format: AtomFeed.format))
        }
        title = reader.feedTitle
        id = reader.feedID
        entries = reader.entries
    }

    /// The encoding `data` is in when it is not UTF-8 (a UTF-16 or UTF-32 byte order, or an XML
    /// declaration naming another encoding): refused, so that the bytes read for a document type
    /// declaration are the bytes the parser reads (UTF-7 could hide one from a byte scan).
    static func otherEncoding(of data: Data) -> String? {
        let head = Array(data.prefix(4))
        if head.starts(with: [0xFE, 0xFF]) || head.starts(with: [0xFF, 0xFE]) || head.contains(0) { return "UTF-16 or UTF-32" }
        let prolog = String(decoding: data.prefix(256), as: UTF8.self)
        guard prolog.hasPrefix("<?xml") || prolog.hasPrefix("\u{FEFF}<?xml"), let end = prolog.range(of: "?>") else { return nil }
        let declaration = prolog[..<end.lowerBound]
        guard let encoding = declaration.range(of: "encoding") else { return nil }
        let value = declaration[encoding.upperBound...].drop { $0 == " " || $0 == "=" || $0 == "\"" || $0 == "'" }
            .prefix { $0 != "\"" && $0 != "'" && $0 != " " }
        let name = value.lowercased()
        return name == "utf-8" || name == "utf8" ? nil : "the encoding \"\(TerminalText.sanitise(String(value), maxLength: 20))\""
    }

    /// What a failure says the body was read as.
    public static let format = "an Atom feed"

    /// The most attributes one tag may have: an Atom feed's have at most four. libxml2 checks a
    /// tag's attributes for duplicates in time that grows with the square of their number.
    public static let maximumAttributes = 32

    /// What makes `data` a document that is never given to the parser, found in one pass over
    /// its bytes; nil when there is nothing. The parser reads only what passes:
    /// - it must start (after a byte order mark and white space) with `<`: no other encoding
    ///   (EBCDIC has no `<` byte) hides a declaration from this pass;
    /// - no markup declaration (`<!DOCTYPE`, `<!ENTITY`, `<!ELEMENT`…) anywhere outside a comment
    ///   or CDATA: without one no entity is declared, so none is expanded beyond the five XML
    ///   predefines and character references, and no external entity is ever resolved;
    /// - no tag with more than ``maximumAttributes`` attributes.
    /// Comments, processing instructions and CDATA are skipped to their real ends, and a quoted
    /// attribute value to its closing quote, so that no `<` or `>` inside them misleads the pass.
    static func structuralProblem(in data: Data) -> String? {
        data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> String? in
            let bytes = raw.bindMemory(to: UInt8.self)
            let count = bytes.count
            var index = 0
            if count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
            while index < count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 { index += 1 }
            guard index < count, bytes[index] == UInt8(ascii: "<") else { return "a document that does not start with \"<\" as UTF-8 XML does" }
            /// The index just past `terminator`, searched from `from`; nil when it never comes.
            func after(_ terminator: StaticString, from start: Int) -> Int? {
                let pattern = UnsafeBufferPointer(start: terminator.utf8Start, count: terminator.utf8CodeUnitCount)
                var position = start
                while position + pattern.count <= count {
                    if bytes[position] == pattern[0] {
                        var matched = true
                        for offset in 1..<pattern.count where bytes[position + offset] != pattern[offset] { matched = false; break }
                        if matched { return position + pattern.count }
                    }
                    position += 1
                }
                return nil
            }
            func starts(_ prefix: StaticString, at position: Int) -> Bool {
                let pattern = UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
                guard position + pattern.count <= count else { return false }
                for offset in 0..<pattern.count where bytes[position + offset] != pattern[offset] { return false }
                return true
            }
            while index < count {
                guard bytes[index] == UInt8(ascii: "<") else { index += 1; continue }
                if starts("<!--", at: index) {
                    guard let end = after("-->", from: index + 4) else { return nil }
                    index = end
                } else if starts("<![CDATA[", at: index) {
                    guard let end = after("]]>", from: index + 9) else { return nil }
                    index = end
                } else if starts("<?", at: index) {
                    guard let end = after("?>", from: index + 2) else { return nil }
                    index = end
                } else if starts("<!", at: index) {
                    return starts("<!ENTITY", at: index) ? "an entity declaration, which is never read"
                        : "a document type or markup declaration (\"<!\"), which is never read"
                } else {
                    // A tag: to its `>`, quoted values skipped, its attributes counted by their `=`.
                    var attributes = 0
                    var position = index + 1
                    var quote: UInt8 = 0
                    while position < count {
                        let byte = bytes[position]
                        if quote != 0 {
                            if byte == quote { quote = 0 }
                        } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                            quote = byte
                        } else if byte == UInt8(ascii: "=") {
                            attributes += 1
                            if attributes > maximumAttributes { return "a tag with more than \(maximumAttributes) attributes, more than any feed's" }
                        } else if byte == UInt8(ascii: ">") {
                            break
                        }
                        position += 1
                    }
                    index = position + 1
                }
            }
            return nil
        }
    }
}

/// The parser's delegate: keeps what ``AtomFeed`` holds, and stops the parse at a limit.
private final class AtomReader: NSObject, XMLParserDelegate {
    var feedTitle = ""
    var feedID = ""
    var entries: [AtomFeed.Entry] = []
    var finished = false
    var limitPassed: String?
    var notAtom: String?

    private var stack: [String] = []
    private var text = ""
    private var textIsFull = false
    private var entry: AtomFeed.Entry?

    /// Where the parse is, as `feed.entry[3].title`, for a failure.
    var path: String {
        var parts = stack
        if let index = parts.firstIndex(of: "entry") { parts[index] = "entry[\(entries.count)]" }
        return parts.joined(separator: ".")
    }

    private func stop(_ parser: XMLParser, limit: String) {
        limitPassed = limitPassed ?? limit
        parser.abortParsing()
    }

    /// An element's local name: `media:thumbnail` is `thumbnail`.
    private static func local(_ name: String) -> String {
        name.split(separator: ":").last.map(String.init) ?? name
    }

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        guard limitPassed == nil, notAtom == nil else { return }
        let name = Self.local(elementName)
        if stack.isEmpty, name != "feed" {
            notAtom = "XML whose root is <\(TerminalText.sanitise(elementName, maxLength: 40))>, not an Atom <feed>"
            parser.abortParsing()
            return
        }
        guard stack.count < AtomFeed.maximumDepth else {
            return stop(parser, limit: "elements nested deeper than \(AtomFeed.maximumDepth) levels, which no feed needs")
        }
        stack.append(name)
        text = ""
        textIsFull = false
        switch (stack.count, name) {
        case (2, "entry"):
            guard entries.count < AtomFeed.maximumEntries else {
                return stop(parser, limit: "more than \(AtomFeed.maximumEntries) entries, more than any feed sends")
            }
            entry = AtomFeed.Entry(id: "", title: "")
        case (3, "category") where entry != nil:
            if let term = attributes["term"] { entry?.categories.append(term) }
        case (3, "link") where entry != nil:
            let rel = attributes["rel"] ?? "alternate"
            if rel == "alternate", entry?.link == nil, let href = attributes["href"] { entry?.link = href }
        case (3, "content") where entry != nil:
            entry?.contentType = attributes["type"] ?? "text"
        default:
            break
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        append(string)
    }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
        append(String(decoding: CDATABlock, as: UTF8.self))
    }

    private func append(_ string: String) {
        guard !textIsFull else { return }
        let room = AtomFeed.maximumTextLength - text.utf8.count
        if string.utf8.count > room {
            // Cut where the room ends, at a character's start: what follows is dropped.
            var end = string.utf8.index(string.utf8.startIndex, offsetBy: room)
            while end > string.utf8.startIndex, UTF8.isContinuation(string.utf8[end]) { end = string.utf8.index(before: end) }
            text += String(string.utf8[..<end]) ?? ""
            textIsFull = true
            return
        }
        text += string
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        guard limitPassed == nil, notAtom == nil, let name = stack.last else { return }
        switch (stack.count, name) {
        case (2, "title"): feedTitle = text
        case (2, "id"): feedID = text
        case (2, "entry"):
            if let entry { entries.append(entry) }
            entry = nil
        case (3, "id"): entry?.id = text.trimmingCharacters(in: .whitespacesAndNewlines)
        case (3, "title"): entry?.title = text
        case (3, "content"): entry?.content = text
        case (3, "updated"): entry?.updated = AtomDate.parse(text)
        case (3, "published"): entry?.published = AtomDate.parse(text)
        case (4, "name") where stack[2] == "author":
            entry?.author = text.trimmingCharacters(in: .whitespacesAndNewlines)
        case (1, "feed"):
            finished = true
        default:
            break
        }
        stack.removeLast()
        text = ""
        textIsFull = false
    }

    func parser(_ parser: XMLParser, foundInternalEntityDeclarationWithName name: String, value: String?) {
        stop(parser, limit: "an entity declaration, which is never read")
    }

    func parser(_ parser: XMLParser, foundExternalEntityDeclarationWithName name: String, publicID: String?, systemID: String?) {
        stop(parser, limit: "an external entity declaration, which is never read")
    }

    func parser(_ parser: XMLParser, resolveExternalEntityName name: String, systemID: String?) -> Data? {
        stop(parser, limit: "an external entity, which is never resolved")
        return nil
    }
}

/// RFC 3339 dates as Atom writes them (`2026-07-03T19:46:18+00:00`, `…Z`, with or without
/// fractions of a second); nil for anything else, or a year no calendar of ours shows.
enum AtomDate {
    static func parse(_ text: String) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.utf8.count <= 40 else { return nil }
        let bytes = Array(trimmed.utf8)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[range] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard bytes.count >= 20, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
              bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t"), bytes[13] == UInt8(ascii: ":"),
              bytes[16] == UInt8(ascii: ":"),
              let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        var index = 19
        var fraction = 0.0
        if bytes[index] == UInt8(ascii: ".") {
            index += 1
            var scale = 0.1
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                fraction += Double(bytes[index] - UInt8(ascii: "0")) * scale
                scale /= 10
                index += 1
            }
        }
        guard index < bytes.count else { return nil }
        var offset = 0
        switch bytes[index] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            guard index + 1 == bytes.count else { return nil }
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            guard index + 6 == bytes.count, bytes[index + 3] == UInt8(ascii: ":"),
                  let hours = number(index + 1..<index + 3), let minutes = number(index + 4..<index + 6),
                  hours < 24, minutes < 60 else { return nil }
            offset = (hours * 60 + minutes) * 60 * (bytes[index] == UInt8(ascii: "-") ? -1 : 1)
        default:
            return nil
        }
        var components = DateComponents()
        components.year = year; components.month = month; components.day = day
        components.hour = hour; components.minute = minute; components.second = min(second, 59)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        guard let date = calendar.date(from: components) else { return nil }
        return date.addingTimeInterval(fraction - Double(offset))
    }
}
