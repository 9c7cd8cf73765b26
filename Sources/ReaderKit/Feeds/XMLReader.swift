/// A reader of XML 1.0 documents in UTF-8, in one pass over their bytes, for ``AtomFeed``: it
/// yields each element's start and end, with the attributes of a start and the text before an end,
/// and refuses what a conforming parser refuses as not well-formed.
///
/// What it reads: an optional byte order mark and XML declaration, comments, processing
/// instructions and white space around exactly one root element; inside it elements, text, CDATA
/// sections, the five predefined entities and character references. Line ends are normalised
/// (`\r\n` and a lone `\r` are `\n`), and attribute values too (a tab, `\r` or `\n` is a space).
/// Names keep their prefix (`media:thumbnail`): namespaces are not processed.
///
/// What it never reads: any markup declaration (`<!DOCTYPE`, `<!ENTITY`…), so no entity is ever
/// declared, expanded or fetched; an undefined entity is an error. Whatever it refuses stops the
/// read at once; its line and column are counted only then.
///
/// It reads `bytes` in place and copies only an element's text (at most `maximumTextLength` bytes
/// of it, cut at a character's start) and a tag's attribute values.
struct XMLReader {
    /// What the reader found next.
    enum Event: Equatable {
        /// An element starts: its ``name`` and ``attribute(_:)``s are readable.
        case start
        /// An element ends (an empty element `<a/>` starts and ends): its ``name`` and the
        /// ``text`` between the tag before and this one are readable.
        case end
    }

    /// Why the bytes are not read further.
    enum Failure: Error, Equatable {
        /// The bytes do not start (after a byte order mark and white space) with `<`.
        case notMarkup
        /// A markup declaration: `<!DOCTYPE`, `<!ELEMENT`… (`entity` when it is `<!ENTITY`).
        case declaration(entity: Bool)
        /// A tag with more attributes than the reader was given as the most.
        case tooManyAttributes
        /// An XML declaration that names an encoding other than UTF-8: its name as written.
        case otherEncoding(String)
        /// Not well-formed: what is wrong, where (line and column count from 1; a column counts
        /// characters).
        case malformed(String, line: Int, column: Int)
    }

    let bytes: UnsafeBufferPointer<UInt8>
    let maximumTextLength: Int
    let maximumAttributes: Int
    var position = 0
    var started = false
    var rootRead = false
    /// The open elements' names, as ranges of `bytes`.
    var open: [Range<Int>] = []
    /// An empty element's end, yielded next.
    var endPending = false
    var current: Range<Int> = 0..<0
    var textBytes: [UInt8] = []
    var textIsFull = false
    var attributeNames: [Range<Int>] = []
    var attributeValues: [Range<Int>] = []
    var attributeBytes: [UInt8] = []

    init(_ bytes: UnsafeBufferPointer<UInt8>, maximumTextLength: Int, maximumAttributes: Int) {
        self.bytes = bytes
        self.maximumTextLength = maximumTextLength
        self.maximumAttributes = maximumAttributes
    }

    /// The name of the element that starts or ends, with its prefix.
    var name: String { String(decoding: UnsafeBufferPointer(rebasing: bytes[current]), as: UTF8.self) }

    /// The text between the tag before and this one (character data, references read, CDATA as it
    /// is; comments and processing instructions left out), at most `maximumTextLength` bytes.
    var text: String { String(decoding: textBytes, as: UTF8.self) }

    /// The value of the start tag's attribute named `attribute` (with its prefix, if any).
    func attribute(_ attribute: StaticString) -> String? {
        let wanted = UnsafeBufferPointer(start: attribute.utf8Start, count: attribute.utf8CodeUnitCount)
        for (index, name) in attributeNames.enumerated() where bytes[name].elementsEqual(wanted) {
            return String(decoding: attributeBytes[attributeValues[index]], as: UTF8.self)
        }
        return nil
    }

