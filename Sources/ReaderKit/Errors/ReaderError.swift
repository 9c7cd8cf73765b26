import Foundation

/// Every failure ReaderKit reports, classified once at the layer where it happened.
///
/// The layers run in a fixed order (transport → HTTP status and the API's error body → content
/// type → decoding) and the first failure wins. Each case carries what the user needs
/// (`message`, `hints(in:)`), what a developer needs (`technicalDetail`), and a stable `code`.
///
/// ## Topics
/// - ``code``
/// - ``exitCode``
/// - ``message``
/// - ``hints(in:)``
/// - ``technicalDetail``
public enum ReaderError: Error, Sendable {
    /// An argument is invalid; found before any request (`R1001`). The sentence names the
    /// parameter refused as a ``Wording/Part/name(_:)``, for a front end to name its own way.
    case invalidArgument(Wording)
    /// The configuration (an environment variable) is invalid (`R1002`).
    case invalidConfiguration(String)
    /// The request got no answer.
    case transport(TransportFailure)
    /// The server answered with an error status; `apiError` holds what its body said, if it said it
    /// in a shape the API uses.
    case status(StatusFailure)
    /// The server answered 2xx with something other than JSON (a captive portal, a block page).
    case contentType(ContentTypeFailure)
    /// The JSON does not decode into the expected type.
    case decoding(DecodingFailure)
    /// The local cache failed.
    case cache(CacheFailure)
    /// The API's rate limit is used up and resets later than reader may wait: the request was not
    /// sent (`R1003`), so that the limit is not hammered.
    case rateLimited(RateLimitFailure)
    /// A service's token endpoint refused the client's credentials (R1004).
    case authentication(AuthenticationFailure)
    /// stdout cannot be written (`O1001`): the disk is full, stdout is closed, or the pipe is; or
    /// the temporary file an output is put together in before it goes to stdout cannot be (`O1002`).
    case output(OutputFailure)
    /// An internal invariant broke.
    case bug(String)
}

/// Why a request got no answer. Codes mirror `URLError` (`T1003` is `URLError.cannotFindHost`).
public struct TransportFailure: Sendable, Equatable {
    public enum Reason: Int, Sendable, CaseIterable {
        /// The request took longer than its deadline (`URLError.timedOut`).
        case timedOut = 1001
        /// The host name does not resolve (`URLError.cannotFindHost`).
        case cannotFindHost = 1003
        /// Nothing accepts connections there (`URLError.cannotConnectToHost`).
        case cannotConnectToHost = 1004
        /// The connection closed before the whole answer arrived (`URLError.networkConnectionLost`).
        case connectionLost = 1005
        /// Too many redirects (`URLError.httpTooManyRedirects`).
        case tooManyRedirects = 1007
        /// A redirect reader does not follow: to another origin, from https to http, with a user
        /// name or password, or to a port outside 1…65535. Beside `URLError.redirectToNonExistentLocation`
        /// (-1010), the nearest URLError: the location is one reader will not go to. `host` holds
        /// where it pointed, as shown (``Origin``), and `detail` why it was refused.
        case redirectRefused = 1010
        /// No network route at all (`URLError.notConnectedToInternet`).
        case notConnected = 1009
        /// The server answered, but not in HTTP: a header larger than any server sends, two
        /// Content-Lengths, a length no body has, bytes that are not HTTP at all
        /// (`URLError.badServerResponse`). The server's fault, not the connection's.
        case badServerResponse = 1011
        /// The answer is larger than the limit (`URLError.dataLengthExceedsMaximum`).
        case responseTooLarge = 1103
        /// TLS failed in the handshake itself: the server speaks no TLS there, or none reader
        /// accepts (`URLError.secureConnectionFailed`). A certificate refused has its own code.
        case secureConnectionFailed = 1200
        /// The server's certificate has expired (`URLError.serverCertificateHasBadDate`): the
        /// service's to renew. Said so whatever else is wrong with it (self-signed too).
        case certificateExpired = 1201
        /// The server's certificate is for another name (`URLError.serverCertificateUntrusted`,
        /// which is what Apple's systems report for a name that does not match).
        case certificateWrongName = 1202
        /// The server's certificate is not signed by an authority this system trusts: self-signed,
        /// or an intercepting proxy's (`URLError.serverCertificateHasUnknownRoot`).
        case certificateUntrusted = 1203
        /// The server's certificate is not valid yet (`URLError.serverCertificateNotYetValid`):
        /// most often this computer's clock is wrong.
        case certificateNotYetValid = 1204
        /// Anything else the transport reported (`URLError.unknown` is -1).
        case unknown = 1000
        /// The proxy (``ProxySettings``) cannot be reached: its name does not resolve, nothing
        /// accepts connections at its address, or connecting to it timed out. After CFNetwork's
        /// `kCFErrorHTTPProxyConnectionFailure` (306). ``TransportFailure/proxy`` names it.
        case proxyUnreachable = 1306
        /// The proxy asks for credentials (407 Proxy Authentication Required): none were given,
        /// or it refused those given. After CFNetwork's `kCFErrorHTTPBadProxyCredentials` (307).
        case proxyAuthenticationRequired = 1307
        /// The proxy answered the request for a tunnel to the service with an error of its own
        /// (its rules forbid that host or port, or it cannot reach it itself: a 403 or a 502 from
        /// the proxy), or with something that is not HTTP. Some proxies refuse wrong credentials so
        /// (tinyproxy answers them 401): when credentials were given, the message says they may be why.
        case proxyRefused = 1308
    }

