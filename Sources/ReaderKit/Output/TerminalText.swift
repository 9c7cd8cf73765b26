/// Makes text from the network safe and measurable for a terminal.
///
/// Anything a stranger can post (titles, names, a server's error reason) may hold escape
/// sequences that move the cursor or recolour the screen, bidi overrides that reverse what
/// follows, invisible characters, or line breaks that split a table row. `sanitise` removes or
/// replaces all of them; `width` counts terminal cells.
public enum TerminalText {
    /// Returns `text` with control characters, escape sequences, bidi controls and invisible
    /// characters removed, and line breaks and tabs folded to single spaces.
    /// - Parameters:
    ///   - text: untrusted text.
    ///   - maxLength: at most this many characters are kept, then an ellipsis.
    public static func sanitise(_ text: some StringProtocol, maxLength: Int = 4096) -> String {
        var output = String.UnicodeScalarView()
        var kept = 0
        forEachShownScalar(of: String(text).unicodeScalars) { scalar, _, isFoldedBreak in
            if isFoldedBreak { output.append(scalar); return true }
            if kept >= maxLength { output.append("…"); return false }
            output.append(scalar)
            kept += 1
            return true
        }
        var result = String(output)
        while result.hasSuffix(" ") { result.removeLast() }
        return result
    }

