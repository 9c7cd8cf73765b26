import Foundation
import ReaderKit

/// Open Library (https://openlibrary.org), the Internet Archive's catalogue of books, as a
/// ReaderKit service: built on ReaderKit's public API alone, as any library user's service is.
///
/// What makes it a service of its own:
/// - its paths take a `.json` suffix (`/works/OL45804W.json`, `/search.json?q=…`), added by
///   ``adapt(_:)`` so that endpoints name the resource only;
/// - it asks clients for a User-Agent naming the application and a contact (``contact``);
/// - its error bodies are Infobase's: `{"error": "notfound", "key": "/works/OL0W"}` with a 404,
///   `{"error": "bad_data", "message": "…"}` with a 400 (``errorBody(in:status:)``);
/// - a missing record is said in its own words, "Open Library has no work OL0W"
///   (``explanation(of:)``).
///
/// ```swift
/// let openLibrary = try OpenLibrary.fromEnvironment(ProcessInfo.processInfo.environment)
/// let client = ReaderClient(configuration: .init(services: ServiceConfiguration([openLibrary]),
///                                                cachePath: "/tmp/books.sqlite"))
/// let work = try await client.load(try OpenLibrary.work("OL45804W")).value
/// print(work.title)  // Fantastic Mr Fox
/// ```
///
/// ## Topics
/// - ``fromEnvironment(_:)``
/// - ``work(_:)``
/// - ``author(_:)``
/// - ``search(_:limit:)``
public struct OpenLibrary: Service {
    /// The name its cache entries and statistics are kept under: `openlibrary`.
    public static let serviceName: ServiceName = "openlibrary"
    /// `https://openlibrary.org`.
    public static let defaultBaseURL = URL(string: "https://openlibrary.org")!
    /// The environment variable that points the service elsewhere (a mirror, a test server).
    public static let baseURLVariable = "OPENLIBRARY_URL"
    /// The environment variable naming who to contact about this client's requests.
    public static let contactVariable = "OPENLIBRARY_CONTACT"
    /// The application named in the User-Agent, with its version.
    public static let applicationName = "openlibrary-example/\(ReaderKitVersion.string)"

    /// Catalogue records change seldom; searches more often, yet an hour-old result list is still
    /// a good answer. The floor of a minute means that running the same command twice never costs
    /// a request, whatever `max-age` an answer gives: Open Library asks clients to be sparing.
    public static let freshnessRule = FreshnessPolicy.Rule(defaultLifetime: .seconds(3_600), minimumLifetime: .seconds(60))

    public var name: ServiceName { Self.serviceName }
    public var baseURL: URL
    public var freshness: FreshnessPolicy.Rule { Self.freshnessRule }
    /// Who to contact about this client's requests (an email address or a URL), sent in the
    /// User-Agent as Open Library asks; nil sends the application's name alone.
    public let contact: String?

    /// A service at `baseURL`.
    /// - Parameters:
    ///   - baseURL: where the paths are resolved; Open Library itself by default.
    ///   - contact: an email address or URL for the User-Agent: at most 100 printable ASCII
    ///     characters, without parentheses (they close the User-Agent's comment).
    /// - Throws: ``ReaderError/invalidConfiguration(_:)`` when `contact` cannot be sent in a header.
    public init(baseURL: URL = defaultBaseURL, contact: String? = nil) throws(ReaderError) {
        self.baseURL = baseURL
        if let contact {
            let trimmed = contact.trimmingCharacters(in: .whitespaces)
            // A header value from the environment: anything that could end the header or the
            // comment it sits in would let the variable write headers of its own.
            guard !trimmed.isEmpty, trimmed.utf8.count <= 100,
                  trimmed.utf8.allSatisfy({ (0x20...0x7E).contains($0) && $0 != UInt8(ascii: "(") && $0 != UInt8(ascii: ")") })
            else {
                throw .invalidConfiguration(
                    "\(Self.contactVariable) must be an email address or URL of at most 100 printable ASCII characters, without parentheses")
            }
            self.contact = trimmed
        } else {
            self.contact = nil
        }
    }

