import Foundation

extension ReaderClient {
    /// Where the token is kept between runs: beside the cache file, or nowhere without a cache.
    var redditTokenStore: RedditTokenStore? {
        configuration.cachePath.map { RedditTokenStore(path: (($0 as NSString).deletingLastPathComponent as NSString)
            .appendingPathComponent("reddit-token.json")) }
    }

    /// Whether a usable Reddit token is held (in this run or in the store), and until when; never
    /// the token itself. Nil when no app identity is configured.
    public func redditTokenStatus() -> (held: Bool, expiresAt: Date?)? {
        guard let credentials = configuration.services.redditCredentials else { return nil }
        let token = redditToken ?? redditTokenStore?.token(for: credentials.clientID, now: now())
        guard let token, token.isUsable(at: now()) else { return (false, nil) }
        return (true, token.expiresAt)
    }

    /// The bearer token for Reddit's OAuth host: this run's, else the stored one while it is
    /// usable, else a new one from the token endpoint (then stored).
    func redditBearerToken(deadline: ContinuousClock.Instant) async throws(ReaderError) -> String {
        guard let credentials = configuration.services.redditCredentials else { throw .bug("a token without credentials") }
        if let token = redditToken, token.isUsable(at: now()) { return token.accessToken }
        if let stored = redditTokenStore?.token(for: credentials.clientID, now: now()), stored.isUsable(at: now()) {
            redditToken = stored
            return stored.accessToken
        }
        // Concurrent loads (a sync) share one request for a token rather than each asking.
        let fetch: Task<Result<RedditToken, ReaderError>, Never>
        if let pending = redditTokenFetch {
            fetch = pending
        } else {
            fetch = Task {
                do throws(ReaderError) { return .success(try await self.fetchRedditToken(credentials, deadline: deadline)) }
                catch { return .failure(error) }
            }
            redditTokenFetch = fetch
        }
        let result = await fetch.value
        if redditTokenFetch == fetch { redditTokenFetch = nil }
        let token = try result.get()
        if redditToken != token {
            redditToken = token
            redditTokenStore?.save(token)
        }
        return token.accessToken
    }

    /// The reset decision's action: this token is not used again, here or by the next run.
    func discardRedditToken() {
        redditToken = nil
        redditTokenStore?.discardToken()
        logger.debug("token discarded", metadata: ["reddit.token": "discarded after 401"])
    }

    /// Asks `{reddit}/api/v1/access_token` for an application-only token: the client-credentials
    /// grant with a secret, the installed-client grant (with a kept device id) without one.
    private func fetchRedditToken(_ credentials: RedditCredentials, deadline: ContinuousClock.Instant) async throws(ReaderError) -> RedditToken {
        var text = configuration.services.redditBaseURL.absoluteString
        if !text.hasSuffix("/") { text += "/" }
        guard let url = URL(string: text + "api/v1/access_token") else { throw .bug("token endpoint URL") }
        let form: String
        if credentials.clientSecret != nil {
            form = "grant_type=client_credentials"
        } else {
            let device = redditTokenStore?.deviceID() ?? "DO_NOT_TRACK_THIS_DEVICE"
            form = "grant_type=" + Endpoint<JSONValue>.percentEncode("https://oauth.reddit.com/grants/installed_client")
                + "&device_id=" + Endpoint<JSONValue>.percentEncode(device)
        }
        let request = HTTPRequest(method: .post, url: url, headers: HeaderFields([
            (name: "Authorization", value: credentials.basicAuthorization),
            (name: "Content-Type", value: "application/x-www-form-urlencoded"),
            (name: "Accept", value: "application/json"),
            (name: "User-Agent", value: Reddit.userAgent),
        ]), body: Data(form.utf8))
        logger.debug("POST", metadata: ["request.url": "\(url)", "oauth.grant": "\(credentials.clientSecret == nil ? "installed_client" : "client_credentials")"])
        let response: HTTPResponse
        do { response = try await transportForUse().send(request, deadline: deadline) } catch { throw .transport(error) }
        // Only the status is logged: the body holds the token.
        logger.debug("token response", metadata: ["response.status": "\(response.status)"])

        return try RedditToken.read(response, url: url.absoluteString, clientID: credentials.clientID,
                                    installedApp: credentials.clientSecret == nil, now: now())
    }
}

extension RedditToken {
    /// Reads the token endpoint's answer: a token (its lifetime capped at a week), or why there is
    /// none. The answer is untrusted: a token must be printable ASCII of at most 4 KB, and the
    /// server's error text is sanitised before it can be shown.
    /// - Throws: ``ReaderError/authentication(_:)`` for a refused or empty answer; a status error
    ///   for a server failing like any server (429, 5xx).
    static func read(_ response: HTTPResponse, url: String, clientID: String, installedApp: Bool,
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
        let answer = try? JSONDecoder().decode(Answer.self, from: response.body.prefix(64 * 1024))
        switch response.status {
        case 200...299:
            guard let answer, answer.error == nil, let token = answer.accessToken, !token.isEmpty, token.count <= 4096,
                  token.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) }) else {
                throw .authentication(AuthenticationFailure(status: response.status, serverError: answer?.error?.text ?? "no token in the answer",
                                                            installedApp: installedApp))
            }
            let lifetime = min(max(answer.expiresIn ?? 3600, 0), 7 * 86_400)
            return RedditToken(accessToken: token, expiresAt: now.addingTimeInterval(lifetime), clientID: clientID)
        case 400, 401, 403:
            throw .authentication(AuthenticationFailure(status: response.status, serverError: answer?.error?.text, installedApp: installedApp))
        default:
            // The token endpoint failing like any server (429, 5xx) is handled like any server.
            try ResponseValidator.validateStatus(response, url: url, now: now)
            throw .authentication(AuthenticationFailure(status: response.status, serverError: nil, installedApp: installedApp))
        }
    }
}
