import Foundation

/// How a request's answer in another format than JSON is read: its media types, and a pure
/// function from its body to the JSON its endpoint's type decodes (an Atom feed read as the JSON
/// listing the same data has on the service's API).
///
/// A request carries one when its service sends it by another route
/// (``Service/detour(around:)``). The answer passes the same layers as any, in the same order:
/// status and error body, then content type (one of ``mediaTypes``, where JSON would be asked),
/// then the translation (its failure is the decoding's), then decoding. What is stored in the
/// cache is the translated JSON, so a cached copy is read as any other.
public struct ResponseTranslation: Sendable, Hashable {
    /// A name for it, in logs and `--json`'s meta: `atom`.
    public var name: String
    /// What its answers are, in words, for a failure: `an Atom feed`.
    public var description: String
    /// The media types its answers come in (`application/atom+xml`), lowercased.
    public var mediaTypes: Set<String>
    /// The body, from the URL given, as JSON; throws what the body is not.
    public let translate: @Sendable (_ body: Data, _ url: String) throws(ReaderError) -> Data

    /// - Parameters:
    ///   - name: a name, in logs and metadata.
    ///   - description: what its answers are, in words (`an Atom feed`), for a failure.
    ///   - mediaTypes: the media types its answers may have (compared without parameters, lowercased).
    ///   - translate: the body as JSON bytes, given the URL it came from; throws a
    ///     ``ReaderError/decoding(_:)`` for a body that is not what it reads, or a
    ///     ``ReaderError/status(_:)`` for a body that says the resource is not there.
    public init(name: String, description: String, mediaTypes: Set<String>,
                translate: @escaping @Sendable (_ body: Data, _ url: String) throws(ReaderError) -> Data) {
        self.name = name
        self.description = description
        self.mediaTypes = Set(mediaTypes.map { $0.lowercased() })
        self.translate = translate
    }

    /// Whether an answer's `Content-Type` is one of ``mediaTypes``.
    func accepts(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let mediaType = contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        return mediaTypes.contains(mediaType)
    }

    public static func == (lhs: ResponseTranslation, rhs: ResponseTranslation) -> Bool {
        lhs.name == rhs.name && lhs.mediaTypes == rhs.mediaTypes
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(mediaTypes)
    }
}
