import Foundation

/// A response type that an answer without a body stands for: an endpoint whose `Response`
/// conforms reads a `204 No Content`, or any 2xx with an empty body, as ``noBody`` (RFC 9110
/// §15.3.5), without asking for a content type. An endpoint of any other type expects JSON, and
/// an empty body is not JSON (`D1002`).
public protocol BodylessDecodable: Decodable {
    /// The value an answer without a body stands for.
    static var noBody: Self { get }
}

/// An answer that carries nothing: the response type of an endpoint whose answer is its status
/// (a `204 No Content` to a ping); a JSON body, if one comes, is read and ignored.
public struct NoContent: BodylessDecodable, Sendable, Hashable {
    public static let noBody = NoContent()

    public init() {}

    public init(from decoder: any Decoder) throws {}
}

extension JSONValue: BodylessDecodable {
    /// No body is JSON's `null`.
    public static var noBody: JSONValue { .null }
}

extension Optional: BodylessDecodable where Wrapped: Decodable {
    /// No body is no value.
    public static var noBody: Optional { nil }
}