    /// The next start or end of an element; nil at the end of a well-formed document.
    mutating func next() throws(Failure) -> Event? {
        textBytes.removeAll(keepingCapacity: true)
        textIsFull = false
        if endPending {
            endPending = false
            current = open.removeLast()
            return .end
        }
        if !started {
            started = true
            try readStart()
        }
        while position < bytes.count {
            guard bytes[position] == Byte.lessThan else {
                if open.isEmpty {
                    try skipSpaceOutsideRoot()
                } else {
                    try readCharacters()
                }
                continue
            }
            let next = position + 1 < bytes.count ? bytes[position + 1] : 0
            switch next {
            case Byte.slash:
                try readEndTag()
                return .end
            case Byte.question:
                try readProcessingInstruction()
            case Byte.exclamation:
                if starts("<!--", at: position) {
                    try readComment()
                } else if starts("<![CDATA[", at: position) {
                    guard !open.isEmpty else { throw malformed(at: position, "a CDATA section outside the root element") }
                    try readCDATA()
                } else {
                    throw .declaration(entity: starts("<!ENTITY", at: position))
                }
            default:
                guard !(rootRead && open.isEmpty) else { throw malformed(at: position, "content after the root element's end") }
                try readStartTag()
                return .start
            }
        }
        if let element = open.last {
            throw malformed(at: bytes.count, "the document ends inside <\(string(element))>")
        }
        guard rootRead else { throw malformed(at: bytes.count, "a document without a root element") }
        return nil
    }

    // MARK: - The prolog

    /// The byte order mark, then `<` first (after white space), and the XML declaration if any.
    mutating func readStart() throws(Failure) {
        if starts("\u{FEFF}", at: 0) { position = 3 }
        var index = position
        while index < bytes.count, Self.isSpace(bytes[index]) { index += 1 }
        guard index < bytes.count, bytes[index] == Byte.lessThan else { throw .notMarkup }
        if starts("<?xml", at: position), position + 5 < bytes.count, Self.isSpace(bytes[position + 5]) {
            try readDeclaration()
        }
    }

    /// `<?xml version="1.x" encoding="…" standalone="yes|no"?>`, in that order, the last two
    /// optional. The encoding must be UTF-8, in any case.
    mutating func readDeclaration() throws(Failure) {
        let start = position
        position += 5
        var seen = 0
        while true {
            let spaced = skipSpace()
            guard position < bytes.count else { throw malformed(at: start, "an XML declaration that never ends") }
            if starts("?>", at: position) {
                guard seen > 0 else { throw malformed(at: start, "an XML declaration without its version") }
                position += 2
                return
            }
            guard spaced else { throw malformed(at: position, "no white space between the XML declaration's parts") }
            let nameStart = position
            let nameEnd = try endOfName(at: position)
            let name = string(nameStart..<nameEnd)
            position = nameEnd
            skipSpace()
            guard position < bytes.count, bytes[position] == Byte.equals else { throw malformed(at: position, "\"=\" expected in the XML declaration") }
            position += 1
            skipSpace()
            guard position < bytes.count, bytes[position] == Byte.quote || bytes[position] == Byte.apostrophe else {
                throw malformed(at: position, "a value without quotes in the XML declaration")
            }
            let quote = bytes[position]
            let valueStart = position + 1
            var valueEnd = valueStart
            while valueEnd < bytes.count, bytes[valueEnd] != quote, bytes[valueEnd] != Byte.lessThan, bytes[valueEnd] != Byte.greaterThan { valueEnd += 1 }
            guard valueEnd < bytes.count, bytes[valueEnd] == quote else { throw malformed(at: position, "a value that never ends in the XML declaration") }
            let value = bytes[valueStart..<valueEnd]
            position = valueEnd + 1
            switch (seen, name) {
            case (0, "version"):
                guard value.count >= 3, value.starts(with: [UInt8(ascii: "1"), Byte.period]),
                      value.dropFirst(2).allSatisfy(Self.isDigit) else { throw malformed(at: valueStart, "an XML version other than 1.x") }
                seen = 1
            case (1, "encoding"):
                guard let first = value.first, Self.isASCIILetter(first),
                      value.allSatisfy({ Self.isASCIILetter($0) || Self.isDigit($0) || $0 == Byte.period || $0 == Byte.underscore || $0 == Byte.hyphen })
                else { throw malformed(at: valueStart, "an encoding name of the wrong form") }
                // The bytes are read as UTF-8 whatever a declaration says: any other name is refused
                // (UTF-7 could hide markup as `+ADw-!DOCTYPE`), wherever the name stands.
                let lowercased = value.map { $0 | 0x20 }
                guard lowercased.elementsEqual("utf-8".utf8) || lowercased.elementsEqual("utf8".utf8) else {
                    throw .otherEncoding(string(valueStart..<valueEnd))
                }
                seen = 2
            case (1, "standalone"), (2, "standalone"):
                guard value.elementsEqual("yes".utf8) || value.elementsEqual("no".utf8) else {
                    throw malformed(at: valueStart, "standalone other than \"yes\" or \"no\"")
                }
                seen = 3
            default:
                throw malformed(at: nameStart, "\"\(name)\" where the XML declaration does not have it")
            }
        }
    }

