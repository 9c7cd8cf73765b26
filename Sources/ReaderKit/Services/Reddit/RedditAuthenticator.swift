import Foundation

/// Reddit's application-only OAuth as an ``Authenticator``: a bearer token from
/// `{public site}/api/v1/access_token` (the client-credentials grant with a secret, the
/// installed-client grant with a kept device id without one), sent only to the OAuth origin, kept
/// between runs in `reddit-token.json` beside the cache file (mode 0600), renewed once on a 401.
public struct RedditAuthenticator: Authenticator {
    public let credentials: RedditCredentials
    public let origin: Origin
    /// Where the token endpoint is: Reddit's public site.
    public let publicBaseURL: URL

    public init(credentials: RedditCredentials, origin: Origin, publicBaseURL: URL) {
        self.credentials = credentials
        self.origin = origin
        self.publicBaseURL = publicBaseURL
    }

    public var secrets: Set<String> { credentials.secretForms }

    func store(in session: AuthenticationSession) -> RedditTokenStore? {
        session.storageDirectory.map { RedditTokenStore(path: ($0 as NSString).appendingPathComponent("reddit-token.json")) }
    }

    public func storedCredential(in session: AuthenticationSession) -> AuthenticationCredential? {
        guard let token = store(in: session)?.token(for: credentials.clientID, at: origin.description, now: session.now), token.isUsable(at: session.now) else { return nil }
        return AuthenticationCredential(value: token.accessToken, expiresAt: token.expiresAt)
    }

    public func store(_ credential: AuthenticationCredential, in session: AuthenticationSession) {
        guard let expiresAt = credential.expiresAt else { return }
        store(in: session)?.save(RedditToken(accessToken: credential.value, expiresAt: expiresAt, clientID: credentials.clientID,
                                             origin: origin.description))
    }

    public func discard(_ credential: AuthenticationCredential, in session: AuthenticationSession) {
        store(in: session)?.discardToken()
        session.logger.debug("token discarded", metadata: ["reddit.token": "discarded after 401"])
    }

    /// Reddit's own spelling, `bearer`.
    public func apply(_ credential: AuthenticationCredential, to headers: inout HeaderFields) {
        headers.remove("Authorization")
        headers.add("Authorization", "bearer " + credential.value)
    }

    /// Asks the token endpoint for an application-only token.
    public func obtainCredential(in session: AuthenticationSession) async throws(ReaderError) -> AuthenticationCredential {
        var text = publicBaseURL.absoluteString
        if !text.hasSuffix("/") { text += "/" }
        guard let url = URL(string: text + "api/v1/access_token") else { throw .bug("token endpoint URL") }
        let form: String
        if credentials.clientSecret != nil {
            form = "grant_type=client_credentials"
        } else {
            let device = store(in: session)?.deviceID() ?? "DO_NOT_TRACK_THIS_DEVICE"
            form = "grant_type=" + Endpoint<JSONValue>.percentEncode("https://oauth.reddit.com/grants/installed_client")
                + "&device_id=" + Endpoint<JSONValue>.percentEncode(device)
        }
        let request = HTTPRequest(method: .post, url: url, headers: HeaderFields([
            (name: "Authorization", value: credentials.basicAuthorization),
            (name: "Content-Type", value: "application/x-www-form-urlencoded"),
            (name: "Accept", value: "application/json"),
            (name: "User-Agent", value: Reddit.userAgent),
        ]), body: Data(form.utf8))
        session.logger.debug("POST", metadata: ["request.url": "\(url)", "oauth.grant": "\(credentials.clientSecret == nil ? "installed_client" : "client_credentials")"])
        let response = try await session.send(request)
        // Only the status is logged: the body holds the token.
        session.logger.debug("token response", metadata: ["response.status": "\(response.status)"])
        let token = try RedditToken.read(response, url: url.absoluteString, clientID: credentials.clientID,
                                         installedApp: credentials.clientSecret == nil, now: session.now)
        return AuthenticationCredential(value: token.accessToken, expiresAt: token.expiresAt)
    }
}

extension RedditToken {
    /// Reads the token endpoint's answer: a token (its lifetime capped at a week), or why there is
    /// none. The answer is untrusted: a token must be printable ASCII of at most 4 KB, and the
    /// server's error text is sanitised before it can be shown.
    /// - Throws: ``ReaderError/authentication(_:)`` for a refusal (400, 401, 403, or an `error` in
    ///   the answer); a status error for a server failing like any server (429, 5xx); a content-type
    ///   or decoding error for a 2xx answer without a token reader can use.
    package static func read(_ response: HTTPResponse, url: String, clientID: String, installedApp: Bool,
                             now: Date) throws(ReaderError) -> RedditToken {
        struct Answer: Decodable {
            var accessToken: String?
            var expiresIn: Double?
            var error: ErrorField?
            enum CodingKeys: String, CodingKey { case accessToken = "access_token", expiresIn = "expires_in", error }
        }
        /// Reddit sends `"error": 401` or `"error": "invalid_grant"`.
        enum ErrorField: Decodable {
            case number(Int), text(String)
            init(from decoder: any Decoder) throws {
                let container = try decoder.singleValueContainer()
                if let number = try? container.decode(Int.self) { self = .number(number) } else { self = .text(try container.decode(String.self)) }
            }
            var text: String { switch self { case .number(let n): String(n); case .text(let t): TerminalText.sanitise(t, maxLength: 4096) } }
        }
        let answerLimit = 64 * 1024
        let decoded = Result { try JSONDecoder().decode(Answer.self, from: response.body.prefix(answerLimit)) }
        let answer = try? decoded.get()
        switch response.status {
        case 200...299:
            // Only an answer saying it refuses is a refusal; a 2xx without a token reader can use is
            // the server answering wrongly (a captive portal, a broken proxy), never the credentials.
            if let refusal = answer?.error {
                throw .authentication(AuthenticationFailure(status: response.status, serverError: refusal.text,
                                                            withoutSecret: installedApp, refusedBy: "Reddit", service: RedditService.name))
            }
            try ResponseValidator.validateContentType(response, url: url)
            guard response.body.count <= answerLimit else {
                throw .decoding(DecodingFailure(.invalidValue, codingPath: "", detail: "an answer of more than 64 KB, larger than any token's", url: url))
            }
            let answer: Answer
            do { answer = try decoded.get() } catch { throw .decoding(DecodingFailure(error, url: url)) }
            guard let token = answer.accessToken else {
                throw .decoding(DecodingFailure(.keyMissing, codingPath: "access_token", detail: "key \"access_token\" not found", url: url))
            }
            guard !token.isEmpty, token.count <= 4096, token.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) }) else {
                throw .decoding(DecodingFailure(.invalidValue, codingPath: "access_token",
                                                detail: "not a token: empty, longer than 4 KB, or other than printable ASCII", url: url))
            }
            let lifetime = min(max(answer.expiresIn ?? 3600, 0), 7 * 86_400)
            return RedditToken(accessToken: token, expiresAt: now.addingTimeInterval(lifetime), clientID: clientID, origin: nil)
        case 400, 401, 403:
            throw .authentication(AuthenticationFailure(status: response.status, serverError: answer?.error?.text, withoutSecret: installedApp, refusedBy: "Reddit", service: RedditService.name))
        default:
            // The token endpoint failing like any server (429, 5xx) is handled like any server.
            try ResponseValidator.validateStatus(response, url: url, now: now, service: RedditService())
            throw .authentication(AuthenticationFailure(status: response.status, serverError: nil, withoutSecret: installedApp, refusedBy: "Reddit", service: RedditService.name))
        }
    }
}
