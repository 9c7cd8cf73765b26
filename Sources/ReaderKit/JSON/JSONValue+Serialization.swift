extension JSONValue {
    /// This value as JSON text, byte for byte as `ReaderJSON.makeEncoder()` writes it (keys in
    /// UTF-8 order, slashes unescaped, numbers as Swift prints them), with three differences: a
    /// ``numberText(_:)`` is written as sent, there is no limit on nesting (JSONEncoder refuses 512
    /// levels, which a 512-deep answer inside `{"items": […]}` would reach), and the scalars of
    /// ``escapesForTerminals(_:)`` are escaped.
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

    /// Scalars written as `\uXXXX` though JSONEncoder writes them as they are: DEL and the C1
    /// controls (U+009B is a CSI on many terminals), the line and paragraph separators, and the
    /// invisible ones that reorder or hide text (bidi controls, zero-width spaces, the BOM).
    /// `--json` often reaches a screen (`reader posts --json | less`); escaped, the text a
    /// server chose cannot act on it, and any JSON reader reads the same string back.
    public static func escapesForTerminals(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x7F...0x9F, 0x061C, 0x200B, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A...0x202E, 0x2060, 0x2066...0x2069, 0xFEFF: true
        default: false
        }
    }

    /// A string as JSONEncoder escapes it — the quote, the backslash, and control characters (with
    /// the short forms where JSON has them) — and the scalars of ``escapesForTerminals(_:)``.
    ///
    /// Every other scalar is copied as its UTF-8 bytes, with no String made for it: the text of a
    /// listing is most of what `--json` writes.
    private static func writeString(_ text: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        for scalar in text.unicodeScalars {
            let value = scalar.value
            switch value {
            case 0x22: bytes += #"\""#.utf8
            case 0x5C: bytes += #"\\"#.utf8
            case 0x08: bytes += #"\b"#.utf8
            case 0x0C: bytes += #"\f"#.utf8
            case 0x0A: bytes += #"\n"#.utf8
            case 0x0D: bytes += #"\r"#.utf8
            case 0x09: bytes += #"\t"#.utf8
            case 0x20..<0x7F: bytes.append(UInt8(truncatingIfNeeded: value))
            case _ where value < 0x20 || escapesForTerminals(scalar):
                bytes += #"\u"#.utf8
                for shift in [12, 8, 4, 0] as [UInt32] { bytes.append(hexDigit(value >> shift & 0xF)) }
            default: UTF8.encode(scalar) { bytes.append($0) }
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// The lowercase hexadecimal digit of `nibble` (0 to 15), as JSONEncoder writes `\u` escapes.
    private static func hexDigit(_ nibble: UInt32) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + UInt8(truncatingIfNeeded: nibble) : UInt8(ascii: "a") + UInt8(truncatingIfNeeded: nibble - 10)
    }
}
