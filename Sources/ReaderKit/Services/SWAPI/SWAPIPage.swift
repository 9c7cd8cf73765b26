/// One page of a SWAPI collection: SWAPI answers lists in pages of ten.
public struct SWAPIPage<Resource: SWAPIResource>: Codable, Sendable, Hashable {
    /// How many resources the whole collection (or search) holds.
    public var count: Int
    /// The URL of the next page, or nil on the last one.
    public var next: String?
    /// The URL of the previous page, or nil on the first one.
    public var previous: String?
    /// The resources on this page.
    public var results: [Resource]

    public init(count: Int, next: String?, previous: String?, results: [Resource]) {
        self.count = count
        self.next = next
        self.previous = previous
        self.results = results
    }

    enum CodingKeys: String, CodingKey { case count, next, previous, results }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        // The page count is worked out from it: a count of 2^63 must not reach that arithmetic.
        count = try container.decode(Int.self, forKey: .count, within: OutsideNumbers.count)
        next = try container.decodeIfPresent(String.self, forKey: .next)
        previous = try container.decodeIfPresent(String.self, forKey: .previous)
        results = try container.decode([Resource].self, forKey: .results)
    }
}

/// A resource of the Star Wars API: each has a canonical `url` whose last component is its id.
public protocol SWAPIResource: Codable, Sendable, Hashable {
    /// The collection's path component, such as `films` or `people`.
    static var collection: SWAPICollection { get }
    /// The resource's canonical URL, such as `https://swapi.dev/api/people/1/`.
    var url: String { get }
    /// What people call it: a film's title, anything else's name.
    var displayName: String { get }
}

extension SWAPIResource {
    /// The numeric id at the end of `url`, or nil when the URL has none.
    public var id: Int? { SWAPICollection.id(fromResourceURL: url) }
}

/// The six collections of the Star Wars API.
public enum SWAPICollection: String, CaseIterable, Sendable, Codable {
    case films, people, planets, species, starships, vehicles

    /// The id at the end of a resource URL such as `https://swapi.dev/api/people/1/`.
    public static func id(fromResourceURL url: String) -> Int? {
        url.split(separator: "/").last.flatMap { Int($0) }
    }
}

/// SWAPI writes many numbers as text: `"1,358"`, `"unknown"`, `"n/a"`, `"30-165"`. The models keep
/// the text as sent; these readings give a number where the text is one, and nil otherwise.
public enum SWAPINumber {
    /// `"1,358"` → 1358, `"36.8 "` → 36.8, `"unknown"` → nil, `"30-165"` → nil.
    public static func parse(_ text: String) -> Double? {
        let cleaned = text.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: ",", with: "")
        guard !cleaned.isEmpty, cleaned.allSatisfy({ $0.isNumber || $0 == "." }) else { return nil }
        return Double(cleaned)
    }
}

import Foundation