    /// `text` for a message that must show exactly what was written — a key, a name someone
    /// typed —: each scalar ``sanitise(_:maxLength:)`` would drop or fold (a control, an escape,
    /// a bidi or zero-width character, a line break) is written as a Swift escape, `\u{202E}`,
    /// so that two different names never look alike and a message about `"ur\u{202E}l"` does not
    /// read as one about `url`.
    /// - Parameters:
    ///   - text: untrusted text.
    ///   - maxLength: at most this many scalars are shown, then an ellipsis.
    public static func escapingInvisibles(_ text: some StringProtocol, maxLength: Int = 300) -> String {
        var output = ""
        var shown = 0
        for scalar in String(text).unicodeScalars {
            guard shown < maxLength else { output += "…"; break }
            shown += 1
            if isVisible(scalar), scalar != "\u{200D}" {
                output.unicodeScalars.append(scalar)
            } else {
                output += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
        }
        return output
    }

    /// Walks `scalars` as ``sanitise(_:maxLength:)`` shows them: escape sequences and invisible
    /// characters skipped, a run of line breaks and tabs given as one space (none at the start).
    /// `body` gets each scalar shown, the index in `scalars` it came from, and whether it is such
    /// a folded break; it returns whether to go on.
    private static func forEachShownScalar(
        of scalars: String.UnicodeScalarView,
        _ body: (Unicode.Scalar, String.UnicodeScalarView.Index, _ isFoldedBreak: Bool) -> Bool
    ) {
        var index = scalars.startIndex
        var lastWasSpace = false
        var previous: Unicode.Scalar?
        while index < scalars.endIndex {
            let scalar = scalars[index]
            if scalar == "\u{1B}" || scalar == "\u{9B}" {
                index = endOfEscapeSequence(startingAt: index, in: scalars)
                continue
            }
            let origin = index
            scalars.formIndex(after: &index)
            if scalar == "\n" || scalar == "\r" || scalar == "\t" || scalar == "\u{2028}" || scalar == "\u{2029}"
                || scalar == "\u{85}" {
                if !lastWasSpace && previous != nil {
                    lastWasSpace = true
                    guard body(" ", origin, true) else { return }
                }
                continue
            }
            // A zero-width joiner is kept only inside an emoji sequence (👩‍💻), where it draws one glyph.
            guard isVisible(scalar) || (scalar == "\u{200D}" && previous.map(isEmojiPart) == true) else { continue }
            previous = scalar
            lastWasSpace = scalar == " "
            guard body(scalar, origin, false) else { return }
        }
    }

    /// `text` with every occurrence of each of `secrets` replaced by `replacement`, found in the
    /// text as the terminal shows it (``sanitise(_:maxLength:)``), ignoring case.
    ///
    /// A match skips what cleaning removes, so that a server cannot have a secret shown by
    /// padding it with invisible characters or escape sequences (`S\u{200B}EKRET`), and what
    /// draws nothing of its own on the character before it (variation selectors, combining
    /// marks, skin tones); it compares letters as compatibility-folded (`ＳＥＫＲＥＴ`, `𝐒𝐄𝐊𝐑𝐄𝐓`).
    /// The whole span, padding included, is replaced. Text outside the matches is kept as it is.
    /// - Parameters:
    ///   - secrets: the strings never to show; the longest is looked for first.
    ///   - text: untrusted text.
    ///   - replacement: what stands where a secret was.
    public static func redacting(_ secrets: [String], in text: String, with replacement: String = "[redacted]") -> String {
        var text = text
        for secret in secrets.sorted(by: { $0.count > $1.count }) {
            text = redacting(secret, in: text, with: replacement)
        }
        return text
    }

    private static func redacting(_ secret: String, in text: String, with replacement: String) -> String {
        let needle = folded(secret.unicodeScalars).map(\.scalar)
        guard !needle.isEmpty else { return text }
        let scalars = text.unicodeScalars
        var haystack: [(scalar: Unicode.Scalar, origin: String.UnicodeScalarView.Index)] = []
        forEachShownScalar(of: scalars) { scalar, origin, _ in
            haystack += folded(CollectionOfOne(scalar)).map { ($0.scalar, origin) }
            return true
        }
        var result = String.UnicodeScalarView()
        var copied = scalars.startIndex
        var start = 0
        while start + needle.count <= haystack.count {
            guard (0..<needle.count).allSatisfy({ haystack[start + $0].scalar == needle[$0] }) else { start += 1; continue }
            let first = haystack[start].origin
            let last = haystack[start + needle.count - 1].origin
            // The span ends past what the last character carries: its marks and selectors.
            var end = scalars.index(after: last)
            while end < scalars.endIndex, drawsNothingOfItsOwn(scalars[end]) { scalars.formIndex(after: &end) }
            if first >= copied {
                result.append(contentsOf: scalars[copied..<first])
                result.append(contentsOf: replacement.unicodeScalars)
                copied = end
            }
            start += needle.count
            while start < haystack.count, haystack[start].origin < end { start += 1 }
        }
        guard copied != scalars.startIndex else { return text }
        result.append(contentsOf: scalars[copied...])
        return String(result)
    }

    /// `scalars` as a secret is compared: compatibility-folded (NFKC) and lowercased, without what
    /// draws nothing of its own. Each folded scalar is given with the index of the one it came from.
    private static func folded<Scalars: Collection<Unicode.Scalar>>(_ scalars: Scalars) -> [(scalar: Unicode.Scalar, from: Scalars.Index)] {
        var result: [(scalar: Unicode.Scalar, from: Scalars.Index)] = []
        for index in scalars.indices {
            let scalar = scalars[index]
            if scalar.isASCII {
                result.append((Unicode.Scalar(UInt8(ascii: scalar) | (scalar.properties.isUppercase ? 0x20 : 0)), index))
                continue
            }
            guard !drawsNothingOfItsOwn(scalar) else { continue }
            for piece in String(scalar).precomposedStringWithCompatibilityMapping.lowercased().unicodeScalars
            where !drawsNothingOfItsOwn(piece) {
                result.append((piece, index))
            }
        }
        return result
    }

    /// A scalar that changes how the character before it looks, or nothing: a combining mark, a
    /// variation selector, an emoji modifier, any default-ignorable code point.
    private static func drawsNothingOfItsOwn(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isGraphemeExtend || scalar.properties.isDefaultIgnorableCodePoint || scalar.properties.isEmojiModifier
    }

    /// An emoji, or the variation selector that asks for emoji presentation (❤️): what a
    /// zero-width joiner may follow.
    private static func isEmojiPart(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value == 0xFE0F || (scalar.value > 0xFF && scalar.properties.isEmoji)
    }

    /// Whether a scalar may reach the terminal as it is.
    static func isVisible(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x20...0x7E: return true                                // printable ASCII, the common case
        case 0x00...0x1F, 0x7F...0x9F: return false                  // C0 and C1 controls
        case 0x200B...0x200F, 0x202A...0x202E, 0x2060...0x2069: return false // zero-width, bidi marks and overrides
        case 0xFEFF, 0xFFF9...0xFFFB, 0x061C, 0x180E, 0x00AD: return false
        case 0x115F, 0x1160, 0x3164, 0xFFA0: return false              // Hangul fillers: blank, yet counted
        case 0xE0000...0xE007F: return false                          // tag characters
        default:
            switch scalar.properties.generalCategory {
            case .control, .format, .surrogate, .privateUse, .unassigned, .lineSeparator, .paragraphSeparator:
                // Format characters hide text, except the joiner that builds emoji sequences.
                return scalar.value == 0x200D
            default: return true
            }
        }
    }

