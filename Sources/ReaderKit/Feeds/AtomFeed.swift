import Foundation

/// An Atom feed (RFC 4287) as read from untrusted bytes: the feed's title and its entries, each
/// with what a reader shows. Nothing else of the document is kept.
///
/// The bytes are read by ReaderKit's own XML reader, in one pass, with every limit set where the
/// bytes enter:
/// - a document type or any other markup declaration is refused: no entity is ever declared, so
///   none is expanded (beyond the five XML predefines and character references) and no external
///   entity is ever resolved, from a file or the network;
/// - elements nest at most ``maximumDepth`` deep, a feed holds at most ``maximumEntries``
///   entries, one element's text is at most ``maximumTextLength`` bytes, and a tag has at most
///   ``maximumAttributes`` attributes;
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
        let read = data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Result<AtomReader, ReaderError> in
            var xml = XMLReader(raw.bindMemory(to: UInt8.self), maximumTextLength: Self.maximumTextLength, maximumAttributes: Self.maximumAttributes)
            var reader = AtomReader()
            do throws(ReaderError) {
                try reader.read(&xml, url: url)
                return .success(reader)
            } catch {
                return .failure(error)
            }
        }
        let reader = try read.get()
        title = reader.feedTitle
        id = reader.feedID
        entries = reader.entries
    }

    /// The encoding `data` is in when its first bytes say it is not UTF-8 (a UTF-16 or UTF-32
    /// byte order mark, or a zero byte); an XML declaration naming another encoding is refused by
    /// the reader as it reads the declaration.
    static func otherEncoding(of data: Data) -> String? {
        let head = Array(data.prefix(4))
        if head.starts(with: [0xFE, 0xFF]) || head.starts(with: [0xFF, 0xFE]) || head.contains(0) { return "UTF-16 or UTF-32" }
        return nil
    }

    /// What a failure says the body was read as.
    public static let format = "an Atom feed"

    /// The most attributes one tag may have: an Atom feed's have at most four. Each is checked
    /// against the tag's others for a duplicate, in time that grows with the square of their number.
    public static let maximumAttributes = 32
}

/// What ``AtomFeed`` keeps of the XML reader's elements; stops the read at a limit, or at a root
/// that is not `<feed>`.
private struct AtomReader {
    var feedTitle = ""
    var feedID = ""
    var entries: [AtomFeed.Entry] = []

    private var stack: [String] = []
    private var entry: AtomFeed.Entry?

    /// Where the read is, as `feed.entry[3].title`, for a failure.
    var path: String {
        var parts = stack
        if let index = parts.firstIndex(of: "entry") { parts[index] = "entry[\(entries.count)]" }
        return parts.joined(separator: ".")
    }

    /// An element's name as Atom's: `atom:title` is `title`; a name of another prefix
    /// (`media:title`) stays whole, so that it never stands for an Atom element.
    private static func local(_ name: String) -> String {
        name.hasPrefix("atom:") ? String(name.dropFirst("atom:".count)) : name
    }

    /// Reads `xml` to its end: the first failure, limit or a root other than `<feed>` stops it.
    mutating func read(_ xml: inout XMLReader, url: String) throws(ReaderError) {
        func failure(_ reason: DecodingFailure.Reason, at path: String, _ detail: String) -> ReaderError {
            .decoding(DecodingFailure(reason, codingPath: path, detail: detail, url: url, format: AtomFeed.format))
        }
        var stopped: ReaderError?
        do throws(XMLReader.Failure) {
            reading: while let event = try xml.next() {
                switch event {
                case .start:
                    if let (reason, detail) = start(xml) {
                        stopped = failure(reason, at: reason == .typeMismatch ? "" : path, detail)
                        break reading
                    }
                case .end:
                    end(xml)
                }
            }
        } catch {
            switch error {
            case .notMarkup:
                throw failure(.corrupt, at: "", "a document that does not start with \"<\" as UTF-8 XML does")
            case .declaration(let entity):
                throw failure(.corrupt, at: "", entity ? "an entity declaration, which is never read"
                                                       : "a document type or markup declaration (\"<!\"), which is never read")
            case .otherEncoding(let name):
                throw failure(.corrupt, at: "", "a feed in the encoding \"\(TerminalText.sanitise(name, maxLength: 20))\", not UTF-8")
            case .tooManyAttributes:
                throw failure(.corrupt, at: "", "a tag with more than \(AtomFeed.maximumAttributes) attributes, more than any feed's")
            case .malformed(let problem, let line, let column):
                throw failure(.corrupt, at: path, "not well-formed XML at line \(line), column \(column) (\(TerminalText.sanitise(problem, maxLength: 120)))")
            }
        }
        if let stopped { throw stopped }
    }

    /// An element starts; what stops the read, if anything.
    private mutating func start(_ xml: XMLReader) -> (DecodingFailure.Reason, String)? {
        let qualifiedName = xml.name
        let name = Self.local(qualifiedName)
        if stack.isEmpty, name != "feed" {
            return (.typeMismatch, "XML whose root is <\(TerminalText.sanitise(qualifiedName, maxLength: 40))>, not an Atom <feed>")
        }
        guard stack.count < AtomFeed.maximumDepth else {
            return (.invalidValue, "elements nested deeper than \(AtomFeed.maximumDepth) levels, which no feed needs")
        }
        stack.append(name)
        switch (stack.count, name) {
        case (2, "entry"):
            guard entries.count < AtomFeed.maximumEntries else {
                return (.invalidValue, "more than \(AtomFeed.maximumEntries) entries, more than any feed sends")
            }
            entry = AtomFeed.Entry(id: "", title: "")
        case (3, "category") where entry != nil:
            if let term = xml.attribute("term") { entry?.categories.append(term) }
        case (3, "link") where entry != nil:
            let rel = xml.attribute("rel") ?? "alternate"
            if rel == "alternate", entry?.link == nil, let href = xml.attribute("href") { entry?.link = href }
        case (3, "content") where entry != nil:
            entry?.contentType = xml.attribute("type") ?? "text"
        default:
            break
        }
        return nil
    }

    /// An element ends: what it holds is kept where the feed or the entry has it.
    private mutating func end(_ xml: XMLReader) {
        guard let name = stack.last else { return }
        switch (stack.count, name) {
        case (2, "title"): feedTitle = xml.text
        case (2, "id"): feedID = xml.text
        case (2, "entry"):
            if let entry { entries.append(entry) }
            entry = nil
        case (3, "id"): entry?.id = xml.text.trimmingCharacters(in: .whitespacesAndNewlines)
        case (3, "title"): entry?.title = xml.text
        case (3, "content"): entry?.content = xml.text
        case (3, "updated"): entry?.updated = AtomDate.parse(xml.text)
        case (3, "published"): entry?.published = AtomDate.parse(xml.text)
        case (4, "name") where stack[2] == "author":
            entry?.author = xml.text.trimmingCharacters(in: .whitespacesAndNewlines)
        default:
            break
        }
        stack.removeLast()
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