    /// White space between the prolog's or the epilogue's parts: anything else is not XML.
    mutating func skipSpaceOutsideRoot() throws(Failure) {
        skipSpace()
        guard position >= bytes.count || bytes[position] == Byte.lessThan else {
            throw malformed(at: position, rootRead ? "content after the root element's end" : "text before the root element")
        }
    }

    // MARK: - Tags

    mutating func readStartTag() throws(Failure) {
        let start = position
        position += 1
        let nameEnd = try endOfName(at: position)
        current = position..<nameEnd
        position = nameEnd
        attributeNames.removeAll(keepingCapacity: true)
        attributeValues.removeAll(keepingCapacity: true)
        attributeBytes.removeAll(keepingCapacity: true)
        while true {
            let spaced = skipSpace()
            guard position < bytes.count else { throw malformed(at: start, "a start tag that never ends") }
            let byte = bytes[position]
            if byte == Byte.greaterThan {
                position += 1
                break
            }
            if byte == Byte.slash {
                guard position + 1 < bytes.count, bytes[position + 1] == Byte.greaterThan else { throw malformed(at: position, "\"/\" not followed by \">\" in a tag") }
                position += 2
                endPending = true
                break
            }
            guard spaced else { throw malformed(at: position, "a character in a tag where white space, \">\" or \"/>\" was expected") }
            guard attributeNames.count < maximumAttributes else { throw .tooManyAttributes }
            let nameStart = position
            let name = nameStart..<(try endOfName(at: position))
            for other in attributeNames where bytes[other].elementsEqual(bytes[name]) {
                throw malformed(at: nameStart, "the attribute \(string(name)) twice in one tag")
            }
            position = name.upperBound
            skipSpace()
            guard position < bytes.count, bytes[position] == Byte.equals else { throw malformed(at: position, "an attribute without \"=\"") }
            position += 1
            skipSpace()
            let valueStart = attributeBytes.count
            try readAttributeValue()
            attributeNames.append(name)
            attributeValues.append(valueStart..<attributeBytes.count)
        }
        open.append(current)
        rootRead = true
    }

    /// A quoted value, normalised (a tab, `\r`, `\n` or `\r\n` is one space), into `attributeBytes`.
    mutating func readAttributeValue() throws(Failure) {
        guard position < bytes.count, bytes[position] == Byte.quote || bytes[position] == Byte.apostrophe else {
            throw malformed(at: position, "an attribute value without quotes")
        }
        let quote = bytes[position]
        let start = position
        var index = position + 1
        var segment = index
        while true {
            guard index < bytes.count else { throw malformed(at: start, "an attribute value that never ends") }
            let byte = bytes[index]
            if byte == quote { break }
            if byte >= 0x80 {
                index = try scalarEnd(at: index)
                continue
            }
            switch byte {
            case Byte.lessThan:
                throw malformed(at: index, "\"<\" in an attribute value")
            case Byte.ampersand:
                attributeBytes.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[segment..<index]))
                let (scalar, end) = try reference(at: index)
                Self.appendUTF8(scalar, to: &attributeBytes)
                index = end
                segment = index
            case Byte.tab, Byte.lineFeed, Byte.carriageReturn:
                attributeBytes.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[segment..<index]))
                attributeBytes.append(Byte.space)
                index += byte == Byte.carriageReturn && index + 1 < bytes.count && bytes[index + 1] == Byte.lineFeed ? 2 : 1
                segment = index
            case ..<0x20:
                throw malformed(at: index, Self.controlCharacter(byte))
            default:
                index += 1
            }
        }
        attributeBytes.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[segment..<index]))
        position = index + 1
    }

    mutating func readEndTag() throws(Failure) {
        let start = position
        guard let element = open.last else { throw malformed(at: start, "an end tag outside the root element") }
        position += 2
        let nameEnd = try endOfName(at: position)
        guard bytes[position..<nameEnd].elementsEqual(bytes[element]) else {
            throw malformed(at: start, "the end tag </\(string(position..<nameEnd))> where </\(string(element))> was expected")
        }
        position = nameEnd
        skipSpace()
        guard position < bytes.count, bytes[position] == Byte.greaterThan else { throw malformed(at: position, "an end tag without its \">\"") }
        position += 1
        current = open.removeLast()
    }
}
