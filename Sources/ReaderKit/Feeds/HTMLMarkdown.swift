import Foundation

/// HTML as the markdown it was most likely written in: what a feed's `content` holds (HTML a
/// markdown renderer made), turned back into text that a markdown reader shows as the JSON
/// path's text is shown.
///
/// Paragraphs are separated by a blank line; links are `[text](href)`; lists are `- ` and `1. `
/// items; quotes are `> ` lines; `<pre>` is a fenced code block, its text as it was; `<code>`,
/// `<em>`, `<strong>` and `<del>` their markdown marks; headings `#`s; images their alt text.
/// Comments, scripts, styles and unknown tags leave only their text. Entities (named, decimal
/// and hex) are decoded once. The input is untrusted and read in one pass, in time linear in its
/// length: a tag that never closes is text, and nothing nests beyond ``maximumDepth``.
public enum HTMLMarkdown {
    /// The deepest lists and quotes are indented; deeper ones stay at this level.
    public static let maximumDepth = 16

    /// `html` as markdown, trimmed of blank lines at its ends.
    public static func markdown(from html: String) -> String {
        var converter = Converter()
        converter.run(Substring(html))
        return converter.finish()
    }

    private struct Converter {
        var lines: [String] = []
        var line = ""
        /// The prefix of each line of the current block: `> ` per quote, spaces per list level.
        var quotes = 0
        var lists: [(ordered: Bool, next: Int)] = []
        var preformatted = 0
        var skipping = 0
        var links: [String?] = []
        var pendingItemMark: String?

        var prefix: String {
            String(repeating: "> ", count: min(quotes, maximumDepth))
                + String(repeating: "   ", count: min(max(0, lists.count - 1), maximumDepth))
        }

        mutating func run(_ html: Substring) {
            var rest = html
            while let open = rest.firstIndex(of: "<") {
                text(rest[..<open])
                let afterOpen = rest.index(after: open)
                if rest[afterOpen...].hasPrefix("!--") {
                    guard let end = rest[afterOpen...].range(of: "-->") else { rest = rest[rest.endIndex...]; break }
                    rest = rest[end.upperBound...]
                    continue
                }
                guard let close = tagEnd(rest[afterOpen...]) else {
                    text(rest[open...])
                    rest = rest[rest.endIndex...]
                    break
                }
                tag(rest[afterOpen..<close])
                rest = rest[rest.index(after: close)...]
            }
            text(rest)
        }

        /// The `>` that ends a tag, outside quoted attribute values; nil when none does.
        private func tagEnd(_ text: Substring) -> Substring.Index? {
            var quote: Character?
            for index in text.indices {
                let character = text[index]
                if let open = quote {
                    if character == open { quote = nil }
                } else if character == "\"" || character == "'" {
                    quote = character
                } else if character == ">" {
                    return index
                }
            }
            return nil
        }

        mutating func text(_ raw: Substring) {
            guard skipping == 0, !raw.isEmpty else { return }
            let decoded = TerminalText.decodingHTMLEntities(String(raw))
            if preformatted > 0 {
                let parts = decoded.split(separator: "\n", omittingEmptySubsequences: false)
                for (index, part) in parts.enumerated() {
                    if index > 0 { endLine(keepingEmpty: true) }
                    line += part
                }
                return
            }
            // Outside <pre>, runs of white space are one space, as a browser shows them.
            var collapsed = ""
            var lastWasSpace = line.isEmpty || line.last == " "
            for character in decoded {
                if character.isWhitespace && character != "\u{A0}" {
                    if !lastWasSpace { collapsed.append(" ") }
                    lastWasSpace = true
                } else {
                    collapsed.append(character)
                    lastWasSpace = false
                }
            }
            guard !collapsed.isEmpty else { return }
            if line.isEmpty, let mark = pendingItemMark {
                line = prefix + mark
                pendingItemMark = nil
            } else if line.isEmpty {
                line = prefix
            }
            line += collapsed
        }

        mutating func endLine(keepingEmpty: Bool = false) {
            let trimmed = preformatted > 0 ? line : String(line.reversed().drop { $0 == " " }.reversed())
            if !trimmed.isEmpty || keepingEmpty { lines.append(trimmed) }
            line = ""
        }

        /// Ends the block: the line, then one blank line (never two); inside a quote, the blank
        /// line is the quote's mark alone.
        mutating func endBlock() {
            endLine()
            if let last = lines.last, !Self.isBlank(last) { lines.append(quotes > 0 ? String(prefix.dropLast()) : "") }
        }

        /// Whether a line is blank, or a quote's mark alone.
        static func isBlank(_ line: String) -> Bool {
            line.allSatisfy { $0 == ">" || $0 == " " }
        }

