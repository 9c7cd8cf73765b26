/// ``XMLReader``'s bytes: names, UTF-8 characters, and where a failure is.
extension XMLReader {
    /// The index past the name at `start`; a failure when no name starts there.
    func endOfName(at start: Int) throws(Failure) -> Int {
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
    func characterEnd(at index: Int) throws(Failure) -> Int {
        let byte = bytes[index]
        if byte >= 0x80 { return try scalarEnd(at: index) }
        guard byte >= 0x20 || byte == Byte.tab || byte == Byte.lineFeed || byte == Byte.carriageReturn else {
            throw malformed(at: index, Self.controlCharacter(byte))
        }
        return index + 1
    }

    /// The index past the non-ASCII character starting at `index`; a failure when the bytes are
    /// not UTF-8, or the character is not an XML character (U+FFFE, U+FFFF).
    func scalarEnd(at index: Int) throws(Failure) -> Int {
        guard let (value, length) = scalar(at: index) else { throw malformed(at: index, "bytes that are not UTF-8") }
        guard Self.isCharacter(value) else { throw malformed(at: index, "U+\(String(value, radix: 16, uppercase: true)), which is not an XML character") }
        return index + length
    }

    /// The character whose UTF-8 starts at `index` (a byte from 0x80) and its length; nil for a
    /// stray continuation byte, a truncated, overlong or surrogate sequence, or past U+10FFFF.
    func scalar(at index: Int) -> (UInt32, Int)? {
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
    static func isNameStart(_ value: UInt32) -> Bool {
        switch value {
        case 0xC0...0xD6, 0xD8...0xF6, 0xF8...0x2FF, 0x370...0x37D, 0x37F...0x1FFF, 0x200C...0x200D, 0x2070...0x218F,
             0x2C00...0x2FEF, 0x3001...0xD7FF, 0xF900...0xFDCF, 0xFDF0...0xFFFD, 0x10000...0xEFFFF: true
        default: false
        }
    }

    /// XML 1.0 (fifth edition)'s `NameChar`, beyond ASCII.
    static func isNameCharacter(_ value: UInt32) -> Bool {
        isNameStart(value) || value == 0xB7 || (0x300...0x36F).contains(value) || (0x203F...0x2040).contains(value)
    }

    static func isSpace(_ byte: UInt8) -> Bool {
        byte == Byte.space || byte == Byte.lineFeed || byte == Byte.tab || byte == Byte.carriageReturn
    }

    static func isASCIILetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") }
    static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
    static func isContinuation(_ byte: UInt8) -> Bool { byte & 0xC0 == 0x80 }

    static func controlCharacter(_ byte: UInt8) -> String {
        let hex = String(byte, radix: 16, uppercase: true)
        return "the control character U+\(String(repeating: "0", count: 4 - hex.count) + hex), which is not an XML character"
    }

    static func appendUTF8(_ scalar: Unicode.Scalar, to buffer: inout [UInt8]) {
        buffer.append(contentsOf: scalar.utf8)
    }

    // MARK: - Reading

    /// Skips white space; whether there was any.
    @discardableResult
    mutating func skipSpace() -> Bool {
        let start = position
        while position < bytes.count, Self.isSpace(bytes[position]) { position += 1 }
        return position > start
    }

    func starts(_ prefix: StaticString, at index: Int) -> Bool {
        let pattern = UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
        guard index >= 0, index + pattern.count <= bytes.count else { return false }
        for offset in 0..<pattern.count where bytes[index + offset] != pattern[offset] { return false }
        return true
    }

    /// `range` of the bytes as text, for a failure (the caller sanitises it).
    func string(_ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[range.prefix(40)]), as: UTF8.self)
    }

    /// A well-formedness failure at `index`, with its line and column: counted here, only when failing.
    func malformed(at index: Int, _ problem: String) -> Failure {
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
    enum Byte {
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
