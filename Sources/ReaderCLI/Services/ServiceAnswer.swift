import Foundation
import ReaderKit

/// One kind of answer a service's commands read, and how `reader` shows it. The fuzz harnesses
/// send every input through every answer of every service in the registry
/// (``ServicePlugin/answers``), so a service is fuzzed by listing what it reads.
public struct ServiceAnswer: Sendable {
    /// Where and when an answer is shown.
    public struct Showing: Sendable {
        /// The terminal's width; nil for a pipe.
        public var width: Int?
        /// The moment it is shown, for ages.
        public var now: Date

        public init(width: Int?, now: Date) {
            self.width = width
            self.now = now
        }
    }

    /// How the answer is read.
    package enum Reading: Sendable {
        /// Decoded as an endpoint's value and shown at each width; a stored copy is read back
        /// the same way. With a translation, the body is the service's other route's, translated first.
        case decoded(translation: ResponseTranslation?,
                     read: @Sendable (_ response: HTTPResponse, _ url: String, _ service: any Service, _ showings: [Showing]) throws(ReaderError) -> Void,
                     readStored: @Sendable (_ body: Data, _ showings: [Showing]) -> Bool)
        /// Read by code of the service's own, such as its token endpoint's answer.
        case answer(@Sendable (_ response: HTTPResponse, _ now: Date) throws(ReaderError) -> Void)
        /// The bytes read as a file the service keeps, such as its token file, in `folder`.
        case file(@Sendable (_ bytes: Data, _ folder: String, _ now: Date) -> Void)
    }

    /// What it is, in a fuzz run's outcomes: `films`, `posts`.
    public var name: String
    package var reading: Reading

    /// An endpoint's answer: decoded as `type`, then shown by `show` as the command shows it.
    /// - Parameter translation: for an answer of the service's other route
    ///   (``Service/detour(around:)``), the translation its body goes through before decoding.
    public init<Value: Decodable & Sendable>(_ name: String, as type: Value.Type, translatedBy translation: ResponseTranslation? = nil,
                                             shown show: @escaping @Sendable (Value, Showing) -> Void) {
        self.name = name
        reading = .decoded(
            translation: translation,
            read: { response, url, service, showings throws(ReaderError) in
                var response = response
                if let translation {
                    try ResponseValidator.validateStatus(response, url: url, service: service)
                    response.body = try translation.translate(response.body, url)
                    response.headers = HeaderFields([(name: "Content-Type", value: "application/json")])
                }
                let value = try ResponseValidator.decode(type, from: response, url: url, now: showings.first?.now ?? Date(), service: service)
                for showing in showings { show(value, showing) }
            },
            readStored: { body, showings in
                guard let value = try? ResponseValidator.decodeBody(type, from: body) else { return false }
                for showing in showings { show(value, showing) }
                return true
            })
    }

    /// An answer read by the service's own code (`read` throws what the code throws).
    public init(_ name: String, read: @escaping @Sendable (_ response: HTTPResponse, _ now: Date) throws(ReaderError) -> Void) {
        self.name = name
        reading = .answer(read)
    }

    /// A file the service keeps, read from `bytes` written in `folder` as the service reads it.
    public init(file name: String, read: @escaping @Sendable (_ bytes: Data, _ folder: String, _ now: Date) -> Void) {
        self.name = name
        reading = .file(read)
    }
}
