import Foundation
import ReaderKit

/// An Open Library record's id: `OL`, a number, and a letter for the kind of record
/// (`OL45804W` a work, `OL23919A` an author).
///
/// Checked where it is made, so that it is safe in a path, a message and a terminal: at most ten
/// ASCII digits, always written in capitals (`ol45804w` is `OL45804W`: one record, one cache entry).
public struct OpenLibraryID: Sendable, Hashable, CustomStringConvertible {
    /// The kinds of record this package reads.
    public enum Kind: Sendable, Hashable, CaseIterable {
        /// A work: a book in all its editions (`/works/OL45804W`).
        case work
        /// A person who wrote works (`/authors/OL23919A`).
        case author

        /// The letter that ends its ids.
        public var letter: Character { self == .work ? "W" : "A" }
        /// The folder of its keys: `works` or `authors`.
        public var folder: String { self == .work ? "works" : "authors" }
        /// "work" or "author".
        public var noun: String { self == .work ? "work" : "author" }
        var article: String { self == .work ? "a" : "an" }
        /// A real id of this kind, for messages.
        public var example: String { self == .work ? "OL45804W" : "OL23919A" }
    }

    public let kind: Kind
    /// The number, as written (without leading signs; `0` is a number Open Library never gives).
    public let number: String

    /// `OL45804W`.
    public var description: String { "OL\(number)\(kind.letter)" }
    /// The record's key, `/works/OL45804W`, as Open Library writes it.
    public var key: String { "/\(kind.folder)/\(self)" }

    /// Reads `OL45804W`, `ol45804w` or the key `/works/OL45804W`; nil when it is not an id of `kind`.
    public init?(_ text: String, kind: Kind) {
        var rest = Substring(text)
        if rest.hasPrefix("/\(kind.folder)/") { rest = rest.dropFirst(kind.folder.count + 2) }
        let upper = rest.uppercased()
        guard upper.hasPrefix("OL"), upper.last == kind.letter else { return nil }
        let digits = upper.dropFirst(2).dropLast()
        guard (1...10).contains(digits.count), digits.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return nil }
        self.kind = kind
        number = String(digits)
    }

    /// Reads an id a person gave.
    /// - Throws: ``ReaderError/invalidArgument(_:)`` saying what an id of `kind` looks like, and
    ///   naming the kind the text is an id of when it is one of another.
    public static func parse(_ text: String, as kind: Kind) throws(ReaderError) -> OpenLibraryID {
        if let id = OpenLibraryID(text.trimmingCharacters(in: .whitespaces), kind: kind) { return id }
        let shown = TerminalText.sanitise(text, maxLength: 40)
        if let other = Kind.allCases.first(where: { $0 != kind && OpenLibraryID(text.trimmingCharacters(in: .whitespaces), kind: $0) != nil }) {
            throw .invalidArgument("\(shown) is \(other.article) \(other.noun)'s id; \(kind.article) \(kind.noun)'s id ends in \(kind.letter), such as \(kind.example)")
        }
        throw .invalidArgument("\"\(shown)\" is not \(kind.article) \(kind.noun)'s id: OL, digits and \(kind.letter), such as \(kind.example)")
    }

    /// The id in a record's URL, such as `https://openlibrary.org/works/OL0W.json`; nil for any
    /// other URL (a search).
    init?(recordURL url: String) {
        let path = url.split(separator: "?", maxSplits: 1).first ?? ""
        let parts = path.split(separator: "/")
        guard parts.count >= 2 else { return nil }
        var last = String(parts[parts.count - 1])
        if last.hasSuffix(".json") { last.removeLast(5) }
        guard let kind = Kind.allCases.first(where: { $0.folder == parts[parts.count - 2] }),
              let id = OpenLibraryID(last, kind: kind) else { return nil }
        self = id
    }
}