    /// The index just past the ANSI escape at `start`: CSI (`ESC [` … final byte), OSC (`ESC ]` …
    /// BEL or ST), or a two-byte escape.
    private static func endOfEscapeSequence(startingAt start: String.UnicodeScalarView.Index,
                                            in scalars: String.UnicodeScalarView) -> String.UnicodeScalarView.Index {
        var index = scalars.index(after: start)
        let introducer: Unicode.Scalar
        if scalars[start] == "\u{9B}" {
            introducer = "["
        } else {
            guard index < scalars.endIndex else { return index }
            introducer = scalars[index]
            scalars.formIndex(after: &index)
        }
        switch introducer {
        case "[":
            while index < scalars.endIndex {
                let next = scalars[index]
                scalars.formIndex(after: &index)
                if (0x40...0x7E).contains(next.value) { break }
            }
        case "]", "P", "X", "^", "_":
            var previous: Unicode.Scalar?
            while index < scalars.endIndex {
                let next = scalars[index]
                scalars.formIndex(after: &index)
                if next == "\u{07}" || next == "\u{9C}" || (previous == "\u{1B}" && next == "\\") { break }
                previous = next
            }
        default:
            break
        }
        return index
    }

    /// The number of terminal cells `text` takes: East Asian wide characters and emoji take two,
    /// combining marks and joiners none.
    public static func width(_ text: some StringProtocol) -> Int {
        text.reduce(0) { $0 + width(of: $1) }
    }

    /// The number of cells one grapheme takes.
    ///
    /// A variation selector takes no cell of its own, and U+FE0F makes a character two wide
    /// only after one that has an emoji form (❤️, #️⃣): after a space or a letter it is stray
    /// (` \u{FE0F}`), and a terminal (tmux) draws the character at its own width, as it does
    /// U+FE0E and U+E0100…U+E01EF after anything.
    public static func width(of character: Character) -> Int {
        // Printable ASCII is most of what is measured, and one cell: no property lookups.
        if let ascii = character.asciiValue, (0x20..<0x7F).contains(ascii) { return 1 }
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        if scalars.count > 1,
           scalars.contains(where: { $0.properties.isEmojiPresentation }) || (first.properties.isEmoji && scalars.contains("\u{FE0F}")) {
            return 2
        }
        if first.properties.generalCategory == .nonspacingMark || first.properties.generalCategory == .enclosingMark
            || !isVisible(first) {
            return 0
        }
        if first.properties.isEmojiPresentation { return 2 }
        return isWide(first.value) ? 2 : 1
    }

