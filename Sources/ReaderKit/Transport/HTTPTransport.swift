import Foundation

/// Header fields in order, looked up without regard to case.
public struct HeaderFields: Sendable, Equatable, ExpressibleByDictionaryLiteral, Sequence {
    public private(set) var fields: [(name: String, value: String)]

    public init(_ fields: [(name: String, value: String)] = []) { self.fields = fields }
    public init(dictionaryLiteral elements: (String, String)...) { fields = elements.map { (name: $0.0, value: $0.1) } }

    /// The first value of `name`, case-insensitively.
    public subscript(name: String) -> String? {
        fields.first { Self.sameName($0.name, name) }?.value
    }

    /// Whether two field names are the same: ASCII letters compared without case, as HTTP's
    /// tokens are (RFC 9110 §5.1), every other byte as it is. Not Foundation's
    /// `caseInsensitiveCompare`, which folds Unicode and costs far more for every field looked up.
    static func sameName(_ lhs: String, _ rhs: String) -> Bool {
        var left = lhs.utf8.makeIterator()
        var right = rhs.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return true
            case (let a?, let b?):
                if a != b, a | 0x20 != b | 0x20 || !(UInt8(ascii: "a")...UInt8(ascii: "z")).contains(a | 0x20) { return false }
            default: return false
            }
        }
    }

    public mutating func add(_ name: String, _ value: String) { fields.append((name: name, value: value)) }
    /// Removes every field named `name`, case-insensitively.
    public mutating func remove(_ name: String) { fields.removeAll { Self.sameName($0.name, name) } }
    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }

    public static func == (lhs: HeaderFields, rhs: HeaderFields) -> Bool {
        lhs.fields.elementsEqual(rhs.fields) { $0.name == $1.name && $0.value == $1.value }
    }
}

/// A request as the transport sends it: a GET, or a POST with a form (the OAuth token request).
public struct HTTPRequest: Sendable, Equatable {
    public enum Method: String, Sendable { case get = "GET", post = "POST" }

    public var method: Method
    public var url: URL
    public var headers: HeaderFields
    public var body: Data?

    public init(method: Method = .get, url: URL, headers: HeaderFields = [:], body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// An answer as it arrived: status, headers and the whole (decompressed) body.
public struct HTTPResponse: Sendable, Equatable {
    public var status: Int
    public var headers: HeaderFields
    public var body: Data

    public init(status: Int, headers: HeaderFields = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// Sends one request and returns the whole answer, whatever its status.
///
/// A status is never an error here: the validator decides what a 404 means. Every failure to get
/// an answer is classified as a ``TransportFailure``.
public protocol HTTPTransport: Sendable {
    /// Sends `request`, giving up at `deadline` (headers and body together).
    func send(_ request: HTTPRequest, deadline: ContinuousClock.Instant) async throws(TransportFailure) -> HTTPResponse
    /// Releases connections and threads.
    func shutdown() async
}

extension TransportFailure: Error {}
