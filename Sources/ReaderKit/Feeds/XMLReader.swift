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
        /// Not well-formed: what is wrong, where (line and column count from 1; a column counts
        /// characters).
        case malformed(String, line: Int, column: Int)
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private let maximumTextLength: Int
    private let maximumAttributes: Int
    private var position = 0
    private var started = false
    private var rootRead = false
    /// The open elements' names, as ranges of `bytes`.
    private var open: [Range<Int>] = []
    /// An empty element's end, yielded next.
    private var endPending = false
    private var current: Range<Int> = 0..<0
    private var textBytes: [UInt8] = []
    private var textIsFull = false
    private var attributeNames: [Range<Int>] = []
    private var attributeValues: [Range<Int>] = []
    private var attributeBytes: [UInt8] = []

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
    private mutating func readStart() throws(Failure) {
        if starts("\u{FEFF}", at: 0) { position = 3 }
        var index = position
        while index < bytes.count, Self.isSpace(bytes[index]) { index += 1 }
        guard index < bytes.count, bytes[index] == Byte.lessThan else { throw .notMarkup }
        if starts("<?xml", at: position), position + 5 < bytes.count, Self.isSpace(bytes[position + 5]) {
            try readDeclaration()
        }
    }

    /// `<?xml version="1.x" encoding="…" standalone="yes|no"?>`, in that order, the last two
    /// optional. The encoding's name is only checked for its form: which one it is was read before.
    private mutating func readDeclaration() throws(Failure) {
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
    private mutating func skipSpaceOutsideRoot() throws(Failure) {
        skipSpace()
        guard position >= bytes.count || bytes[position] == Byte.lessThan else {
            throw malformed(at: position, rootRead ? "content after the root element's end" : "text before the root element")
        }
    }

    // MARK: - Tags

    private mutating func readStartTag() throws(Failure) {
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
    private mutating func readAttributeValue() throws(Failure) {
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

    private mutating func readEndTag() throws(Failure) {
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

    // MARK: - Text

    /// Character data up to the next `<`, into the text.
    private mutating func readCharacters() throws(Failure) {
        var index = position
        var segment = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte >= 0x80 {
                index = try scalarEnd(at: index)
                continue
            }
            if byte >= 0x20 {
                if byte == Byte.lessThan { break }
                if byte == Byte.ampersand {
                    appendText(segment..<index)
                    let (scalar, end) = try reference(at: index)
                    appendText(scalar)
                    index = end
                    segment = index
                    continue
                }
                if byte == Byte.closingBracket, starts("]]>", at: index) { throw malformed(at: index, "\"]]>\" in text") }
                index += 1
            } else if byte == Byte.lineFeed || byte == Byte.tab {
                index += 1
            } else if byte == Byte.carriageReturn {
                appendText(segment..<index)
                appendText(Unicode.Scalar(Byte.lineFeed))
                index += index + 1 < bytes.count && bytes[index + 1] == Byte.lineFeed ? 2 : 1
                segment = index
            } else {
                throw malformed(at: index, Self.controlCharacter(byte))
            }
        }
        appendText(segment..<index)
        position = index
    }

    /// `<![CDATA[…]]>`: its characters into the text as they are, line ends normalised.
    private mutating func readCDATA() throws(Failure) {
        let start = position
        var index = position + 9
        var segment = index
        while true {
            guard index < bytes.count else { throw malformed(at: start, "a CDATA section that never ends") }
            let byte = bytes[index]
            if byte >= 0x80 {
                index = try scalarEnd(at: index)
            } else if byte == Byte.closingBracket, starts("]]>", at: index) {
                break
            } else if byte == Byte.carriageReturn {
                appendText(segment..<index)
                appendText(Unicode.Scalar(Byte.lineFeed))
                index += index + 1 < bytes.count && bytes[index + 1] == Byte.lineFeed ? 2 : 1
                segment = index
            } else if byte < 0x20, byte != Byte.lineFeed, byte != Byte.tab {
                throw malformed(at: index, Self.controlCharacter(byte))
            } else {
                index += 1
            }
        }
        appendText(segment..<index)
        position = index + 3
    }

    /// `<!--…-->`, with no `--` inside.
    private mutating func readComment() throws(Failure) {
        let start = position
        var index = position + 4
        while true {
            guard index < bytes.count else { throw malformed(at: start, "a comment that never ends") }
            let byte = bytes[index]
            if byte == Byte.hyphen, index + 1 < bytes.count, bytes[index + 1] == Byte.hyphen {
                guard index + 2 < bytes.count, bytes[index + 2] == Byte.greaterThan else { throw malformed(at: index, "\"--\" inside a comment") }
                position = index + 3
                return
            }
            index = try characterEnd(at: index)
        }
    }

    /// `<?target …?>`; the target `xml` (in any case) is the declaration's, at the start only.
    private mutating func readProcessingInstruction() throws(Failure) {
        let start = position
        let targetEnd = try endOfName(at: position + 2)
        let target = bytes[(position + 2)..<targetEnd]
        if target.count == 3, target.map({ $0 | 0x20 }).elementsEqual("xml".utf8) {
            throw malformed(at: start, "an XML declaration elsewhere than at the start")
        }
        var index = targetEnd
        if !starts("?>", at: index) {
            guard index < bytes.count, Self.isSpace(bytes[index]) else { throw malformed(at: index, "no white space after a processing instruction's target") }
        }
        while true {
            guard index < bytes.count else { throw malformed(at: start, "a processing instruction that never ends") }
            if bytes[index] == Byte.question, index + 1 < bytes.count, bytes[index + 1] == Byte.greaterThan {
                position = index + 2
                return
            }
            index = try characterEnd(at: index)
        }
    }

    /// The reference at `start` (its `&`): the character it stands for, and the index past its `;`.
    private func reference(at start: Int) throws(Failure) -> (Unicode.Scalar, Int) {
        var index = start + 1
        if index < bytes.count, bytes[index] == Byte.hash {
            index += 1
            let hexadecimal = index < bytes.count && bytes[index] == UInt8(ascii: "x")
            if hexadecimal { index += 1 }
            var value: UInt32 = 0
            let digitsStart = index
            while index < bytes.count, bytes[index] != Byte.semicolon {
                let byte = bytes[index]
                let digit: UInt32
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f") where hexadecimal: digit = UInt32(byte - UInt8(ascii: "a")) + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F") where hexadecimal: digit = UInt32(byte - UInt8(ascii: "A")) + 10
                default: throw malformed(at: index, "a character reference with a character that is not a digit")
                }
                // Bounded as it is read: past U+10FFFF no digit makes it a character again.
                value = value * (hexadecimal ? 16 : 10) + digit
                guard value <= 0x10FFFF else { throw malformed(at: start, "a character reference past U+10FFFF") }
                index += 1
            }
            guard index < bytes.count else { throw malformed(at: start, "a character reference without its \";\"") }
            guard index > digitsStart else { throw malformed(at: start, "a character reference without digits") }
            guard Self.isCharacter(value), let scalar = Unicode.Scalar(value) else {
                throw malformed(at: start, "a reference to U+\(String(value, radix: 16, uppercase: true)), which is not an XML character")
            }
            return (scalar, index + 1)
        }
        let nameEnd = try endOfName(at: index)
        guard nameEnd < bytes.count, bytes[nameEnd] == Byte.semicolon else { throw malformed(at: start, "an entity reference without its \";\"") }
        let name = bytes[index..<nameEnd]
        let scalar: Unicode.Scalar
        if name.elementsEqual("amp".utf8) { scalar = "&" }
        else if name.elementsEqual("lt".utf8) { scalar = "<" }
        else if name.elementsEqual("gt".utf8) { scalar = ">" }
        else if name.elementsEqual("quot".utf8) { scalar = "\"" }
        else if name.elementsEqual("apos".utf8) { scalar = "'" }
        else { throw malformed(at: start, "the undefined entity &\(string(index..<nameEnd));") }
        return (scalar, nameEnd + 1)
    }

    private mutating func appendText(_ range: Range<Int>) {
        guard !textIsFull, !range.isEmpty else { return }
        let room = maximumTextLength - textBytes.count
        guard range.count > room else {
            textBytes.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[range]))
            return
        }
        // Cut where the room ends, at a character's start: what follows is dropped.
        var end = range.lowerBound + room
        while end > range.lowerBound, Self.isContinuation(bytes[end]) { end -= 1 }
        textBytes.append(contentsOf: bytes[range.lowerBound..<end])
        textIsFull = true
    }

    private mutating func appendText(_ scalar: Unicode.Scalar) {
        guard !textIsFull else { return }
        guard scalar.utf8.count <= maximumTextLength - textBytes.count else {
            textIsFull = true
            return
        }
        Self.appendUTF8(scalar, to: &textBytes)
    }

    // MARK: - Names and characters

    /// The index past the name at `start`; a failure when no name starts there.
    private func endOfName(at start: Int) throws(Failure) -> Int {
        var index = start
        while index < bytes.count {
            let byte = bytes[index]
            if byte < 0x80 {
                let isStart = Self.isASCIILetter(byte) || byte == Byte.underscore || byte == Byte.colon
                guard isStart || (index > start && (Self.isDigit(byte) || byte == Byte.hyphen || byte == Byte.period)) else { break }
                index += 1
            } else {
                guard let (value, length) = scalar(at: index) else { throw malformed(at: index, "bytes that are not UTF-8") }
                guard index == start ? Self.isNameStart(value) : Self.isNameCharacter(value) else { break }
                index += length
            }
        }
        guard index > start else {
            throw malformed(at: start, start < bytes.count ? "a name that starts with a character no name starts with" : "a name expected at the end")
        }
        return index
    }

    /// The index past the character at `index` (white space, or any XML character); a failure for
    /// a control character or bytes that are not UTF-8.
    private func characterEnd(at index: Int) throws(Failure) -> Int {
        let byte = bytes[index]
        if byte >= 0x80 { return try scalarEnd(at: index) }
        guard byte >= 0x20 || byte == Byte.tab || byte == Byte.lineFeed || byte == Byte.carriageReturn else {
            throw malformed(at: index, Self.controlCharacter(byte))
        }
        return index + 1
    }

    /// The index past the non-ASCII character starting at `index`; a failure when the bytes are
    /// not UTF-8, or the character is not an XML character (U+FFFE, U+FFFF).
    private func scalarEnd(at index: Int) throws(Failure) -> Int {
        guard let (value, length) = scalar(at: index) else { throw malformed(at: index, "bytes that are not UTF-8") }
        guard Self.isCharacter(value) else { throw malformed(at: index, "U+\(String(value, radix: 16, uppercase: true)), which is not an XML character") }
        return index + length
    }

    /// The character whose UTF-8 starts at `index` (a byte from 0x80) and its length; nil for a
    /// stray continuation byte, a truncated, overlong or surrogate sequence, or past U+10FFFF.
    private func scalar(at index: Int) -> (UInt32, Int)? {
        let lead = bytes[index]
        let length: Int
        var value: UInt32
        let minimum: UInt32
        switch lead {
        case 0xC2...0xDF: length = 2; value = UInt32(lead & 0x1F); minimum = 0x80
        case 0xE0...0xEF: length = 3; value = UInt32(lead & 0x0F); minimum = 0x800
        case 0xF0...0xF4: length = 4; value = UInt32(lead & 0x07); minimum = 0x10000
        default: return nil
        }
        guard index + length <= bytes.count else { return nil }
        for offset in 1..<length {
            let byte = bytes[index + offset]
            guard Self.isContinuation(byte) else { return nil }
            value = value << 6 | UInt32(byte & 0x3F)
        }
        guard value >= minimum, value <= 0x10FFFF, !(0xD800...0xDFFF).contains(value) else { return nil }
        return (value, length)
    }

    /// XML 1.0's `Char`: tab, line ends, and every character from U+0020 but the surrogates,
    /// U+FFFE and U+FFFF.
    static func isCharacter(_ value: UInt32) -> Bool {
        switch value {
        case 0x9, 0xA, 0xD, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: true
        default: false
        }
    }

    /// XML 1.0 (fifth edition)'s `NameStartChar`, beyond ASCII.
    private static func isNameStart(_ value: UInt32) -> Bool {
        switch value {
        case 0xC0...0xD6, 0xD8...0xF6, 0xF8...0x2FF, 0x370...0x37D, 0x37F...0x1FFF, 0x200C...0x200D, 0x2070...0x218F,
             0x2C00...0x2FEF, 0x3001...0xD7FF, 0xF900...0xFDCF, 0xFDF0...0xFFFD, 0x10000...0xEFFFF: true
        default: false
        }
    }

    /// XML 1.0 (fifth edition)'s `NameChar`, beyond ASCII.
    private static func isNameCharacter(_ value: UInt32) -> Bool {
        isNameStart(value) || value == 0xB7 || (0x300...0x36F).contains(value) || (0x203F...0x2040).contains(value)
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == Byte.space || byte == Byte.lineFeed || byte == Byte.tab || byte == Byte.carriageReturn
    }

    private static func isASCIILetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") }
    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
    private static func isContinuation(_ byte: UInt8) -> Bool { byte & 0xC0 == 0x80 }

    private static func controlCharacter(_ byte: UInt8) -> String {
        let hex = String(byte, radix: 16, uppercase: true)
        return "the control character U+\(String(repeating: "0", count: 4 - hex.count) + hex), which is not an XML character"
    }

    private static func appendUTF8(_ scalar: Unicode.Scalar, to buffer: inout [UInt8]) {
        buffer.append(contentsOf: scalar.utf8)
    }

    // MARK: - Reading

    /// Skips white space; whether there was any.
    @discardableResult
    private mutating func skipSpace() -> Bool {
        let start = position
        while position < bytes.count, Self.isSpace(bytes[position]) { position += 1 }
        return position > start
    }

    private func starts(_ prefix: StaticString, at index: Int) -> Bool {
        let pattern = UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
        guard index >= 0, index + pattern.count <= bytes.count else { return false }
        for offset in 0..<pattern.count where bytes[index + offset] != pattern[offset] { return false }
        return true
    }

    /// `range` of the bytes as text, for a failure (the caller sanitises it).
    private func string(_ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[range.prefix(40)]), as: UTF8.self)
    }

    /// A well-formedness failure at `index`, with its line and column: counted here, only when failing.
    private func malformed(at index: Int, _ problem: String) -> Failure {
        var line = 1
        var column = 1
        var offset = starts("\u{FEFF}", at: 0) ? 3 : 0
        let end = min(index, bytes.count)
        while offset < end {
            let byte = bytes[offset]
            if byte == Byte.lineFeed || (byte == Byte.carriageReturn && !(offset + 1 < end && bytes[offset + 1] == Byte.lineFeed)) {
                line += 1
                column = 1
            } else if byte != Byte.carriageReturn, !Self.isContinuation(byte) {
                column += 1
            }
            offset += 1
        }
        return .malformed(problem, line: line, column: column)
    }

    /// The ASCII bytes the reader looks for.
    private enum Byte {
        static let tab: UInt8 = 0x09
        static let lineFeed: UInt8 = 0x0A
        static let carriageReturn: UInt8 = 0x0D
        static let space = UInt8(ascii: " ")
        static let exclamation = UInt8(ascii: "!")
        static let quote = UInt8(ascii: "\"")
        static let hash = UInt8(ascii: "#")
        static let ampersand = UInt8(ascii: "&")
        static let apostrophe = UInt8(ascii: "'")
        static let hyphen = UInt8(ascii: "-")
        static let period = UInt8(ascii: ".")
        static let slash = UInt8(ascii: "/")
        static let colon = UInt8(ascii: ":")
        static let semicolon = UInt8(ascii: ";")
        static let lessThan = UInt8(ascii: "<")
        static let equals = UInt8(ascii: "=")
        static let greaterThan = UInt8(ascii: ">")
        static let question = UInt8(ascii: "?")
        static let closingBracket = UInt8(ascii: "]")
        static let underscore = UInt8(ascii: "_")
    }
}
