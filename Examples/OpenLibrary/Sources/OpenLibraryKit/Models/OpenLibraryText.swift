import Foundation

/// A text field Open Library writes two ways: a plain string, or `{"type": "/type/text",
/// "value": "…"}` (a work's `description`, an author's `bio`).
struct OpenLibraryText: Decodable, Sendable, Equatable {
    var value: String

    private enum CodingKeys: String, CodingKey { case value }

    init(from decoder: any Decoder) throws {
        if let text = try? decoder.singleValueContainer().decode(String.self) {
            value = text
        } else {
            value = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .value)
        }
    }
}

extension KeyedDecodingContainer {
    /// An optional text in either of Open Library's forms; nil when absent or null.
    func decodeText(forKey key: Key) throws -> String? {
        try decodeIfPresent(OpenLibraryText.self, forKey: key)?.value
    }

    /// An optional count, such as a number of editions: nil when absent, null or not a whole
    /// number in `range` (a count a server got wrong is not shown, never a trap).
    func decodeCount(forKey key: Key, in range: ClosedRange<Int>) -> Int? {
        guard let number = try? decodeIfPresent(Double.self, forKey: key), number.isFinite,
              let whole = Int(exactly: number), range.contains(whole) else { return nil }
        return whole
    }

    /// A list of strings that tolerates null in place of the list (Open Library's records are
    /// edited by people); a member of another type is a decoding error.
    func decodeStrings(forKey key: Key) throws -> [String] {
        try decodeIfPresent([String].self, forKey: key) ?? []
    }
}