        mutating func tag(_ inside: Substring) {
            let closing = inside.first == "/"
            let body = closing ? inside.dropFirst() : inside
            let name = body.prefix { $0.isLetter || $0.isNumber }.lowercased()
            switch (name, closing) {
            case ("script", false), ("style", false): skipping += 1
            case ("script", true), ("style", true): skipping = max(0, skipping - 1)
            case _ where skipping > 0: return
            case ("p", _), ("div", _), ("table", _), ("tr", true): endBlock()
            case ("br", _): endLine(keepingEmpty: preformatted > 0)
            case ("hr", _): endBlock(); lines.append(prefix + "---"); endBlock()
            case ("h1", false), ("h2", false), ("h3", false), ("h4", false), ("h5", false), ("h6", false):
                endBlock()
                let level = Int(String(name.dropFirst())) ?? 1
                line = prefix + String(repeating: "#", count: level) + " "
            case ("h1", true), ("h2", true), ("h3", true), ("h4", true), ("h5", true), ("h6", true): endBlock()
            case ("blockquote", false): endBlock(); quotes += 1
            case ("blockquote", true):
                endLine()
                if let last = lines.last, !last.isEmpty, Self.isBlank(last) { lines.removeLast() }
                quotes = max(0, quotes - 1)
                endBlock()
            case ("ul", false), ("ol", false):
                endLine()
                if lists.isEmpty { endBlock() }
                lists.append((ordered: name == "ol", next: 1))
            case ("ul", true), ("ol", true):
                endLine()
                if !lists.isEmpty { lists.removeLast() }
                if lists.isEmpty { endBlock() }
            case ("li", false):
                endLine()
                if lists.isEmpty { lists.append((ordered: false, next: 1)) }
                let index = lists.count - 1
                let mark = lists[index].ordered ? "\(lists[index].next). " : "- "
                lists[index].next = min(lists[index].next + 1, 1_000_000)
                pendingItemMark = mark
            case ("li", true): endLine()
            case ("pre", false): endBlock(); line = prefix + "```"; endLine(); preformatted += 1
            case ("pre", true):
                endLine(keepingEmpty: !line.isEmpty)
                preformatted = max(0, preformatted - 1)
                lines.append(prefix + "```")
                endBlock()
            case ("code", _) where preformatted == 0: inline("`")
            case ("em", _), ("i", _): inline("*")
            case ("strong", _), ("b", _): inline("**")
            case ("del", _), ("s", _), ("strike", _): inline("~~")
            case ("sup", false): inline("^")
            case ("td", true), ("th", true): inline(" ")
            case ("a", false):
                let href = attribute("href", in: body)
                links.append(href)
                if href != nil { inline("[") }
            case ("a", true):
                guard let href = links.popLast() else { return }
                if let href { inline("](\(href))") }
            case ("img", _):
                if let alt = attribute("alt", in: body), !alt.isEmpty { text(Substring(alt)) }
            default:
                return
            }
        }

        /// Inline marks go on the current line, after the block's prefix.
        mutating func inline(_ mark: String) {
            if line.isEmpty {
                if let item = pendingItemMark { line = prefix + item; pendingItemMark = nil } else { line = prefix }
            }
            line += mark
        }

        /// The value of attribute `name` in a tag's text, its entities decoded; nil when absent.
        func attribute(_ name: String, in tag: Substring) -> String? {
            var rest = tag.drop { !$0.isWhitespace }
            while let start = rest.firstIndex(where: { !$0.isWhitespace && $0 != "/" }) {
                rest = rest[start...]
                let key = rest.prefix { $0 != "=" && !$0.isWhitespace && $0 != ">" }
                rest = rest.dropFirst(key.count).drop { $0.isWhitespace }
                var value = ""
                if rest.first == "=" {
                    rest = rest.dropFirst().drop { $0.isWhitespace }
                    if let quote = rest.first, quote == "\"" || quote == "'" {
                        let inner = rest.dropFirst()
                        let end = inner.firstIndex(of: quote) ?? inner.endIndex
                        value = String(inner[..<end])
                        rest = end < inner.endIndex ? inner[inner.index(after: end)...] : inner[inner.endIndex...]
                    } else {
                        let raw = rest.prefix { !$0.isWhitespace }
                        value = String(raw)
                        rest = rest.dropFirst(raw.count)
                    }
                }
                if key.lowercased() == name { return TerminalText.decodingHTMLEntities(value) }
                if key.isEmpty { rest = rest.dropFirst() }
            }
            return nil
        }

        mutating func finish() -> String {
            endLine()
            while let last = lines.last, Self.isBlank(last) { lines.removeLast() }
            while lines.first?.isEmpty == true { lines.removeFirst() }
            // Each item's text was trimmed; marks around spaces (`** x**`) are left as they came.
            return lines.joined(separator: "\n")
        }
    }
}