    private static func isWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
             0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
             0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return true
        default:
            return false
        }
    }

    /// Cuts sanitised `text` to at most `cells` terminal cells, ending with `…` when it was cut.
    public static func truncate(_ text: String, toWidth cells: Int) -> String {
        guard cells > 0 else { return "" }
        guard width(text) > cells else { return text }
        var result = ""
        var used = 0
        for character in text {
            let next = width(of: character)
            if used + next > cells - 1 { break }
            result.append(character)
            used += next
        }
        return result + "…"
    }

    /// Pads sanitised `text` with spaces to exactly `cells` cells (cutting it when longer).
    public static func pad(_ text: String, toWidth cells: Int) -> String {
        let cut = truncate(text, toWidth: cells)
        return cut + String(repeating: " ", count: max(0, cells - width(cut)))
    }

    /// Decodes the HTML entities Reddit escapes text with when `raw_json` is not in effect
    /// (`&amp;`, `&lt;`, `&gt;`, `&quot;`, `&#39;`, `&#x27;`, `&nbsp;`). Decode before
    /// ``sanitise(_:maxLength:)``: an entity may spell a control character (`&#27;`).
    public static func decodingHTMLEntities(_ text: String) -> String {
        guard text.contains("&") else { return text }
        let named: [Substring: String] = ["amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{A0}"]
        var result = ""
        var rest = Substring(text)
        while let ampersand = rest.firstIndex(of: "&") {
            result += rest[..<ampersand]
            let afterAmpersand = rest.index(after: ampersand)
            // Entities are short; a lone & is kept as it is.
            guard let semicolon = rest[afterAmpersand...].prefix(10).firstIndex(of: ";") else {
                result += "&"; rest = rest[afterAmpersand...]; continue
            }
            let name = rest[afterAmpersand..<semicolon]
            var decoded: String?
            if let value = named[name] {
                decoded = value
            } else if name.first == "#" {
                let digits = name.dropFirst()
                let number = digits.first == "x" || digits.first == "X" ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits)
                decoded = number.flatMap(Unicode.Scalar.init).map { String($0) }
            }
            if let decoded {
                result += decoded
                rest = rest[rest.index(after: semicolon)...]
            } else {
                result += "&"
                rest = rest[afterAmpersand...]
            }
        }
        return result + rest
    }

    /// Sanitises text that has paragraphs (a self post, a comment): each line as
    /// ``sanitise(_:maxLength:)`` does, keeping the line breaks, with runs of blank lines
    /// folded to one.
    public static func sanitiseParagraphs(_ text: String, maxLength: Int = 40_000) -> [String] {
        var lines: [String] = []
        var budget = maxLength
        for raw in text.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n", omittingEmptySubsequences: false) {
            guard budget > 0 else { lines.append("…"); break }
            let line = sanitise(raw, maxLength: budget)
            budget -= line.count
            if line.isEmpty, lines.last?.isEmpty ?? true { continue }
            lines.append(line)
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        return lines
    }

    /// Wraps sanitised `text` at spaces so that no line is wider than `cells`.
    /// - Parameters:
    ///   - text: the text, already sanitised (``sanitise(_:maxLength:)``), so one line of words.
    ///   - cells: the widest line, at least 10.
    ///   - breakingLongWords: what becomes of a word wider than a line (a URL, a path): false cuts
    ///     it with an ellipsis; true breaks it across lines, so that none of it is lost.
    public static func wrap(_ text: String, toWidth cells: Int, breakingLongWords: Bool = false) -> [String] {
        let cells = max(10, cells)
        var lines: [String] = []
        var line = ""
        var used = 0
        for word in text.split(separator: " ") {
            var pieces = [breakingLongWords ? String(word) : truncate(String(word), toWidth: cells)]
            if breakingLongWords, width(word) > cells {
                // A long word starts a line of its own, then fills whole lines.
                if used > 0 { lines.append(line); line = ""; used = 0 }
                pieces = chunks(String(word), ofWidth: cells)
            }
            for piece in pieces {
                let next = width(piece)
                if used > 0, used + 1 + next > cells {
                    lines.append(line); line = ""; used = 0
                }
                if used > 0 { line += " "; used += 1 }
                line += piece
                used += next
            }
        }
        if !line.isEmpty || lines.isEmpty { lines.append(line) }
        return lines
    }

    /// Cuts sanitised `text` into pieces of at most `cells` cells (at least 2, so that a wide
    /// character always fits), keeping every character.
    public static func chunks(_ text: String, ofWidth cells: Int) -> [String] {
        let cells = max(2, cells)
        var pieces: [String] = []
        var piece = ""
        var used = 0
        for character in text {
            let next = width(of: character)
            if used + next > cells, !piece.isEmpty {
                pieces.append(piece); piece = ""; used = 0
            }
            piece.append(character)
            used += next
        }
        if !piece.isEmpty || pieces.isEmpty { pieces.append(piece) }
        return pieces
    }
}