    /// Reads ``baseURLVariable`` (`OPENLIBRARY_URL`) and ``contactVariable`` (`OPENLIBRARY_CONTACT`).
    /// - Throws: ``ReaderError/invalidConfiguration(_:)`` when the URL is not an http(s) URL with a
    ///   host, or the contact cannot be sent in a header.
    public static func fromEnvironment(_ environment: [String: String]) throws(ReaderError) -> OpenLibrary {
        let url = try ServiceConfiguration.baseURL(in: environment, variable: baseURLVariable, default: defaultBaseURL)
        let contact = environment[contactVariable].flatMap { $0.isEmpty ? nil : $0 }
        return try OpenLibrary(baseURL: url, contact: contact)
    }

    /// `openlibrary-example/0.1.0 (ReaderKit; contact)`, the form Open Library asks for.
    public var userAgent: String {
        "\(Self.applicationName) (ReaderKit" + (contact.map { "; \($0)" } ?? "") + ")"
    }

    /// Names the application and its contact, and adds the `.json` every path takes.
    public func adapt(_ request: inout ServiceRequest) {
        request.headers.remove("User-Agent")
        request.headers.add("User-Agent", userAgent)
        if !request.path.hasSuffix(".json") { request.path += ".json" }
    }

    /// Reads Infobase's error bodies: `{"error": "notfound", "key": "/works/OL0W"}` and
    /// `{"error": "bad_data", "message": "…"}`. The error word is the reason; the message is the
    /// body's, or the key that was not found; the status claimed is the one Infobase gives that
    /// word (404 for `notfound`). Nil for any other body, such as an HTML error page.
    /// One result of a search: its root answers with a web page, not JSON.
    public var probe: Endpoint<JSONValue> {
        Endpoint(service: name, path: "search", query: [URLQueryItem(name: "q", value: "tolkien"),
                                                         URLQueryItem(name: "limit", value: "1"),
                                                         URLQueryItem(name: "fields", value: "key")])
    }

    public func errorBody(in body: Data, status: Int) -> APIErrorBody? {
        guard !body.isEmpty, body.count <= APIErrorBody.maximumBodySize,
              let wire = try? JSONDecoder().decode(InfobaseError.self, from: body) else { return nil }
        // Infobase's error words are short lowercase names; anything else is some other JSON.
        let word = wire.error
        guard (1...40).contains(word.utf8.count),
              word.utf8.allSatisfy({ (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || $0 == UInt8(ascii: "_") })
        else { return nil }
        let message = wire.message.map { String($0.prefix(1_000)) } ?? wire.key.map { String($0.prefix(200)) }
        return APIErrorBody(reason: word, message: message, statusInBody: InfobaseError.statuses[word])
    }

    /// "Open Library has no work OL0W" for a 404 (or a body that says `notfound`) on a work or an
    /// author; nil otherwise, for the generic wording.
    public func explanation(of failure: StatusFailure) -> ServiceExplanation? {
        guard failure.isNotFound || failure.apiError?.saysNotFound == true,
              let id = OpenLibraryID(recordURL: failure.url) else { return nil }
        return ServiceExplanation(
            reason: "not_found",
            message: "Open Library has no \(id.kind.noun) \(id)",
            hint: "check the id: \(id.kind.article) \(id.kind.noun)'s id is OL, digits and \(id.kind.letter), such as \(id.kind.example)")
    }
}

/// Infobase's error body, as Open Library sends it.
private struct InfobaseError: Decodable {
    var error: String
    var key: String?
    var message: String?

    /// The statuses Infobase sends with each error word.
    static let statuses: [String: Int] = ["notfound": 404, "user_notfound": 404, "permission_denied": 403,
                                          "bad_data": 400, "conflict": 409]
}
