import Foundation

/// Any JSON value, kept as sent, so that `--json` output carries every field the API gave and
/// keeps the API's own names.
public enum JSONValue: Codable, Sendable, Hashable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    /// A number that neither `Int64` nor `Double` holds as sent (`1e999`, `1e-999`,
    /// `18446744073709551616`): its JSON text, so that it is written back unchanged.
    case numberText(String)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Decodes any value by trying each kind in turn. Each failed try costs the length of the
    /// coding path, so nesting is capped at 64 levels here; for bytes, ``init(parsing:)`` is
    /// linear and takes any depth JSON allows.
    public init(from decoder: any Decoder) throws {
        guard decoder.codingPath.count < 64 else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "JSONValue nested deeper than 64 levels"))
        }
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Int64.self) { self = .integer(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([JSONValue].self) { self = .array(value) }
        else { self = .object(try container.decode([String: JSONValue].self)) }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .numberText(let text):
            // JSONEncoder writes no raw text: a Decimal keeps what it can (38 digits, exponents to
            // ±127); anything beyond is refused rather than changed. ``serialized()`` keeps it all.
            guard let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")), decimal.isFinite,
                  decimal.description == text else {
                throw EncodingError.invalidValue(text, .init(codingPath: encoder.codingPath,
                                                             debugDescription: "\(text) is beyond what JSONEncoder writes"))
            }
            try container.encode(decimal)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The member `key` of an object, or nil.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { members[key] } else { nil }
    }

    /// The element at `index` of an array, or nil.
    public subscript(index: Int) -> JSONValue? {
        if case .array(let elements) = self, elements.indices.contains(index) { elements[index] } else { nil }
    }

    /// The elements of an array, or an empty array.
    public var arrayValue: [JSONValue] {
        if case .array(let elements) = self { elements } else { [] }
    }
}