    public var reason: Reason
    /// The host the request was for.
    public var host: String
    /// The port the connection was for, when known: a refused connection names it, as a service
    /// on another port of the same host is a common mistake.
    public var port: Int?
    /// What the transport said, for `--verbose`.
    public var detail: String
    /// What the server did wrong, in a few words for people, when the transport could tell
    /// (`two Content-Length headers`): a ``Reason/badServerResponse`` names it.
    public var fault: String?
    /// The certificate the server showed, when a certificate was refused.
    public var certificate: PeerCertificate?
    /// The proxy the request went through, as shown (``ProxySettings/Server/shown``: never its
    /// password); nil for a request sent directly.
    public var proxy: String?
    /// The environment variable that named the proxy, such as `HTTPS_PROXY`, when known.
    public var proxyVariable: String?

    /// Whether the failure is the proxy's rather than the service's: ``Reason/proxyUnreachable``,
    /// ``Reason/proxyAuthenticationRequired`` or ``Reason/proxyRefused``.
    public var isTheProxys: Bool {
        [.proxyUnreachable, .proxyAuthenticationRequired, .proxyRefused].contains(reason)
    }

    public init(_ reason: Reason, host: String, port: Int? = nil, detail: String, fault: String? = nil,
                certificate: PeerCertificate? = nil) {
        self.reason = reason
        self.host = host
        self.port = port
        self.detail = detail
        self.fault = fault
        self.certificate = certificate
    }

    /// `host:port` (`[::1]:9` for an IPv6 address), or the host alone when the port is unknown.
    public var address: String {
        guard let port, (1...65_535).contains(port) else { return host }
        return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}

/// What a server's certificate says of itself, read when it was refused: enough to tell an
/// expired certificate from one for another name. Untrusted (it failed verification), so only
/// its dates and names are kept, bounded.
public struct PeerCertificate: Sendable, Equatable {
    /// The first moment it is valid.
    public var notValidBefore: Date
    /// The last moment it is valid.
    public var notValidAfter: Date
    /// The host names and addresses it is for (its subject alternative names), at most a few.
    public var names: [String]

    public init(notValidBefore: Date, notValidAfter: Date, names: [String] = []) {
        self.notValidBefore = notValidBefore
        self.notValidAfter = notValidAfter
        self.names = names
    }
}

extension ReaderError {
    /// The same error, with the service that answered, and what it says the failure means,
    /// noted on a status failure.
    public func answered(by service: any Service) -> ReaderError {
        guard case .status(var failure) = self else { return self }
        failure.service = service.name
        failure.explanation = service.explanation(of: failure)
        return .status(failure)
    }
}

/// An error status, with the API's own explanation when its body gave one.
public struct StatusFailure: Sendable, Equatable {
    public var status: Int
    public var url: String
    /// What the API's error body said, when it is a shape the API uses.
    public var apiError: APIErrorBody?
    /// The server's `Retry-After` (or, with nothing remaining, its rate limit's reset), in seconds.
    public var retryAfterSeconds: Double?
    /// When the server asks to be asked again: the answer's time plus `retryAfterSeconds`.
    public var retryAt: Date?
    /// The service that answered, when known.
    public var service: ServiceName?
    /// What the service says the failure means (``Service/explanation(of:)``): a 403 that is a
    /// private subreddit, a 429 that is a block page.
    public var explanation: ServiceExplanation?

