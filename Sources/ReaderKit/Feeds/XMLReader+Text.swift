/// ``XMLReader``'s text: character data, CDATA, comments, processing instructions and references.
extension XMLReader {
    /// Character data up to the next `<`, into the text.
    mutating func readCharacters() throws(Failure) {
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
    mutating func readCDATA() throws(Failure) {
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
    mutating func readComment() throws(Failure) {
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
    mutating func readProcessingInstruction() throws(Failure) {
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
    func reference(at start: Int) throws(Failure) -> (Unicode.Scalar, Int) {
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

    mutating func appendText(_ range: Range<Int>) {
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

    mutating func appendText(_ scalar: Unicode.Scalar) {
        guard !textIsFull else { return }
        guard scalar.utf8.count <= maximumTextLength - textBytes.count else {
            textIsFull = true
            return
        }
        Self.appendUTF8(scalar, to: &textBytes)
    }
}
