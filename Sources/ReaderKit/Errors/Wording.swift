/// A sentence for people that names parameters or settings, kept in parts so that each front end
/// names them its own way.
///
/// ReaderKit's messages are read by programs that use it and by people at the `reader` command:
/// "`page` must be a whole number from 1" to the first, "`--page` must be…" to the second. A
/// name is written in the sentence as the API spells it (`page`, `FreshnessPolicy.maximumStale`);
/// ``description`` keeps those names (ReaderKit's own wording), and ``worded(naming:)`` puts a
/// front end's in their place.
///
/// Written as a string literal, in which `\(name: "page")` marks a name:
/// ```swift
/// throw .invalidArgument("\(name: "page") must be a whole number from 1, got \(page)")
/// ```
public struct Wording: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringInterpolation {
    /// A run of plain text, or a name.
    public enum Part: Sendable, Hashable {
        case text(String)
        /// A parameter of a ReaderKit function or a setting, as the API spells it.
        case name(String)
    }

    /// The sentence, in order; text runs are never empty nor next to each other.
    public private(set) var parts: [Part] = []

    /// Plain text, naming nothing.
    public init(_ text: String) {
        appendText(text)
    }

    /// A sentence of these parts.
    public init(parts: [Part]) {
        for part in parts {
            switch part {
            case .text(let text): appendText(text)
            case .name: self.parts.append(part)
            }
        }
    }

    public init(stringLiteral value: String) {
        self.init(value)
    }

    public init(stringInterpolation: StringInterpolation) {
        self.init(parts: stringInterpolation.parts)
    }

    /// The sentence with each name as `name` words it: `{ "--" + $0 }` for flags named as the
    /// parameters they set.
    public func worded(naming name: (String) -> String) -> String {
        parts.map { part in
            switch part {
            case .text(let text): text
            case .name(let named): name(named)
            }
        }.joined()
    }

    /// The sentence with each name as the API spells it: ReaderKit's wording.
    public var description: String { worded { $0 } }

    /// The names the sentence holds, in order.
    public var names: [String] {
        parts.compactMap { if case .name(let name) = $0 { name } else { nil } }
    }

    /// The same sentence with `transform` applied to its text (never to its names): for redaction.
    public func mappingText(_ transform: (String) -> String) -> Wording {
        Wording(parts: parts.map { part in
            if case .text(let text) = part { .text(transform(text)) } else { part }
        })
    }

    private mutating func appendText(_ text: String) {
        guard !text.isEmpty else { return }
        if case .text(let previous)? = parts.last {
            parts[parts.count - 1] = .text(previous + text)
        } else {
            parts.append(.text(text))
        }
    }

    /// Builds a ``Wording`` from a string literal: `\(name: "page")` is a name, any other
    /// interpolation is text, as in a `String`.
    public struct StringInterpolation: StringInterpolationProtocol {
        var parts: [Part] = []

        public init(literalCapacity: Int, interpolationCount: Int) {}

        public mutating func appendLiteral(_ literal: String) {
            parts.append(.text(literal))
        }

        /// `value` as a `String` interpolation writes it.
        public mutating func appendInterpolation<Value>(_ value: Value) {
            parts.append(.text(String(describing: value)))
        }

        /// A parameter or setting, as the API spells it.
        public mutating func appendInterpolation(name: String) {
            parts.append(.name(name))
        }
    }
}