    public init(status: Int, url: String, apiError: APIErrorBody? = nil, retryAfterSeconds: Double? = nil,
                retryAt: Date? = nil, service: ServiceName? = nil, explanation: ServiceExplanation? = nil) {
        self.status = status
        self.url = url
        self.apiError = apiError
        self.retryAfterSeconds = retryAfterSeconds
        self.retryAt = retryAt
        self.service = service
        self.explanation = explanation
    }

    /// Whether the answer was a page of the site's firewall refusing this client
    /// (``Service/isBlockPage(_:status:)``), not an answer about the resource.
    public var isBlockPage = false

    /// Whether the status or the API says the resource does not exist.
    public var isNotFound: Bool { status == 404 || status == 410 }
}

/// A 2xx answer whose content type is not JSON.
public struct ContentTypeFailure: Sendable, Equatable {
    public var contentType: String
    public var url: String
    /// The page's `<title>`, sanitised, when the body is HTML: it often names the portal or block.
    public var pageTitle: String?
    /// What was asked for, in words: `JSON`, or `an Atom feed` by a ``ResponseTranslation``.
    public var expected: String = "JSON"

    public init(contentType: String, url: String, pageTitle: String? = nil) {
        self.contentType = contentType
        self.url = url
        self.pageTitle = pageTitle
    }

    /// An answer that is not `expected` (`an Atom feed`), where that and not JSON was asked for.
    public init(contentType: String, url: String, pageTitle: String?, expected: String) {
        self.init(contentType: contentType, url: url, pageTitle: pageTitle)
        self.expected = expected
    }
}

/// JSON that does not decode, with the coding path kept for the technical detail.
public struct DecodingFailure: Sendable, Equatable {
    public enum Reason: Int, Sendable, CaseIterable {
        /// The body is not JSON at all (corrupt or truncated).
        case corrupt = 1002
        /// A key the model needs is missing.
        case keyMissing = 1003
        /// A value has another type than the model expects.
        case typeMismatch = 1004
        /// A value is of the right type but not valid (a date that does not parse).
        case invalidValue = 1005
    }

    public var reason: Reason
    /// The coding path, such as `results[3].episode_id`.
    public var codingPath: String
    public var detail: String
    public var url: String
    /// What the body was read as: `JSON`, or `an Atom feed` (``AtomFeed``).
    public var format: String = "JSON"

    public init(_ reason: Reason, codingPath: String, detail: String, url: String) {
        self.reason = reason
        self.codingPath = codingPath
        self.detail = detail
        self.url = url
    }

    /// A failure of a body read as `format` (`an Atom feed`) rather than JSON.
    public init(_ reason: Reason, codingPath: String, detail: String, url: String, format: String) {
        self.init(reason, codingPath: codingPath, detail: detail, url: url)
        self.format = format
    }

    /// Classifies a `DecodingError` (or another error JSONDecoder threw) for `url`.
    public init(_ error: any Error, url: String) {
        func path(_ keys: [any CodingKey]) -> String {
            keys.reduce(into: "") { text, key in
                if let index = key.intValue { text += "[\(index)]" } else { text += text.isEmpty ? key.stringValue : ".\(key.stringValue)" }
            }
        }
        switch error as? DecodingError {
        case .keyNotFound(let key, let context)?:
            self.init(.keyMissing, codingPath: path(context.codingPath + [key]),
                      detail: "key \(key.stringValue.debugDescription) not found", url: url)
        case .typeMismatch(let type, let context)?:
            self.init(.typeMismatch, codingPath: path(context.codingPath),
                      detail: "expected \(type): \(context.debugDescription)", url: url)
        case .valueNotFound(let type, let context)?:
            self.init(.typeMismatch, codingPath: path(context.codingPath),
                      detail: "expected \(type), found null", url: url)
        case .dataCorrupted(let context)?:
            let corrupt = context.codingPath.isEmpty
            self.init(corrupt ? .corrupt : .invalidValue, codingPath: path(context.codingPath),
                      detail: context.debugDescription, url: url)
        default:
            self.init(.corrupt, codingPath: "", detail: String(describing: error), url: url)
        }
    }
}

/// A failure of the local cache.
public struct CacheFailure: Sendable, Equatable {
    public enum Reason: Int, Sendable, CaseIterable {
        /// `--offline` and nothing cached for this request.
        case notCached = 1001
        /// The cache file is corrupt, not a database, or from a newer schema.
        case corrupt = 1002
        /// The cache cannot be written (read-only, disk full).
        case unwritable = 1003
        /// The cache cannot be opened at all (no permission on the folder).
        case unavailable = 1004
        /// The only cached copy is older than `--max-stale` allows.
        case tooOld = 1005
        /// One entry cannot be right (a date no calendar shows, a size that is not its body's):
        /// it is dropped and never served; the rest of the file is fine.
        case damagedEntry = 1006
    }

