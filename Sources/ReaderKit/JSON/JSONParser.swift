import Foundation

extension JSONValue {
    /// The deepest nesting ``init(parsing:)`` accepts, as JSONDecoder does.
    public static let maximumDepth = 512

    /// Parses JSON bytes straight into a value, in time linear in their size.
    ///
    /// Prefer this to decoding `JSONValue` through `JSONDecoder`: a `Decodable` value has to guess
    /// its kind by trying each in turn, and every failed try builds the whole coding path, which
    /// makes deeply nested input (a server's, say) cost the square of its depth at every level.
    ///
    /// It accepts every document JSONDecoder accepts, so that `--json` never loses a body the models
    /// read: a byte order mark; UTF-16 or UTF-32 (told apart as JSONDecoder does, RFC 4627 §3); a
    /// comma before a closing bracket or brace; control characters inside strings. A member name
    /// given twice keeps its first value, as JSONDecoder reads it. A number that neither `Int64`
    /// nor `Double` holds as sent (`1e999`, `1e-999`, `18446744073709551616`) is kept as its text
    /// (``JSONValue/numberText(_:)``). Invalid UTF-8 in strings is replaced with U+FFFD.
    ///
    /// What JSONDecoder lets pass only unread is refused: a malformed number (`01`, `1.`, `-`) or
    /// escape (`\x`) has no value to write back as JSON.
    /// - Throws: ``JSONParseError`` for anything that is not one complete JSON value, or that nests
    ///   deeper than ``maximumDepth``.
    public init(parsing bytes: some Collection<UInt8>) throws(JSONParseError) {
        var parser = JSONParser(bytes: try JSONParser.utf8(Array(bytes)))
        self = try parser.parseDocument()
    }
}

extension JSONValue {
    /// What makes `bytes` other than JSON as RFC 8259 writes it, though ``init(parsing:)`` reads
    /// them as JSONDecoder would have to: invalid UTF-8, or a raw control character inside a
    /// string. Nil when there is neither (whether or not the rest parses).
    static func textViolation(in bytes: some Collection<UInt8>) -> String? {
        guard let utf8 = try? JSONParser.utf8(Array(bytes)) else { return "text in no Unicode encoding" }
        guard String(validating: utf8, as: UTF8.self) != nil else { return "invalid UTF-8" }
        var inString = false
        var escaped = false
        for (offset, byte) in utf8.enumerated() {
            if !inString {
                inString = byte == UInt8(ascii: "\"")
            } else if escaped {
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            } else if byte == UInt8(ascii: "\"") {
                inString = false
            } else if byte < 0x20 {
                return "a raw control character (U+\(String(format: "%04X", byte))) inside a string at byte \(offset)"
            }
        }
        return nil
    }
}

/// Why bytes are not JSON, and where.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The byte offset at which parsing stopped.
    public var offset: Int
    /// What was wrong there.
    public var reason: String

    public var description: String { "invalid JSON at byte \(offset): \(reason)" }
}

