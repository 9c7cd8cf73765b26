extension JSONValue {
    /// This value as JSON text, byte for byte as `ReaderJSON.makeEncoder()` writes it (keys in
    /// UTF-8 order, slashes unescaped, numbers as Swift prints them), with two differences that keep
    /// what came from a server whole: a ``numberText(_:)`` is written as sent, and there is no limit
    /// on nesting (JSONEncoder refuses 512 levels, which a 512-deep answer inside `{"items": […]}`
    /// would reach).
    public func serialized() -> [UInt8] {
        var bytes: [UInt8] = []
        Self.write(self, to: &bytes)
        return bytes
    }

    private static func write(_ value: JSONValue, to bytes: inout [UInt8]) {
        switch value {
        case .null: bytes += "null".utf8
        case .bool(let flag): bytes += (flag ? "true" : "false").utf8
        case .integer(let integer): bytes += String(integer).utf8
        case .number(let number):
            // JSONEncoder's form: Swift's shortest description, without a trailing ".0". A value
            // that is not finite has no JSON form (JSONEncoder refuses it); no parse makes one.
            var text = number.isFinite ? number.description : "null"
            if text.hasSuffix(".0") { text.removeLast(2) }
            bytes += text.utf8
        case .numberText(let text): bytes += text.utf8
        case .string(let text): writeString(text, to: &bytes)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (position, element) in elements.enumerated() {
                if position > 0 { bytes.append(UInt8(ascii: ",")) }
                write(element, to: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            for (position, member) in members.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }).enumerated() {
                if position > 0 { bytes.append(UInt8(ascii: ",")) }
                writeString(member.key, to: &bytes)
                bytes.append(UInt8(ascii: ":"))
                write(member.value, to: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// A string as JSONEncoder escapes it: the quote, the backslash, and control characters (with
    /// the short forms where JSON has them); everything else, U+007F and U+2028 included, as is.
    private static func writeString(_ text: String, to bytes: inout [UInt8]) {
        let hexDigits = Array("0123456789abcdef".utf8)
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes += #"\""#.utf8
            case UInt8(ascii: "\\"): bytes += #"\\"#.utf8
            case 0x08: bytes += #"\b"#.utf8
            case 0x0C: bytes += #"\f"#.utf8
            case 0x0A: bytes += #"\n"#.utf8
            case 0x0D: bytes += #"\r"#.utf8
            case 0x09: bytes += #"\t"#.utf8
            case 0x00..<0x20: bytes += #"\u00"#.utf8 + [hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)]]
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