    public var reason: Reason
    public var path: String
    public var detail: String
    /// What SQLite or the file system threw, kept as it was (a GRDB `DatabaseError` with its
    /// result code, a ``NewerSchema``): what the failure was classified from, and what tells
    /// another process's lock (``isBusy``) from the rest. Not compared by `==`.
    public var underlyingError: (any Error)?

    public init(_ reason: Reason, path: String, detail: String, underlyingError: (any Error)? = nil) {
        self.reason = reason
        self.path = path
        self.detail = detail
        self.underlyingError = underlyingError
    }

    public static func == (lhs: CacheFailure, rhs: CacheFailure) -> Bool {
        lhs.reason == rhs.reason && lhs.path == rhs.path && lhs.detail == rhs.detail
    }
}

/// A write to reader's output that failed, with the system's error number.
public struct OutputFailure: Sendable, Equatable {
    /// Where the failed write went.
    public enum Destination: Sendable, Equatable {
        /// stdout (`O1001`).
        case standardOutput
        /// The unlinked temporary file a large output is put together in, so that nothing goes to
        /// stdout unless all of it can (`reader people --all --json`): `O1002`.
        case temporaryFile
    }

    /// `errno` of the failed write, such as `ENOSPC` or `EBADF`.
    public var errorNumber: Int32
    /// Where the failed write went.
    public var destination: Destination

    public init(errorNumber: Int32, destination: Destination = .standardOutput) {
        self.errorNumber = errorNumber
        self.destination = destination
    }

    /// Whether the reader at the other end of a pipe has gone (`| head -1`): not a failure to
    /// report, only a reason to stop.
    public var isClosedPipe: Bool { destination == .standardOutput && errorNumber == EPIPE }

    /// What the system says of the error number.
    public var systemMessage: String { String(cString: strerror(errorNumber)) }
}

/// A request not sent because the API's rate limit is used up until later than reader may wait,
/// or is down to the share a load keeps for what the user asks for (``LoadOptions/rateLimitReserve``).
public struct RateLimitFailure: Sendable, Equatable {
    public var service: ServiceName
    /// The origin whose limit is used up, as ``Origin`` writes it (`https://oauth.reddit.com`).
    public var origin: String
    /// When the service's window resets.
    public var resetAt: Date
    /// Whether requests remain, but only the share kept for what the user asks for: this load
    /// was work in the background, which may not spend it.
    public var keptInReserve: Bool

    public init(service: ServiceName, origin: String, resetAt: Date, keptInReserve: Bool = false) {
        self.service = service
        self.origin = origin
        self.resetAt = resetAt
        self.keptInReserve = keptInReserve
    }
}

/// A service's token endpoint refused the client's id or secret.
public struct AuthenticationFailure: Sendable, Equatable {
    /// The token endpoint's status (401 or 400; 200 when it answered with an error body).
    public var status: Int
    /// The endpoint's own error word, such as OAuth's `invalid_grant`, sanitised.
    public var serverError: String?
    /// Whether the client has no secret: an OAuth public client, which only its id identifies.
    public var withoutSecret: Bool
    /// Who refused them, as people name it ("Reddit").
    public var refusedBy: String
    /// The service whose credentials were refused, when known: its own words say what to check.
    public var service: ServiceName?

    public init(status: Int, serverError: String?, withoutSecret: Bool, refusedBy: String = "the service", service: ServiceName? = nil) {
        self.status = status
        self.serverError = serverError
        self.withoutSecret = withoutSecret
        self.refusedBy = refusedBy
        self.service = service
    }
}