/// A recursive-descent JSON parser (RFC 8259) over a byte array.
struct JSONParser {
    let bytes: [UInt8]
    var index = 0
    var depth = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    /// The document as UTF-8 without a byte order mark. The encoding is found as JSONDecoder finds
    /// it: a byte order mark, else the pattern of zero bytes among the first four (the first two
    /// characters of JSON are ASCII).
    static func utf8(_ bytes: [UInt8]) throws(JSONParseError) -> [UInt8] {
        let head = (0..<4).map { $0 < bytes.count ? Int(bytes[$0]) : -1 }  // -1: past the end
        let encoding: String.Encoding
        let markLength: Int
        switch (head[0], head[1], head[2], head[3]) {
        case (0, 0, 0xFE, 0xFF): (encoding, markLength) = (.utf32BigEndian, 4)
        case (0xFE, 0xFF, 0, 0): (encoding, markLength) = (.utf32LittleEndian, 4)
        case (0xFE, 0xFF, _, _): (encoding, markLength) = (.utf16BigEndian, 2)
        case (0xFF, 0xFE, _, _): (encoding, markLength) = (.utf16LittleEndian, 2)
        case (0xEF, 0xBB, 0xBF, _): return Array(bytes.dropFirst(3))
        case (0, 0, 0, 1...): (encoding, markLength) = (.utf32BigEndian, 0)
        case (0, 1..., 0, 1...), (0, 1..., -1, -1): (encoding, markLength) = (.utf16BigEndian, 0)
        case (1..., 0, 0, 0): (encoding, markLength) = (.utf32LittleEndian, 0)
        case (1..., 0, 1..., 0), (1..., 0, -1, -1): (encoding, markLength) = (.utf16LittleEndian, 0)
        default: return bytes
        }
        guard let text = String(bytes: bytes.dropFirst(markLength), encoding: encoding) else {
            throw JSONParseError(offset: 0, reason: "not valid \(encoding)")
        }
        return Array(text.utf8)
    }

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        let value = try parseValue()
        skipWhitespace()
        guard index == bytes.count else { throw failure("unexpected data after the value") }
        return value
    }

    private func failure(_ reason: String) -> JSONParseError { JSONParseError(offset: index, reason: reason) }

    private mutating func skipWhitespace() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 {
            index += 1
        }
    }

    private mutating func parseValue() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        guard index < bytes.count else { throw failure("unexpected end") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try expect("false"); return .bool(false)
        case UInt8(ascii: "n"): try expect("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw failure("unexpected character")
        }
    }

    private mutating func expect(_ word: StaticString) throws(JSONParseError) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw failure("unexpected end") }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] {
            throw failure("unexpected character")
        }
        index += count
    }

    private mutating func enter() throws(JSONParseError) {
        depth += 1
        guard depth <= JSONValue.maximumDepth else { throw failure("nested deeper than \(JSONValue.maximumDepth) levels") }
    }

    private mutating func parseObject() throws(JSONParseError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw failure("expected a member name") }
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw failure("expected ':'") }
            index += 1
            let value = try parseValue()
            // JSONDecoder reads the first of two members with one name.
            if members[key] == nil { members[key] = value }
            skipWhitespace()
            guard index < bytes.count else { throw failure("unexpected end") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                // JSONDecoder accepts a comma before the closing brace.
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
                continue
            }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
            throw failure("expected ',' or '}'")
        }
    }

    private mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(elements) }
        while true {
            elements.append(try parseValue())
            skipWhitespace()
            guard index < bytes.count else { throw failure("unexpected end") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                // JSONDecoder accepts a comma before the closing bracket.
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(elements) }
                continue
            }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(elements) }
            throw failure("expected ',' or ']'")
        }
    }

    private mutating func parseString() throws(JSONParseError) -> String {
        index += 1  // the opening quote
        // Most strings have no escape: made at once from their bytes, with no copy byte by byte.
        let start = index
        while index < bytes.count, bytes[index] != UInt8(ascii: "\""), bytes[index] != UInt8(ascii: "\\") { index += 1 }
        if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
            index += 1
            return String(decoding: bytes[start..<(index - 1)], as: UTF8.self)
        }
        var utf8 = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(decoding: utf8, as: UTF8.self)
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { throw failure("unexpected end") }
                let escaped = bytes[index]
                index += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escaped)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"): utf8.append(contentsOf: try parseUnicodeEscape())
                default: throw failure("invalid escape")
                }
            default:
                utf8.append(byte)
                index += 1
            }
        }
        throw failure("unterminated string")
    }

    /// The UTF-8 of a `\uXXXX` escape (after the `u`), joining a surrogate pair; a lone surrogate
    /// becomes U+FFFD.
    private mutating func parseUnicodeEscape() throws(JSONParseError) -> [UInt8] {
        var scalar = try parseHex4()
        if (0xD800...0xDBFF).contains(scalar), index + 1 < bytes.count,
           bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") {
            let save = index
            index += 2
            let low = try parseHex4()
            if (0xDC00...0xDFFF).contains(low) {
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else {
                index = save
            }
        }
        let character = Unicode.Scalar(scalar) ?? "\u{FFFD}"
        return Array(String(Character(character)).utf8)
    }

    private mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw failure("unexpected end") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw failure("invalid \\u escape")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    /// A number as RFC 8259 writes it: an integer when its value is one that fits in 64 bits
    /// (`12`, `12.0`, `1.2e1`), else a double, else (beyond both) its text as sent.
    private mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = index
        var isInteger = true
        func digits(_ parser: inout JSONParser) -> Int {
            let from = parser.index
            while parser.index < parser.bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(parser.bytes[parser.index]) {
                parser.index += 1
            }
            return parser.index - from
        }
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        let integerStart = index
        guard digits(&self) > 0 else { throw failure("expected a digit") }
        if bytes[integerStart] == UInt8(ascii: "0"), index - integerStart > 1 { throw failure("leading zero") }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard digits(&self) > 0 else { throw failure("expected a digit after '.'") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits(&self) > 0 else { throw failure("expected a digit in the exponent") }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if isInteger { return Int64(text).map(JSONValue.integer) ?? .numberText(text) }
        // Beyond Double: infinite, or zero from digits that are not all zero.
        guard let number = Double(text), number.isFinite else { return .numberText(text) }
        if number == 0, text.prefix(while: { $0 != "e" && $0 != "E" }).contains(where: { ("1"..."9").contains($0) }) {
            return .numberText(text)
        }
        // As JSONDecoder reads it: `1505341963.0` (Reddit's timestamps) is the integer it equals.
        if let integer = Int64(exactly: number) { return .integer(integer) }
        return .number(number)
    }
}
